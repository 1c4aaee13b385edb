//! The `#[napi]` surface: thin conversions between JavaScript values and the core.
//!
//! The JS layer (`lib/*.js`) checks argument types and builds the result objects of the
//! TypeScript API; these functions take typed arguments and return plain data.

mod bench;
mod callback;
mod canonical;
mod env;
mod errors;
mod ids;
mod indexer;
mod native_logs;
mod owned_future;
mod pack_service;
mod pack_service_threads;
mod protocol;
mod regexp;
mod runner_messages;
mod service;
mod supervisor;
mod termination;
mod validate;

// mimalloc's `mi_option_e` positions (include/mimalloc.h of the v2 sources libmimalloc-sys
// builds; its Rust constants leave these out).
const MI_OPTION_ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;
const MI_OPTION_ARENA_RESERVE: libmimalloc_sys::mi_option_t = 23;

/// How much address space mimalloc reserves at a time, in KiB (its default is 1 GiB).
const ARENA_RESERVE_KIB: std::ffi::c_long = 64 << 10;

/// Runs when Node loads the addon, before its first allocation: the allocator's setting, then
/// the tokio runtime napi-rs would otherwise build on first use with a worker on every core.
#[napi_derive::module_init]
fn on_load() {
    tune_allocator();
    // Before the runtime's threads start (`crate::malloc_arenas`).
    crate::malloc_arenas::cap_in_service_process();
    // Built now so that napi-rs takes it instead of its own; should this fail, napi-rs builds
    // its default on first use, and the service still runs.
    if let Ok(runtime) = crate::runtime::build() {
        napi::bindgen_prelude::create_custom_tokio_runtime(runtime);
    }
}

/// mimalloc commits a whole arena up front by default, advised as transparent huge pages: more
/// idle RSS than glibc and a higher peak under large calls, to buy a slightly sooner first call
/// (it commits no pages on its way); req/s under load is the same, so eager commit is off.
/// Purging freed pages at once as well (`purge_delay` 0) lowers the peak but costs req/s, so it
/// is left at mimalloc's default. A `MIMALLOC_*` variable in the environment still wins.
///
/// Address space: mimalloc's first arena reserves a gigabyte; under an address-space limit
/// (`ulimit -v`) that is room pack code no longer has, so it reserves less at a time (glibc's
/// arenas are capped in the pack service's process only: `crate::malloc_arenas`). The figures
/// are in docs/design.md, *Memory*.
fn tune_allocator() {
    // SAFETY: integer settings, made before the addon starts any thread.
    unsafe {
        libmimalloc_sys::mi_option_set_default(MI_OPTION_ARENA_EAGER_COMMIT, 0);
        libmimalloc_sys::mi_option_set_default(MI_OPTION_ARENA_RESERVE, ARENA_RESERVE_KIB);
    }
}

//! `@kindgi/handler-runtime-native`: the Rust core of Kindgi's pack runtime, and its Node binding.
//!
//! The core modules hold no napi and are tested by `cargo test` alone; `binding` holds every
//! `#[napi]` item and is the one place core errors become JavaScript errors.

#![deny(clippy::all)]

pub mod canonical;
pub mod env;
pub mod ids;
pub mod indexer;
pub mod js;
pub mod json;
pub mod log;
pub mod malloc_arenas;
pub mod protocol;
pub mod runtime;
pub mod service;
pub mod supervisor;
pub mod validate;

#[cfg(test)]
mod test_random;

// The `#[napi]` items are only reached through Node, never from the test harness.
#[cfg_attr(test, allow(dead_code))]
mod binding;

// Rust's allocations only (V8 keeps its own heap). Every call allocates on a tokio worker and
// frees some of it on another thread, which glibc's arenas handle poorly and mimalloc's
// thread-local free lists well (docs/design.md, *Memory*).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

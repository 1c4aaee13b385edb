//! glibc's malloc arenas in the pack service's process.
//!
//! Every thread that allocates through glibc gets an arena of 64 MiB of address space of its
//! own, and ours do whenever they call into Node's C++ (a tokio worker handing a call to the JS
//! thread): under an address-space limit (`ulimit -v`) that is room pack code no longer has
//! (docs/design.md, *Memory*). The pack service's process caps them as the addon loads, before
//! the HTTP threads start (a thread that first allocates before the cap keeps an arena of its
//! own); a process of the user's own that imports the package keeps glibc's rule, as does one
//! whose environment sets it.

use std::ffi::{OsStr, OsString};
use std::path::Path;

/// The file names the pack service's process runs as: the bin, through npm's link to it or
/// by its own name, and the module that is the process (`node …/pack-service-main.js`).
const SERVICE_ENTRIES: [&str; 3] = [
    "kindgi-pack-service",
    "kindgi-pack-service.mjs",
    "pack-service-main.js",
];

/// Whether the command line `args` (the program first) runs the pack service's process: one
/// of the arguments names a [`SERVICE_ENTRIES`] file. Any argument, as the script comes after
/// Node's options, some of which take a value (`--import x.mjs`); a script of the user's that
/// is given such a name as an argument of its own gets the cap too, and only the cap.
pub fn is_service_process(args: impl IntoIterator<Item = OsString>) -> bool {
    args.into_iter().skip(1).any(|arg| {
        Path::new(&arg)
            .file_name()
            .and_then(OsStr::to_str)
            .is_some_and(|name| SERVICE_ENTRIES.contains(&name))
    })
}

/// The most glibc arenas the pack service's process keeps: the ones Node's threads made
/// before stay, and threads that first allocate later share them.
pub const GLIBC_ARENAS: i32 = 2;

/// Whether to cap the arenas, given `MALLOC_ARENA_MAX` and `GLIBC_TUNABLES`: not when either
/// already says how many there may be (glibc read it as the process started; an empty
/// `MALLOC_ARENA_MAX` says nothing to it).
pub fn cap_wanted(malloc_arena_max: Option<&OsStr>, tunables: Option<&OsStr>) -> bool {
    malloc_arena_max.is_none_or(OsStr::is_empty)
        && !tunables.is_some_and(|t| t.to_string_lossy().contains("glibc.malloc.arena_max"))
}

/// In the pack service's process, caps glibc's arenas at [`GLIBC_ARENAS`] unless the
/// environment set them; whether it did.
pub fn cap_in_service_process() -> bool {
    if !is_service_process(std::env::args_os()) {
        return false;
    }
    let wanted = cap_wanted(
        std::env::var_os("MALLOC_ARENA_MAX").as_deref(),
        std::env::var_os("GLIBC_TUNABLES").as_deref(),
    );
    wanted && cap()
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn cap() -> bool {
    // SAFETY: an integer setting; mallopt takes the allocator's own lock.
    unsafe { libc::mallopt(libc::M_ARENA_MAX, GLIBC_ARENAS) == 1 }
}

/// Elsewhere there is no glibc to tell.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn cap() -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_service_process_is_told_by_its_entry() {
        let args = |list: &[&str]| list.iter().map(OsString::from).collect::<Vec<_>>();
        for service in [
            &[
                "node",
                "/app/node_modules/.bin/kindgi-pack-service",
                "--index",
                "i.json",
            ][..],
            &["node", "--import", "x.mjs", "bin/kindgi-pack-service.mjs"],
            &["/usr/bin/node", "/p/lib/pack-service-main.js"],
        ] {
            assert!(is_service_process(args(service)), "{service:?}");
        }
        for other in [
            &["node", "server.js"][..],
            &["node", "bin/kindgi-pack-dev.mjs", "--pack-dir", "p"],
            &["node", "--test", "__test__/pack-service-main.test.mjs"],
            &["kindgi-pack-service"],
        ] {
            assert!(!is_service_process(args(other)), "{other:?}");
        }
    }

    #[test]
    fn the_environments_own_setting_wins() {
        let os = |s: &'static str| Some(OsStr::new(s));
        assert!(cap_wanted(None, None));
        assert!(cap_wanted(None, os("glibc.malloc.tcache_count=0")));
        assert!(!cap_wanted(os("8"), None));
        assert!(cap_wanted(os(""), None));
        assert!(!cap_wanted(
            None,
            os("glibc.malloc.check=0:glibc.malloc.arena_max=4")
        ));
    }
}

//! glibc's malloc arenas in the pack service's process.
//!
//! Every thread that allocates through glibc gets an arena of 64 MiB of address space of its
//! own, and ours do whenever they call into Node's C++ (a tokio worker handing a call to the JS
//! thread): under an address-space limit (`ulimit -v`) that is room pack code no longer has
//! (docs/design.md, *Memory*). The pack service's process caps them; a process of the user's
//! own that imports the package keeps glibc's rule, as does one whose environment sets it.

use std::ffi::OsStr;

/// The most glibc arenas the pack service's process keeps: the ones Node's threads made
/// before stay, and threads that first allocate later share them.
pub const GLIBC_ARENAS: i32 = 2;

/// Whether to cap the arenas, given `MALLOC_ARENA_MAX` and `GLIBC_TUNABLES`: not when either
/// already says how many there may be (glibc read it as the process started).
pub fn cap_wanted(malloc_arena_max: Option<&OsStr>, tunables: Option<&OsStr>) -> bool {
    malloc_arena_max.is_none()
        && !tunables.is_some_and(|t| t.to_string_lossy().contains("glibc.malloc.arena_max"))
}

/// Caps glibc's arenas at [`GLIBC_ARENAS`] unless the environment set them; whether it did.
pub fn cap_from_environment() -> bool {
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
    fn the_environments_own_setting_wins() {
        let os = |s: &'static str| Some(OsStr::new(s));
        assert!(cap_wanted(None, None));
        assert!(cap_wanted(None, os("glibc.malloc.tcache_count=0")));
        assert!(!cap_wanted(os("8"), None));
        assert!(!cap_wanted(os(""), None));
        assert!(!cap_wanted(
            None,
            os("glibc.malloc.check=0:glibc.malloc.arena_max=4")
        ));
    }
}

//! Why a child could not be started, in the words of Node's `spawn` error, which the
//! TypeScript supervisor reports: `spawn <program> ENOENT`.

use super::uv_error;

/// `spawn <program> <code>` for an error libuv names; the system's own words otherwise.
pub fn spawn_failure(program: &str, error: &std::io::Error) -> String {
    match error.raw_os_error().and_then(uv_error) {
        Some((code, _)) => format!("spawn {program} {code}"),
        None => format!("spawn {program}: {error}"),
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_failure_is_worded_as_node_words_it() {
        let missing = std::io::Error::from_raw_os_error(libc::ENOENT);
        assert_eq!(spawn_failure("pack", &missing), "spawn pack ENOENT");
        let denied = std::io::Error::from_raw_os_error(libc::EACCES);
        assert_eq!(spawn_failure("./run", &denied), "spawn ./run EACCES");
        let other = std::io::Error::other("no pipe");
        assert_eq!(spawn_failure("pack", &other), "spawn pack: no pipe");
    }
}

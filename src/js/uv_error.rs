//! libuv's names and words for system errors, as Node's errors give them.

/// libuv's name and words for a system error (`EADDRINUSE`, `address already in use`), as
/// Node's errors give them, for the errors spawning a child or opening a listener can give.
#[cfg(unix)]
pub fn uv_error(errno: i32) -> Option<(&'static str, &'static str)> {
    let known = [
        (libc::ENOENT, "ENOENT", "no such file or directory"),
        (libc::EACCES, "EACCES", "permission denied"),
        (libc::EPERM, "EPERM", "operation not permitted"),
        (libc::ENOEXEC, "ENOEXEC", "exec format error"),
        (libc::ENOTDIR, "ENOTDIR", "not a directory"),
        (libc::EISDIR, "EISDIR", "illegal operation on a directory"),
        (libc::ELOOP, "ELOOP", "too many symbolic links encountered"),
        (libc::ENAMETOOLONG, "ENAMETOOLONG", "name too long"),
        (libc::E2BIG, "E2BIG", "argument list too long"),
        (libc::ETXTBSY, "ETXTBSY", "text file is busy"),
        (libc::ENOMEM, "ENOMEM", "not enough memory"),
        (libc::EAGAIN, "EAGAIN", "resource temporarily unavailable"),
        (libc::EMFILE, "EMFILE", "too many open files"),
        (libc::ENFILE, "ENFILE", "file table overflow"),
        (libc::ESRCH, "ESRCH", "no such process"),
        (libc::EADDRINUSE, "EADDRINUSE", "address already in use"),
        (
            libc::EADDRNOTAVAIL,
            "EADDRNOTAVAIL",
            "address not available",
        ),
        (
            libc::EAFNOSUPPORT,
            "EAFNOSUPPORT",
            "address family not supported",
        ),
        (libc::EINVAL, "EINVAL", "invalid argument"),
        (libc::ENOBUFS, "ENOBUFS", "no buffer space available"),
    ];
    known
        .iter()
        .find(|(number, _, _)| *number == errno)
        .map(|(_, name, words)| (*name, *words))
}

#[cfg(not(unix))]
pub fn uv_error(_errno: i32) -> Option<(&'static str, &'static str)> {
    None
}

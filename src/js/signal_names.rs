//! Node's names for the signals that end a child (`child.signalCode`, the `signal` of a
//! child's `exit` event), which the supervisor reports as TypeScript's does.

/// Node's name for a signal number (`child.signalCode`).
#[cfg(unix)]
pub fn signal_name(number: i32) -> String {
    let known = [
        (libc::SIGHUP, "SIGHUP"),
        (libc::SIGINT, "SIGINT"),
        (libc::SIGQUIT, "SIGQUIT"),
        (libc::SIGILL, "SIGILL"),
        (libc::SIGABRT, "SIGABRT"),
        (libc::SIGFPE, "SIGFPE"),
        (libc::SIGKILL, "SIGKILL"),
        (libc::SIGSEGV, "SIGSEGV"),
        (libc::SIGPIPE, "SIGPIPE"),
        (libc::SIGALRM, "SIGALRM"),
        (libc::SIGTERM, "SIGTERM"),
        (libc::SIGUSR1, "SIGUSR1"),
        (libc::SIGUSR2, "SIGUSR2"),
        (libc::SIGBUS, "SIGBUS"),
        (libc::SIGTRAP, "SIGTRAP"),
        (libc::SIGCHLD, "SIGCHLD"),
        (libc::SIGCONT, "SIGCONT"),
        (libc::SIGSTOP, "SIGSTOP"),
        (libc::SIGTSTP, "SIGTSTP"),
        (libc::SIGTTIN, "SIGTTIN"),
        (libc::SIGTTOU, "SIGTTOU"),
        (libc::SIGURG, "SIGURG"),
        (libc::SIGXCPU, "SIGXCPU"),
        (libc::SIGXFSZ, "SIGXFSZ"),
        (libc::SIGVTALRM, "SIGVTALRM"),
        (libc::SIGPROF, "SIGPROF"),
        (libc::SIGWINCH, "SIGWINCH"),
        (libc::SIGIO, "SIGIO"),
        (libc::SIGSYS, "SIGSYS"),
        #[cfg(any(target_os = "linux", target_os = "android"))]
        (libc::SIGSTKFLT, "SIGSTKFLT"),
        #[cfg(any(target_os = "linux", target_os = "android"))]
        (libc::SIGPWR, "SIGPWR"),
    ];
    // Real-time signals have no name in Node either.
    known
        .iter()
        .find(|(n, _)| *n == number)
        .map_or_else(|| format!("SIG{number}"), |(_, name)| (*name).to_owned())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// Node's names, read from `child.on('exit', (code, signal))` for each number on Linux.
    #[cfg(target_os = "linux")]
    #[test]
    fn signals_are_named_as_node_names_them() {
        let node = "SIGHUP SIGINT SIGQUIT SIGILL SIGTRAP SIGABRT SIGBUS SIGFPE SIGKILL SIGUSR1 \
                    SIGSEGV SIGUSR2 SIGPIPE SIGALRM SIGTERM SIGSTKFLT SIGCHLD SIGCONT SIGSTOP \
                    SIGTSTP SIGTTIN SIGTTOU SIGURG SIGXCPU SIGXFSZ SIGVTALRM SIGPROF SIGWINCH \
                    SIGIO SIGPWR SIGSYS";
        for (number, name) in (1..).zip(node.split_whitespace()) {
            assert_eq!(signal_name(number), name);
        }
        assert_eq!(signal_name(40), "SIG40");
    }
}

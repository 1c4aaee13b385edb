//! Signals for a child and for the processes it started.
//!
//! A child may be a wrapper (`sh -c '…; …'`, a script) that starts the service and does not
//! pass SIGTERM on: its service would outlive the child's retirement, serving on a port nobody
//! knows and holding the child's pipes. So the processes under a child are found before it is
//! signalled (on Linux, from /proc: once the child is gone they belong to another parent),
//! held by pidfd so that a pid the kernel hands out again is never reached, and ended once the
//! child itself has gone.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

#[derive(Clone, Copy, Debug)]
pub enum Signal {
    Term,
    Kill,
}

/// How often [`Descendants::exited`] looks again.
#[cfg(target_os = "linux")]
const EXIT_POLL: Duration = Duration::from_millis(20);

/// The processes under one child, as they were when it was about to be signalled. Empty where
/// they cannot be found or held (other systems, kernels before 5.3).
#[derive(Debug, Default)]
pub struct Descendants {
    #[cfg(target_os = "linux")]
    members: Vec<std::os::fd::OwnedFd>,
}

impl Descendants {
    /// Every process whose chain of parents reaches `pid`, read from /proc. Blocking (it reads
    /// one file per process): run it off the async workers.
    #[cfg(target_os = "linux")]
    pub fn of(pid: u32) -> Descendants {
        use std::collections::{HashMap, HashSet};
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return Descendants::default();
        };
        let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
        for entry in entries.flatten() {
            let Some(process) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            if let Some(parent) = parent_of(process) {
                children.entry(parent).or_default().push(process);
            }
        }
        let mut members = Vec::new();
        let mut under = vec![pid];
        // A pid is walked once, should the table read across a reuse ever make a loop.
        let mut walked = HashSet::from([pid]);
        while let Some(parent) = under.pop() {
            for &process in children.get(&parent).into_iter().flatten() {
                if !walked.insert(process) {
                    continue;
                }
                under.push(process);
                // Opened, then checked: had the pid gone and been handed out again between
                // the read and the open, its parent would not be this one.
                if let Some(fd) = open_pidfd(process) {
                    if parent_of(process) == Some(parent) {
                        members.push(fd);
                    }
                }
            }
        }
        Descendants { members }
    }

    #[cfg(not(target_os = "linux"))]
    pub fn of(_pid: u32) -> Descendants {
        Descendants::default()
    }

    pub fn is_empty(&self) -> bool {
        #[cfg(target_os = "linux")]
        return self.members.is_empty();
        #[cfg(not(target_os = "linux"))]
        true
    }

    /// Sends `signal` to those still running, and forgets any the kernel refuses it for (one
    /// that changed user): waiting for those to exit would only spend the grace.
    pub fn send(&mut self, signal: Signal) {
        #[cfg(target_os = "linux")]
        self.members.retain(|fd| send_through_pidfd(fd, signal));
        #[cfg(not(target_os = "linux"))]
        let _ = signal;
    }

    /// Resolves once every one of them has exited (a pidfd reads as ready then, whoever
    /// reaps the process).
    pub async fn exited(&self) {
        #[cfg(target_os = "linux")]
        while !self.members.iter().all(has_exited) {
            tokio::time::sleep(EXIT_POLL).await;
        }
    }

    /// SIGTERM, then SIGKILL once `grace` has passed; resolves once all are gone (or, for a
    /// process the kernel cannot end at once, `KILL_WAIT` after the SIGKILL).
    pub async fn retire(&mut self, grace: Duration) {
        if self.is_empty() {
            return;
        }
        self.send(Signal::Term);
        if tokio::time::timeout(grace, self.exited()).await.is_err() {
            self.kill().await;
        }
    }

    /// SIGKILL, and a wait for them to be gone bounded by `KILL_WAIT`.
    pub async fn kill(&mut self) {
        if self.is_empty() {
            return;
        }
        self.send(Signal::Kill);
        let _ = tokio::time::timeout(KILL_WAIT, self.exited()).await;
    }
}

/// How long a SIGKILLed process may take to be gone before nobody waits for it any more (one in
/// uninterruptible sleep, on a hung file system, ends only when that returns).
const KILL_WAIT: Duration = Duration::from_secs(2);

/// The parent pid in `/proc/<pid>/stat`: the fourth field, read after the last `)` because the
/// second (the command's name) may hold spaces and parentheses.
#[cfg(target_os = "linux")]
fn parent_of(pid: u32) -> Option<u32> {
    parent_in(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

#[cfg(target_os = "linux")]
fn parent_in(stat: &str) -> Option<u32> {
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(target_os = "linux")]
fn has_exited(fd: &std::os::fd::OwnedFd) -> bool {
    use std::os::fd::AsRawFd;
    let mut poll = libc::pollfd {
        fd: fd.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one pollfd that lives across the call, and a zero timeout: poll(2) returns at once.
    match unsafe { libc::poll(&mut poll, 1, 0) } {
        0 => false,
        1.. => true,
        // EINTR: look again next time. Any other error would repeat for ever: read it as gone.
        _ => std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted,
    }
}

#[cfg(unix)]
fn signal_number(signal: Signal) -> libc::c_int {
    match signal {
        Signal::Term => libc::SIGTERM,
        Signal::Kill => libc::SIGKILL,
    }
}

/// `None` where the kernel has no pidfd_open (before 5.3), or the process is gone.
#[cfg(target_os = "linux")]
fn open_pidfd(pid: u32) -> Option<std::os::fd::OwnedFd> {
    use std::os::fd::{FromRawFd, OwnedFd};
    let pid = libc::pid_t::try_from(pid).ok()?;
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    let fd = libc::c_int::try_from(fd).ok().filter(|fd| *fd >= 0)?;
    // SAFETY: the descriptor was just opened and nothing else owns it.
    Some(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Whether the kernel took the call: the signal was sent, or the process is gone (ESRCH).
#[cfg(target_os = "linux")]
fn send_through_pidfd(fd: &std::os::fd::OwnedFd, signal: Signal) -> bool {
    use std::os::fd::AsRawFd;
    // SAFETY: pidfd_send_signal only sends a signal to the process the descriptor refers to;
    // one that has exited gives ESRCH.
    let sent = unsafe {
        libc::syscall(
            libc::SYS_pidfd_send_signal,
            fd.as_raw_fd(),
            signal_number(signal),
            std::ptr::null::<libc::siginfo_t>(),
            0,
        )
    };
    sent == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}

#[cfg(unix)]
fn send_to_pid(pid: Option<u32>, signal: Signal) {
    let Some(pid) = pid.and_then(|p| libc::pid_t::try_from(p).ok()) else {
        return;
    };
    // SAFETY: kill(2) only sends a signal; a pid that has already gone gives ESRCH.
    unsafe {
        libc::kill(pid, signal_number(signal));
    }
}

#[cfg(not(unix))]
fn send_to_pid(pid: Option<u32>, _signal: Signal) {
    // No SIGTERM to send: the child is ended at once, with the processes it started.
    if let Some(pid) = pid {
        let _ = std::process::Command::new("taskkill")
            .args(["/PID", &pid.to_string(), "/T", "/F"])
            .status();
    }
}

/// Where a child's signals go. Its exit is reported a while after it is reaped (once its
/// last lines are read), and by then its pid may belong to another process: a pidfd (Linux) can never reach
/// one, and `reaped` stops signals as soon as the pid is released.
#[derive(Debug)]
pub struct SignalTarget {
    pid: Option<u32>,
    #[cfg(target_os = "linux")]
    pidfd: Option<std::os::fd::OwnedFd>,
    reaped: AtomicBool,
}

impl SignalTarget {
    /// Opened before the child can be reaped (nothing waits for it yet), so the pid is still
    /// the child's own, running or a zombie.
    pub fn new(pid: Option<u32>) -> SignalTarget {
        SignalTarget {
            pid,
            #[cfg(target_os = "linux")]
            pidfd: pid.and_then(open_pidfd),
            reaped: AtomicBool::new(false),
        }
    }

    pub fn send(&self, signal: Signal) {
        if self.reaped.load(Ordering::Acquire) {
            return;
        }
        #[cfg(target_os = "linux")]
        if let Some(fd) = &self.pidfd {
            // Gone already (ESRCH), or sent; a kernel or filter that refuses the call falls
            // back to the pid, which is still the child's (it is not reaped).
            if send_through_pidfd(fd, signal) {
                return;
            }
        }
        send_to_pid(self.pid, signal);
    }

    /// The child's pid, which names it until it is reaped.
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    pub fn is_reaped(&self) -> bool {
        self.reaped.load(Ordering::Acquire)
    }

    /// The child is reaped: its pid may name another process from now on.
    pub fn set_reaped(&self, reaped: bool) {
        self.reaped.store(reaped, Ordering::Release);
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn the_parent_is_read_after_the_name_whatever_it_holds() {
        assert_eq!(parent_in("12 (node) S 7 12 12 0 -1"), Some(7));
        assert_eq!(parent_in("12 (a) b (c) R 9 1"), Some(9));
        assert_eq!(parent_in("12 (x) R"), None);
        assert_eq!(parent_in(""), None);
    }

    #[test]
    fn descendants_are_found_through_every_generation() {
        let mut shell = std::process::Command::new("/bin/sh")
            .args(["-c", "(sleep 30 & wait) & sleep 30 & wait"])
            .spawn()
            .expect("sh starts");
        // Three: the subshell, its sleep, and the shell's own sleep.
        let mut found = Descendants::default();
        for _ in 0..100 {
            found = Descendants::of(shell.id());
            if found.members.len() >= 3 {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let count = found.members.len();
        found.send(Signal::Kill);
        let _ = shell.kill();
        let _ = shell.wait();
        assert_eq!(count, 3);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("a runtime");
        let gone = runtime
            .block_on(async { tokio::time::timeout(Duration::from_secs(5), found.exited()).await });
        assert!(gone.is_ok(), "all three are seen to exit");
    }

    /// Signals go through the pidfd, and none is sent once the pid is known to be released.
    #[cfg(target_os = "linux")]
    #[test]
    fn signals_reach_the_child_and_stop_once_it_is_reaped() {
        use std::os::unix::process::ExitStatusExt;
        let mut sleeper = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("sleep starts");
        let target = SignalTarget::new(Some(sleeper.id()));
        target.set_reaped(true);
        target.send(Signal::Kill);
        std::thread::sleep(Duration::from_millis(100));
        assert!(
            sleeper.try_wait().expect("try_wait").is_none(),
            "no signal once reaped"
        );
        target.set_reaped(false);
        target.send(Signal::Kill);
        let status = sleeper.wait().expect("wait");
        assert_eq!(status.signal(), Some(libc::SIGKILL));
    }
}

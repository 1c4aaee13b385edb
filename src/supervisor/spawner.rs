//! Children are spawned from one thread that lives as long as the process, so that a
//! supervisor whose process dies however it dies (SIGKILL, a crash, `process.exit()` without
//! `close()`) leaves no child behind: on Linux every child asks for SIGTERM when its parent
//! goes (`PR_SET_PDEATHSIG`).
//!
//! The kernel sends that signal when the *thread* that forked the child ends, not the process.
//! A tokio worker or blocking-pool thread can end while the process goes on (an idle blocking
//! thread ends after 10 s), which would signal a healthy child; this thread never ends.
//!
//! SIGTERM, not SIGKILL: it is the process contract's stop signal, so a service drains and
//! exits 0, and a wrapper (`npx`, a shell script) can pass it on to the service it started.

use std::io;
use std::sync::mpsc;
use std::sync::OnceLock;
use tokio::process::{Child, Command};
use tokio::runtime::Handle;
use tokio::sync::oneshot;

struct Job {
    command: Command,
    /// The runtime the child is reaped on.
    runtime: Handle,
    reply: oneshot::Sender<io::Result<Child>>,
}

/// The spawning thread's queue, started on first use; `None` if that thread could not start.
fn queue() -> Option<&'static mpsc::Sender<Job>> {
    static QUEUE: OnceLock<Option<mpsc::Sender<Job>>> = OnceLock::new();
    QUEUE
        .get_or_init(|| {
            let (sender, jobs) = mpsc::channel::<Job>();
            std::thread::Builder::new()
                .name("kindgi-spawner".into())
                .spawn(move || {
                    for mut job in jobs {
                        let _runtime = job.runtime.enter();
                        let _ = job.reply.send(job.command.spawn());
                    }
                })
                .ok()
                .map(|_| sender)
        })
        .as_ref()
}

/// Spawns `command` from the spawning thread, asking (on Linux) for SIGTERM when this process
/// ends. Must be called inside a tokio runtime, which reaps the child.
pub async fn spawn(mut command: Command) -> io::Result<Child> {
    die_with_this_process(&mut command);
    let gone = || io::Error::other("the thread that starts pack services is not running");
    let (reply, answer) = oneshot::channel();
    let job = Job {
        command,
        runtime: Handle::current(),
        reply,
    };
    queue().ok_or_else(gone)?.send(job).map_err(|_| gone())?;
    answer.await.map_err(|_| gone())?
}

#[cfg(target_os = "linux")]
fn die_with_this_process(command: &mut Command) {
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: the closure runs in the forked child before exec, where only async-signal-safe
    // calls are allowed: prctl(2) and getppid(2) are, and it allocates nothing.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM as libc::c_ulong) != 0 {
                return Err(io::Error::last_os_error());
            }
            // The parent may have died between fork and prctl: then no signal will come.
            // (No allocation here: another thread may have held the allocator's lock at fork.)
            if libc::getppid() != parent {
                return Err(io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn die_with_this_process(_command: &mut Command) {
    // No such request outside Linux: `close()` is what ends the children there.
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::time::Duration;

    fn state(pid: u32) -> Option<char> {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        let line = status.lines().find(|l| l.starts_with("State:"))?;
        line.split_whitespace().nth(1)?.chars().next()
    }

    #[test]
    fn a_child_outlives_the_thread_that_asked_for_it() {
        // The thread asks on a runtime of its own and ends; had it forked the child itself,
        // its end would have sent the child SIGTERM.
        let pid = std::thread::spawn(|| {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime");
            runtime.block_on(async {
                let mut command = Command::new("sleep");
                command.arg("30");
                spawn(command).await.expect("sleep starts").id()
            })
        })
        .join()
        .expect("the asking thread ends")
        .expect("the child has a pid");
        std::thread::sleep(Duration::from_millis(300));
        let alive = matches!(state(pid), Some(s) if s != 'Z');
        // SAFETY: kill(2) only sends a signal.
        unsafe {
            libc::kill(pid as libc::pid_t, libc::SIGKILL);
        }
        assert!(
            alive,
            "the child is still running after its asker's thread ended"
        );
    }
}

//! SIGTERM heard on a thread of Rust's own, and the process ended from there.
//!
//! Node runs a process's signal listeners on the JS thread, which pack code can hold for good.
//! Here the signal's handler only writes a byte to a pipe (what a handler may safely do) and a
//! thread that waits on the pipe acts. The handler is chained after whatever handler was there
//! before (Node's, once JavaScript listens for SIGTERM), so JavaScript's listeners still run
//! when its thread is free; installed after Node's, it is not replaced when pack code adds a
//! listener of its own.

use crate::service::termination::ProcessEnd;
use std::sync::{Arc, Mutex, OnceLock};

type Action = Arc<dyn Fn() + Send + Sync>;

/// What the next SIGTERM runs; replaced by each [`on_sigterm`].
static ACTION: Mutex<Option<Action>> = Mutex::new(None);

/// Whether the handler and its thread are in place (set once per process).
static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();

/// The waiting thread's stack: it writes a record and hands the rest to the runtime.
const THREAD_STACK: usize = 256 * 1024;

/// Runs `action` on a thread of its own each time the process gets SIGTERM, from now on.
pub fn on_sigterm(action: impl Fn() + Send + Sync + 'static) -> Result<(), String> {
    if let Ok(mut slot) = ACTION.lock() {
        *slot = Some(Arc::new(action));
    }
    INSTALLED.get_or_init(install).clone()
}

fn run_action() {
    let action = ACTION.lock().ok().and_then(|slot| slot.clone());
    if let Some(action) = action {
        action();
    }
}

#[cfg(unix)]
fn install() -> Result<(), String> {
    use std::io::{ErrorKind, Read, Write};
    use std::os::unix::net::UnixStream;

    let (mut reader, writer) =
        UnixStream::pair().map_err(|e| format!("Cannot make SIGTERM's pipe: {e}"))?;
    // A full pipe already holds a wake-up: the handler must never block.
    writer
        .set_nonblocking(true)
        .map_err(|e| format!("Cannot make SIGTERM's pipe: {e}"))?;
    std::thread::Builder::new()
        .name("kindgi-sigterm".into())
        .stack_size(THREAD_STACK)
        .spawn(move || {
            let mut byte = [0u8; 1];
            loop {
                match reader.read(&mut byte) {
                    Ok(0) => return,
                    Ok(_) => run_action(),
                    Err(e) if e.kind() == ErrorKind::Interrupted => {}
                    Err(_) => return,
                }
            }
        })
        .map_err(|e| format!("Cannot start SIGTERM's thread: {e}"))?;
    // SAFETY: the action only writes to a non-blocking socket (write(2), async-signal-safe),
    // allocates nothing and takes no lock; the registry keeps errno and chains the handler
    // that was there before.
    unsafe {
        signal_hook_registry::register(libc::SIGTERM, move || {
            let _ = (&writer).write(&[1]);
        })
    }
    .map(|_| ())
    .map_err(|e| format!("Cannot listen for SIGTERM: {e}"))
}

#[cfg(not(unix))]
fn install() -> Result<(), String> {
    // No SIGTERM to hear: Windows ends a process without one.
    Ok(())
}

/// The process's own ends.
pub struct ThisProcess;

impl ProcessEnd for ThisProcess {
    #[cfg(unix)]
    fn as_signal(&self) {
        // SAFETY: plain libc calls with constant arguments.
        unsafe {
            // PID 1 (a container's node) has no default action for SIGTERM: it exits as a
            // SIGTERM death reports (128 + 15).
            if libc::getpid() == 1 {
                libc::_exit(143);
            }
            libc::signal(libc::SIGTERM, libc::SIG_DFL);
            libc::kill(libc::getpid(), libc::SIGTERM);
        }
    }

    #[cfg(not(unix))]
    fn as_signal(&self) {
        std::process::exit(1);
    }

    fn exit(&self, code: i32) {
        // `_exit`, not `exit`: the JS thread may be running, and exit handlers (Node's among
        // them) must not run under it from here. Records are flushed by then.
        #[cfg(unix)]
        // SAFETY: ends the process; nothing runs after it.
        unsafe {
            libc::_exit(code)
        }
        #[cfg(not(unix))]
        std::process::exit(code)
    }
}

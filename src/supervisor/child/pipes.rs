//! A child's stdout and stderr, read line by line for its whole life: passed on at once, or,
//! for a held child (a spare), kept until its release; left unread while JavaScript is behind.

use crate::supervisor::backlog::Backlog;
use crate::supervisor::line_splitter::LineSplitter;
use crate::supervisor::lines::service_event;
use serde_json::Value;
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::sync::Notify;

/// Bytes of lines a held child may write before its pipes are left unread until its release
/// (the child then waits, as it would for a slow reader).
const HELD_BYTES: usize = 1024 * 1024;

/// Where a child's lines go: on at once, or, for a held child, kept until it is released
/// (a spare that is never released says nothing; one that is says what it wrote meanwhile,
/// in order, as a child just spawned would).
pub(super) struct Lines {
    out: Box<dyn Fn(String) + Send + Sync>,
    err: Box<dyn Fn(String) + Send + Sync>,
    /// `None` for a child that was never held.
    gate: Option<Mutex<Gate>>,
    /// Wakes readers waiting for room once the gate opens or closes.
    room: Notify,
}

enum Gate {
    Holding {
        lines: Vec<(bool, String)>,
        bytes: usize,
        /// It wrote `listening` while held: it does not know the hold.
        listened: bool,
    },
    Open,
    /// A spare let go: its lines go nowhere.
    Closed,
}

impl Lines {
    /// Lines to `out` (stdout) and `err` (stderr); a `held` child's are kept until [`Lines::open`].
    pub(super) fn new(
        out: Box<dyn Fn(String) + Send + Sync>,
        err: Box<dyn Fn(String) + Send + Sync>,
        held: bool,
    ) -> Lines {
        Lines {
            out,
            err,
            gate: held.then(|| {
                Mutex::new(Gate::Holding {
                    lines: Vec::new(),
                    bytes: 0,
                    listened: false,
                })
            }),
            room: Notify::new(),
        }
    }

    fn line(&self, stderr: bool, line: String) {
        if let Some(gate) = &self.gate {
            let Ok(mut gate) = gate.lock() else {
                return;
            };
            match &mut *gate {
                Gate::Holding {
                    lines,
                    bytes,
                    listened,
                } => {
                    *listened |= stderr && is_listening(&line);
                    *bytes += line.len();
                    lines.push((stderr, line));
                    return;
                }
                Gate::Closed => return,
                Gate::Open => {}
            }
        }
        self.dispatch(stderr, line);
    }

    fn dispatch(&self, stderr: bool, line: String) {
        if stderr {
            (self.err)(line);
        } else {
            (self.out)(line);
        }
    }

    /// Resolves while a held child's kept lines are under [`HELD_BYTES`].
    async fn room(&self) {
        let Some(gate) = &self.gate else {
            return;
        };
        loop {
            let notified = self.room.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let full = gate
                .lock()
                .map(|g| matches!(&*g, Gate::Holding { bytes, .. } if *bytes >= HELD_BYTES))
                .unwrap_or(false);
            if !full {
                return;
            }
            notified.await;
        }
    }

    /// Passes the kept lines on (under the lock, so a reader's next line comes after them),
    /// then every line as it comes.
    pub(super) fn open(&self) {
        if let Some(gate) = &self.gate {
            if let Ok(mut gate) = gate.lock() {
                if let Gate::Holding { lines, .. } = std::mem::replace(&mut *gate, Gate::Open) {
                    for (stderr, line) in lines {
                        self.dispatch(stderr, line);
                    }
                }
            }
        }
        self.room.notify_waiters();
    }

    pub(super) fn close(&self) {
        if let Some(gate) = &self.gate {
            if let Ok(mut gate) = gate.lock() {
                *gate = Gate::Closed;
            }
        }
        self.room.notify_waiters();
    }

    pub(super) fn listened_while_held(&self) -> bool {
        self.gate.as_ref().is_some_and(|gate| {
            gate.lock()
                .is_ok_and(|g| matches!(&*g, Gate::Holding { listened: true, .. }))
        })
    }
}

fn is_listening(line: &str) -> bool {
    service_event(line)
        .is_some_and(|event| event.get("kind").and_then(Value::as_str) == Some("listening"))
}

/// Reads `stream` to its end, line by line as Node's `readline` splits and decodes it (see
/// [`LineSplitter`]). While JavaScript has [`BACKLOG_LIMIT`](crate::supervisor::backlog::BACKLOG_LIMIT) lines,
/// or [`BACKLOG_BYTES`](crate::supervisor::backlog::BACKLOG_BYTES) of them, still to take,
/// the pipe is left unread, so a child writing faster waits, as it would for TypeScript's
/// `readline`; so it is while a held child has [`HELD_BYTES`] of lines kept.
pub(super) async fn read_lines(
    mut stream: impl AsyncRead + Unpin,
    backlog: Arc<Backlog>,
    lines: Arc<Lines>,
    stderr: bool,
) {
    let mut splitter = LineSplitter::default();
    let mut buffer = [0u8; 8192];
    let mut on_line = |line| lines.line(stderr, line);
    loop {
        backlog.room().await;
        lines.room().await;
        let Ok(read @ 1..) = stream.read(&mut buffer).await else {
            break;
        };
        splitter.push(&buffer[..read], Instant::now(), &mut on_line);
    }
    splitter.finish(&mut on_line);
}

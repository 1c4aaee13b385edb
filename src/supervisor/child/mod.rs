//! One pack service child process: spawned with exactly the environment it is given, its
//! stdout and stderr read line by line for its whole life, booted once it writes `listening`,
//! and retired with SIGTERM, then SIGKILL after a grace.

use crate::js::js_string;
#[cfg(unix)]
use crate::js::signal_name;
use crate::js::spawn_failure;
use crate::supervisor::backlog::Backlog;
use crate::supervisor::lines::service_event;
use crate::supervisor::signals::{Descendants, Signal, SignalTarget};
use crate::supervisor::spawner;
use pipes::{read_lines, Lines};
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::future::Future;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::process::{ChildStdin, Command};
use tokio::sync::{oneshot, watch};

mod pipes;
#[cfg(all(test, unix))]
mod tests;

/// Why a start got no child: the supervisor is closing.
pub const CLOSING: &str = "The pack service is closing";

/// How long a child's exit waits for the rest of its output (its pipes close as it exits,
/// unless a process it started still holds them).
const LINES_AFTER_EXIT: Duration = Duration::from_millis(500);

/// What to run: a program and its arguments, its whole environment, and where.
#[derive(Debug, Clone, Default)]
pub struct ChildSpec {
    pub program: String,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub cwd: Option<PathBuf>,
}

impl ChildSpec {
    /// Whether `other` starts the same process: the same program, arguments and folder, and
    /// the same environment in any order.
    pub fn launches_alike(&self, other: &ChildSpec) -> bool {
        let sorted = |env: &[(String, String)]| {
            let mut env = env.to_vec();
            env.sort();
            env
        };
        self.program == other.program
            && self.args == other.args
            && self.cwd == other.cwd
            && sorted(&self.env) == sorted(&other.env)
    }
}

/// A line the child wrote, as the supervisor passes it on.
#[derive(Debug, Clone, PartialEq)]
pub enum ChildLine {
    /// Pack output on stdout, or a stderr line that is not one of the service's events.
    Output { line: String, stderr: bool },
    /// One of the service's own events other than the boot's (a call, `draining`, a record):
    /// its line, which JavaScript reads into the event (`serviceEvent`).
    Event { line: String },
}

pub type LineSink = Arc<dyn Fn(ChildLine) + Send + Sync>;

/// How a child ended: its exit code, or the signal that killed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChildExit {
    pub code: Option<i32>,
    pub signal: Option<String>,
}

/// A child that listens.
#[derive(Debug)]
pub struct Child {
    pub port: u16,
    process: Arc<SignalTarget>,
    exit: watch::Receiver<Option<ChildExit>>,
    /// True once the child is reaped, which comes before its exit is reported.
    reaped: watch::Receiver<bool>,
    /// Between its `js-stalled` and `js-resumed` records: pack code holds its JS thread.
    stalled: Arc<AtomicBool>,
}

/// Boot progress the stderr reader reports: the port once it listens, the problems a
/// `boot-failed` or `config-invalid` line lists.
#[derive(Default)]
struct Boot {
    listening: Option<oneshot::Sender<u16>>,
    problems: Vec<String>,
}

impl Child {
    /// Resolves with how the child ended (at once if it already has).
    pub async fn exited(&self) -> ChildExit {
        let mut exit = self.exit.clone();
        loop {
            if let Some(ended) = exit.borrow_and_update().clone() {
                return ended;
            }
            if exit.changed().await.is_err() {
                return ChildExit {
                    code: None,
                    signal: None,
                };
            }
        }
    }

    pub fn has_exited(&self) -> bool {
        self.exit.borrow().is_some()
    }

    /// Whether the child says its pack code holds its JS thread (`js-stalled`, not yet
    /// `js-resumed`).
    pub fn is_stalled(&self) -> bool {
        self.stalled.load(Ordering::Acquire)
    }

    /// SIGTERM (the service drains its calls), then SIGKILL once `grace` has passed; resolves
    /// once the child is gone. What it leaves running (a wrapper's service that was not passed
    /// the SIGTERM) is retired the same way in what is left of the grace, and waited for.
    pub async fn retire(&self, grace: Duration) -> ChildExit {
        if self.has_exited() {
            return self.exited().await;
        }
        let deadline = tokio::time::Instant::now() + grace;
        let mut descendants = self.descendants().await;
        self.process.send(Signal::Term);
        // Reaped, not reported: the report waits for the pipes, which a process the child
        // left behind may hold until it is retired in its turn.
        match tokio::time::timeout_at(deadline, self.reaped()).await {
            Ok(()) => {
                let left = deadline.saturating_duration_since(tokio::time::Instant::now());
                descendants.retire(left).await;
                self.exited().await
            }
            Err(_) => {
                self.process.send(Signal::Kill);
                descendants.kill().await;
                self.exited().await
            }
        }
    }

    async fn reaped(&self) {
        // An error means the waiting task is gone: nothing more will change.
        let _ = self.reaped.clone().wait_for(|reaped| *reaped).await;
    }

    /// SIGKILL, at once, to the child and to what it started.
    pub async fn kill(&self) {
        if !self.has_exited() {
            let mut descendants = self.descendants().await;
            self.process.send(Signal::Kill);
            descendants.kill().await;
        }
    }

    /// The processes under the child, found before it is signalled (once it is gone they
    /// belong to another parent). None once it is reaped: its pid may name another process.
    async fn descendants(&self) -> Descendants {
        let Some(pid) = self.process.pid() else {
            return Descendants::default();
        };
        let found = tokio::task::spawn_blocking(move || Descendants::of(pid))
            .await
            .unwrap_or_default();
        if self.process.is_reaped() {
            return Descendants::default();
        }
        found
    }
}

/// Set (to `1`) in a spare's environment: this package's pack service then loads what it can
/// and waits for a line on stdin before it reads its index and boots (`lib/pack-service-main.js`).
pub const HOLD_VAR: &str = "KINDGI_PACK_SERVICE_HOLD";

/// A child spawned that does not listen yet: booting, or held (a spare) until
/// [`Spawned::release`]. [`Spawned::listening`] waits for its `listening` line.
pub struct Spawned {
    child: Child,
    boot: Arc<Mutex<Boot>>,
    listened: oneshot::Receiver<u16>,
    lines: Arc<Lines>,
    /// A held child's stdin, where its release is written.
    stdin: Option<ChildStdin>,
}

/// Spawns the child and waits until it listens: `Err` lists why it never will (it exited
/// first, failed to spawn, or took longer than `boot_timeout`, after which it is killed).
/// When `cancel` resolves first (the supervisor is closing) the child is killed, and the
/// answer is `Err` once it is gone.
pub async fn boot(
    spec: &ChildSpec,
    boot_timeout: Duration,
    lines: LineSink,
    backlog: Arc<Backlog>,
    cancel: impl Future<Output = ()>,
) -> Result<Child, Vec<String>> {
    spawn(spec, false, lines, backlog)
        .await?
        .listening(boot_timeout, cancel)
        .await
}

/// Spawns the child, held (with [`HOLD_VAR`] and a piped stdin) when `hold` is set; `Err` says
/// why it could not start.
pub async fn spawn(
    spec: &ChildSpec,
    hold: bool,
    lines: LineSink,
    backlog: Arc<Backlog>,
) -> Result<Spawned, Vec<String>> {
    let mut command = Command::new(&spec.program);
    command
        .args(&spec.args)
        .env_clear()
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(if hold { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(false);
    if hold {
        command.env(HOLD_VAR, "1");
    }
    if let Some(cwd) = &spec.cwd {
        command.current_dir(cwd);
    }
    let mut process = spawner::spawn(command)
        .await
        .map_err(|e| vec![spawn_failure(&spec.program, &e)])?;
    let target = Arc::new(SignalTarget::new(process.id()));
    let (listening, listened) = oneshot::channel();
    let boot = Arc::new(Mutex::new(Boot {
        listening: Some(listening),
        problems: Vec::new(),
    }));
    let out_sink = Arc::clone(&lines);
    let err_boot = Arc::clone(&boot);
    let stalled = Arc::new(AtomicBool::new(false));
    let err_stalled = Arc::clone(&stalled);
    let held = Mutex::new(HeldThreads::default());
    let routed = Arc::new(Lines::new(
        Box::new(move |line| {
            out_sink(ChildLine::Output {
                line,
                stderr: false,
            })
        }),
        Box::new(move |line| stderr_line(line, &err_boot, &held, &err_stalled, &lines)),
        hold,
    ));
    let readers = [
        process.stdout.take().map(|out| {
            tokio::spawn(read_lines(
                out,
                Arc::clone(&backlog),
                Arc::clone(&routed),
                false,
            ))
        }),
        process.stderr.take().map(|err| {
            tokio::spawn(read_lines(
                err,
                Arc::clone(&backlog),
                Arc::clone(&routed),
                true,
            ))
        }),
    ];
    let stdin = process.stdin.take();
    let (exit_tx, exit) = watch::channel(None);
    let (reaped_tx, reaped_rx) = watch::channel(false);
    let reaped = Arc::clone(&target);
    tokio::spawn(async move {
        let status = process.wait().await;
        reaped.set_reaped(true);
        let _ = reaped_tx.send(true);
        // The last lines before the exit are read before it is reported, but a process the
        // child left behind holding its pipes (a wrapper script's server) does not hold the
        // report back: the readers go on without it.
        let _ = tokio::time::timeout(LINES_AFTER_EXIT, async {
            for reader in readers.into_iter().flatten() {
                let _ = reader.await;
            }
        })
        .await;
        let _ = exit_tx.send(Some(match status {
            Ok(status) => exit_of(status),
            Err(_) => ChildExit {
                code: None,
                signal: None,
            },
        }));
    });
    Ok(Spawned {
        child: Child {
            port: 0,
            process: target,
            exit,
            reaped: reaped_rx,
            stalled,
        },
        boot,
        listened,
        lines: routed,
        stdin,
    })
}

impl Spawned {
    /// Releases a held child: the line it waits for on stdin, then its lines so far passed
    /// on. False when it cannot be (never held, released already, or gone).
    pub async fn release(&mut self) -> bool {
        let Some(mut stdin) = self.stdin.take() else {
            return false;
        };
        if self.child.process.is_reaped() || stdin.write_all(b"\n").await.is_err() {
            return false;
        }
        // Closed: the service reads one line and no more.
        drop(stdin);
        self.lines.open();
        true
    }

    /// Whether a held child waits as held: one that wrote `listening` meanwhile does not know
    /// the hold (it serves the index as it was when it was spawned).
    pub fn heeds_hold(&self) -> bool {
        !self.lines.listened_while_held()
    }

    /// Resolves once the child is reaped.
    pub fn gone(&self) -> impl Future<Output = ()> + Send + 'static {
        let mut reaped = self.child.reaped.clone();
        async move {
            let _ = reaped.wait_for(|reaped| *reaped).await;
        }
    }

    /// SIGKILL to the child and what it started; resolves once it is gone. Its lines go
    /// nowhere.
    pub async fn kill(self) {
        self.lines.close();
        self.child.kill().await;
        self.child.exited().await;
    }

    /// Waits until the child listens (see [`boot`]).
    pub async fn listening(
        self,
        boot_timeout: Duration,
        cancel: impl Future<Output = ()>,
    ) -> Result<Child, Vec<String>> {
        let Spawned {
            child,
            boot,
            listened,
            ..
        } = self;
        tokio::select! {
            port = listened => match port {
                Ok(port) => Ok(Child { port, ..child }),
                // Nothing can send any more: the child is gone without listening.
                Err(_) => Err(exited_before_listening(&child, &boot).await),
            },
            _ = child.exited() => Err(exited_before_listening(&child, &boot).await),
            () = tokio::time::sleep(boot_timeout) => {
                child.kill().await;
                Err(vec![format!(
                    "The pack service did not listen within {} ms",
                    boot_timeout.as_millis()
                )])
            }
            () = cancel => {
                child.kill().await;
                child.exited().await;
                Err(vec![CLOSING.to_owned()])
            }
        }
    }
}

async fn exited_before_listening(child: &Child, boot: &Mutex<Boot>) -> Vec<String> {
    let ended = child.exited().await;
    let problems = boot.lock().map(|b| b.problems.clone()).unwrap_or_default();
    if !problems.is_empty() {
        return problems;
    }
    let how = ended
        .signal
        .or_else(|| ended.code.map(|c| c.to_string()))
        .unwrap_or_else(|| "null".into());
    vec![format!("The pack service exited ({how}) before listening")]
}

/// The child's held JS threads, from its `js-stalled` and `js-resumed` records. With workers
/// each record names its `thread` and how many `threads` take calls: the child is stalled only
/// while every one is held, as its own `/readyz` says.
#[derive(Default)]
struct HeldThreads {
    held: HashSet<u64>,
}

impl HeldThreads {
    /// Notes a stall record; whether the child is stalled now.
    fn note(&mut self, stalled: bool, event: &Map<String, Value>) -> bool {
        let thread = event.get("thread").and_then(Value::as_u64);
        let threads = event.get("threads").and_then(Value::as_u64);
        let (Some(thread), Some(threads)) = (thread, threads) else {
            self.held.clear();
            return stalled;
        };
        if stalled {
            self.held.insert(thread);
        } else {
            self.held.remove(&thread);
        }
        self.held.len() as u64 >= threads
    }
}

/// One stderr line: the boot's own events are kept, other events and output passed on; a
/// stall's start and end are noted as they pass.
fn stderr_line(
    line: String,
    boot: &Mutex<Boot>,
    held: &Mutex<HeldThreads>,
    stalled: &AtomicBool,
    lines: &LineSink,
) {
    let Some(event) = service_event(&line) else {
        lines(ChildLine::Output { line, stderr: true });
        return;
    };
    let kind = event
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let port = event
        .get("port")
        .and_then(Value::as_f64)
        .filter(|p| p.fract() == 0.0 && (0.0..=65535.0).contains(p));
    match (kind, port) {
        ("listening", Some(port)) => {
            if let Some(listening) = boot.lock().ok().and_then(|mut b| b.listening.take()) {
                let _ = listening.send(port as u16);
            }
        }
        ("boot-failed" | "config-invalid", _) => {
            let problems = event
                .get("problems")
                .and_then(Value::as_array)
                .map(|list| list.iter().map(|p| js_string(Some(p))).collect::<Vec<_>>())
                .unwrap_or_default();
            if let Ok(mut boot) = boot.lock() {
                boot.problems.extend(problems);
            }
        }
        (kind, _) => {
            if let ("js-stalled" | "js-resumed", Ok(mut held)) = (kind, held.lock()) {
                let now = held.note(kind == "js-stalled", &event);
                stalled.store(now, Ordering::Release);
            }
            lines(ChildLine::Event { line })
        }
    }
}

#[cfg(unix)]
fn exit_of(status: std::process::ExitStatus) -> ChildExit {
    use std::os::unix::process::ExitStatusExt;
    ChildExit {
        code: status.code(),
        signal: status.signal().map(signal_name),
    }
}

#[cfg(not(unix))]
fn exit_of(status: std::process::ExitStatus) -> ChildExit {
    ChildExit {
        code: status.code(),
        signal: None,
    }
}

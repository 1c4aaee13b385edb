//! One pack service child process: spawned with exactly the environment it is given, its
//! stdout and stderr read line by line for its whole life, booted once it writes `listening`,
//! and retired with SIGTERM, then SIGKILL after a grace.

use crate::js::{js_string, uv_error};
use crate::supervisor::backlog::Backlog;
use crate::supervisor::lines::service_event;
#[cfg(target_os = "linux")]
use crate::supervisor::signals::{open_pidfd, send_through_pidfd};
use crate::supervisor::signals::{send_to_pid, Descendants, Signal};
use crate::supervisor::spawner;
use serde_json::Value;
use std::future::Future;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{ChildStdin, Command};
use tokio::sync::{oneshot, watch, Notify};

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
}

/// Where the child's signals go. Its exit is reported up to `LINES_AFTER_EXIT` after it is
/// reaped, and by then its pid may belong to another process: a pidfd (Linux) can never reach
/// one, and `reaped` stops signals as soon as the pid is released.
#[derive(Debug)]
struct SignalTarget {
    pid: Option<u32>,
    #[cfg(target_os = "linux")]
    pidfd: Option<std::os::fd::OwnedFd>,
    reaped: AtomicBool,
}

impl SignalTarget {
    /// Opened before the child can be reaped (nothing waits for it yet), so the pid is still
    /// the child's own, running or a zombie.
    fn new(pid: Option<u32>) -> SignalTarget {
        SignalTarget {
            pid,
            #[cfg(target_os = "linux")]
            pidfd: pid.and_then(open_pidfd),
            reaped: AtomicBool::new(false),
        }
    }

    fn send(&self, signal: Signal) {
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
        let Some(pid) = self.process.pid else {
            return Descendants::default();
        };
        let found = tokio::task::spawn_blocking(move || Descendants::of(pid))
            .await
            .unwrap_or_default();
        if self.process.reaped.load(Ordering::Acquire) {
            return Descendants::default();
        }
        found
    }
}

/// Set (to `1`) in a spare's environment: this package's pack service then loads what it can
/// and waits for a line on stdin before it reads its index and boots (`lib/pack-service-main.js`).
pub const HOLD_VAR: &str = "KINDGI_PACK_SERVICE_HOLD";

/// Bytes of lines a held child may write before its pipes are left unread until its release
/// (the child then waits, as it would for a slow reader).
const HELD_BYTES: usize = 1024 * 1024;

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

/// Where a child's lines go: on at once, or, for a held child, kept until it is released
/// (a spare that is never released says nothing; one that is says what it wrote meanwhile,
/// in order, as a child just spawned would).
struct Lines {
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
    fn open(&self) {
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

    fn close(&self) {
        if let Some(gate) = &self.gate {
            if let Ok(mut gate) = gate.lock() {
                *gate = Gate::Closed;
            }
        }
        self.room.notify_waiters();
    }

    fn listened_while_held(&self) -> bool {
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
    let routed = Arc::new(Lines {
        out: Box::new(move |line| {
            out_sink(ChildLine::Output {
                line,
                stderr: false,
            })
        }),
        err: Box::new(move |line| stderr_line(line, &err_boot, &lines)),
        gate: hold.then(|| {
            Mutex::new(Gate::Holding {
                lines: Vec::new(),
                bytes: 0,
                listened: false,
            })
        }),
        room: Notify::new(),
    });
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
        reaped.reaped.store(true, Ordering::Release);
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
        if self.child.process.reaped.load(Ordering::Acquire)
            || stdin.write_all(b"\n").await.is_err()
        {
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

/// One stderr line: the boot's own events are kept, other events and output passed on.
fn stderr_line(line: String, boot: &Mutex<Boot>, lines: &LineSink) {
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
        _ => lines(ChildLine::Event { line }),
    }
}

/// Reads `stream` to its end, line by line as Node's `readline` splits and decodes it: a line
/// ends at `\n`, `\r\n` or a lone `\r`, bytes that are not UTF-8 become U+FFFD, and the last
/// line needs no ending. (Stopping at the first bad byte would leave the child's pipe unread:
/// a `listening` line after it never seen, and a child that blocks once the pipe fills.)
/// While JavaScript has [`BACKLOG_LIMIT`](crate::supervisor::backlog::BACKLOG_LIMIT) lines,
/// or [`BACKLOG_BYTES`](crate::supervisor::backlog::BACKLOG_BYTES) of them, still to take,
/// the pipe is left unread, so a child writing faster waits, as it would for TypeScript's
/// `readline`; so it is while a held child has [`HELD_BYTES`] of lines kept.
async fn read_lines(
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

/// The longest line passed on, in bytes; the rest of a longer one is dropped. Every line crosses
/// to JavaScript as a string, whose length V8 caps (about 512 Mi characters); this keeps a line,
/// and a record with its line beside it, well under that.
const MAX_LINE: usize = 64 * 1024 * 1024;

/// How long after a read that ends with `\r` a `\n` opening the next read still belongs to
/// it: readline's `crlfDelay`, whose default is 100 ms. Later, the `\n` ends an empty line.
const CRLF_DELAY: Duration = Duration::from_millis(100);

/// Bytes in, lines out (see [`read_lines`]).
#[derive(Default)]
struct LineSplitter {
    line: Vec<u8>,
    /// When a read ended with a line's `\r`: a `\n` opening the next read within
    /// [`CRLF_DELAY`] ends nothing more.
    cr_at: Option<Instant>,
}

impl LineSplitter {
    fn push(&mut self, mut bytes: &[u8], now: Instant, on_line: &mut impl FnMut(String)) {
        if bytes.is_empty() {
            return;
        }
        let just_after_cr = self
            .cr_at
            .take()
            .is_some_and(|at| now.saturating_duration_since(at) <= CRLF_DELAY);
        if just_after_cr && bytes.first() == Some(&b'\n') {
            bytes = &bytes[1..];
        }
        while let Some(end) = bytes.iter().position(|&b| b == b'\n' || b == b'\r') {
            self.keep(&bytes[..end]);
            on_line(String::from_utf8_lossy(&self.line).into_owned());
            self.line.clear();
            let crlf = bytes[end] == b'\r' && bytes.get(end + 1) == Some(&b'\n');
            if bytes[end] == b'\r' && end + 1 == bytes.len() {
                self.cr_at = Some(now);
            }
            bytes = &bytes[end + 1 + usize::from(crlf)..];
        }
        self.keep(bytes);
    }

    /// Adds to the line what fits under [`MAX_LINE`].
    fn keep(&mut self, bytes: &[u8]) {
        let room = MAX_LINE.saturating_sub(self.line.len());
        self.line.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    fn finish(&mut self, on_line: &mut impl FnMut(String)) {
        if !self.line.is_empty() {
            on_line(String::from_utf8_lossy(&self.line).into_owned());
            self.line.clear();
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

/// Why a child could not be started, in the words of Node's `spawn` error, which the
/// TypeScript supervisor reports: `spawn <program> ENOENT`.
fn spawn_failure(program: &str, error: &std::io::Error) -> String {
    match error.raw_os_error().and_then(uv_error) {
        Some((code, _)) => format!("spawn {program} {code}"),
        None => format!("spawn {program}: {error}"),
    }
}

/// Node's name for a signal number (`child.signalCode`).
#[cfg(unix)]
fn signal_name(number: i32) -> String {
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
        target.reaped.store(true, Ordering::Release);
        target.send(Signal::Kill);
        std::thread::sleep(Duration::from_millis(100));
        assert!(
            sleeper.try_wait().expect("try_wait").is_none(),
            "no signal once reaped"
        );
        target.reaped.store(false, Ordering::Release);
        target.send(Signal::Kill);
        let status = sleeper.wait().expect("wait");
        assert_eq!(status.signal(), Some(libc::SIGKILL));
    }

    use std::future::pending;

    fn shell(script: &str) -> ChildSpec {
        ChildSpec {
            program: "/bin/sh".into(),
            args: vec!["-c".into(), script.into()],
            env: vec![("ONLY".into(), "this".into())],
            cwd: None,
        }
    }

    fn collect() -> (LineSink, Arc<Mutex<Vec<ChildLine>>>) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let into = Arc::clone(&seen);
        let sink: LineSink = Arc::new(move |line| {
            into.lock().map(|mut s| s.push(line)).ok();
        });
        (sink, seen)
    }

    /// Boots `script`, which must listen, and the lines it writes.
    async fn listening(script: &str) -> (Child, Arc<Mutex<Vec<ChildLine>>>) {
        let (sink, seen) = collect();
        let child = boot(
            &shell(script),
            Duration::from_secs(10),
            sink,
            Arc::default(),
            pending(),
        )
        .await
        .expect("it listens");
        (child, seen)
    }

    /// The lines seen so far.
    fn lines(seen: &Mutex<Vec<ChildLine>>) -> Vec<ChildLine> {
        seen.lock().map(|s| s.clone()).unwrap_or_default()
    }

    #[tokio::test]
    async fn boots_on_listening_and_retires_with_sigterm() {
        let (child, seen) = listening(
            // The trap is set before `listening`: a SIGTERM may come the moment it is read.
            r#"trap 'exit 0' TERM; echo "env $ONLY ${HOME:-none}"; echo '{"kind":"call","id":"x"}' >&2; echo plain >&2; echo '{"kind":"listening","port":4321}' >&2; while :; do sleep 0.05; done"#,
        )
        .await;
        assert_eq!(child.port, 4321);
        let ended = child.retire(Duration::from_secs(5)).await;
        assert_eq!(
            ended,
            ChildExit {
                code: Some(0),
                signal: None
            }
        );
        let seen = lines(&seen);
        // Exactly the given environment: no HOME from this process.
        assert!(seen.contains(&ChildLine::Output {
            line: "env this none".into(),
            stderr: false
        }));
        assert!(seen.contains(&ChildLine::Output {
            line: "plain".into(),
            stderr: true
        }));
        assert!(seen.iter().any(
            |l| matches!(l, ChildLine::Event { line } if service_event(line)
                .is_some_and(|event| event["kind"] == "call"))
        ));
    }

    #[tokio::test]
    async fn a_child_that_ignores_sigterm_is_killed_after_the_grace() {
        let (child, _) = listening(
            r#"trap '' TERM; echo '{"kind":"listening","port":1}' >&2; while :; do sleep 0.05; done"#,
        )
        .await;
        let ended = child.retire(Duration::from_millis(200)).await;
        assert_eq!(ended.signal.as_deref(), Some("SIGKILL"));
    }

    /// The lines of `chunks`, each read `gap` after the one before.
    fn split_with_gap(chunks: &[&[u8]], gap: Duration) -> Vec<String> {
        let mut lines = Vec::new();
        let mut splitter = LineSplitter::default();
        let mut now = Instant::now();
        for chunk in chunks {
            splitter.push(chunk, now, &mut |line| lines.push(line));
            now += gap;
        }
        splitter.finish(&mut |line| lines.push(line));
        lines
    }

    fn split(chunks: &[&[u8]]) -> Vec<String> {
        split_with_gap(chunks, Duration::ZERO)
    }

    #[test]
    fn lines_split_and_decode_as_readline_does() {
        assert_eq!(
            split(&[b"a\nb\r\nc\rd\n\ne"]),
            ["a", "b", "c", "d", "", "e"]
        );
        // A \r\n split across reads is one ending; \r\r is two.
        assert_eq!(split(&[b"a\r", b"\nb\r", b"\r", b"c"]), ["a", "b", "", "c"]);
        // Unless the \n comes over 100 ms after the \r: then it ends an empty line.
        let late = Duration::from_millis(150);
        assert_eq!(split_with_gap(&[b"a\r", b"\nb"], late), ["a", "", "b"]);
        let soon = Duration::from_millis(100);
        assert_eq!(split_with_gap(&[b"a\r", b"\nb"], soon), ["a", "b"]);
        // Bytes that are not UTF-8 become U+FFFD, and the reading goes on.
        assert_eq!(
            split(&[b"caf\xe9\n\xff\xfeok", b"\n{\"kind\":1}\n"]),
            ["caf\u{fffd}", "\u{fffd}\u{fffd}ok", "{\"kind\":1}"]
        );
        // A character split across reads survives.
        assert_eq!(
            split(&["é".as_bytes()[..1].as_ref(), &"é\n".as_bytes()[1..]]),
            ["é"]
        );
        assert_eq!(split(&[b"", b"x"]), ["x"]);
    }

    #[tokio::test]
    async fn a_child_that_writes_bytes_that_are_not_utf8_still_boots() {
        let (child, seen) = listening(
            r#"trap 'exit 0' TERM; printf 'caf\351\n' >&2; echo '{"kind":"listening","port":4322}' >&2; while :; do sleep 0.05; done"#,
        )
        .await;
        assert_eq!(child.port, 4322);
        child.retire(Duration::from_secs(5)).await;
        assert!(lines(&seen).iter().any(
            |l| matches!(l, ChildLine::Output { line, stderr: true } if line == "caf\u{fffd}")
        ));
    }

    /// Whether `pid` names a process that has not exited (a zombie has).
    #[cfg(target_os = "linux")]
    fn running(pid: i32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/status"))
            .ok()
            .and_then(|s| {
                let state = s.lines().find(|l| l.starts_with("State:"))?;
                state.split_whitespace().nth(1).map(|s| s != "Z")
            })
            .unwrap_or(false)
    }

    /// The pids a script wrote on stdout, one per line, once there are `count` of them.
    #[cfg(target_os = "linux")]
    async fn pids(seen: &Mutex<Vec<ChildLine>>, count: usize) -> Vec<i32> {
        let read = || {
            lines(seen)
                .iter()
                .filter_map(|l| match l {
                    ChildLine::Output {
                        line,
                        stderr: false,
                    } => line.parse().ok(),
                    _ => None,
                })
                .collect::<Vec<i32>>()
        };
        tokio::time::timeout(Duration::from_secs(10), async {
            while read().len() < count {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
        .await
        .expect("the script says its pids");
        read()
    }

    /// Those of `pids` still running; every one of them is SIGKILLed, so a test leaves nothing.
    #[cfg(target_os = "linux")]
    fn still_running(pids: &[i32]) -> Vec<i32> {
        let running = pids.iter().copied().filter(|&p| running(p)).collect();
        for &pid in pids {
            // SAFETY: kill(2) only sends a signal.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
        running
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn a_wrapper_s_service_is_retired_with_it_before_its_exit_is_reported() {
        // A wrapper script: it exits on SIGTERM without passing it on, leaving a process that
        // holds its stdout and stderr and notes its own SIGTERM in a file.
        let noted = std::env::temp_dir().join(format!(
            "kindgi-child-term-{}-{:?}",
            std::process::id(),
            Instant::now()
        ));
        let (child, seen) = listening(&format!(
            r#"trap 'exit 0' TERM; (trap 'echo term > "{}"; exit 0' TERM; while :; do sleep 0.05; done) & echo "$!"; echo '{{"kind":"listening","port":4323}}' >&2; while :; do sleep 0.05; done"#,
            noted.display()
        ))
        .await;
        let left = pids(&seen, 1).await;
        // The exit report waits for the pipes: the process left behind must have been told
        // to go before the report, not 500 ms after it, once the wait for the pipes gave up.
        let reported = {
            let exit = child.exit.clone();
            let noted = noted.clone();
            tokio::spawn(async move {
                let mut exit = exit;
                let _ = exit.wait_for(Option::is_some).await;
                noted.exists()
            })
        };
        let ended = tokio::time::timeout(
            Duration::from_secs(20),
            child.retire(Duration::from_secs(5)),
        )
        .await
        .expect("the retirement ends");
        let noted_at_report = reported.await.expect("the watcher ends");
        let _ = std::fs::remove_file(&noted);
        assert_eq!(
            still_running(&left),
            Vec::<i32>::new(),
            "the process it left is gone"
        );
        assert_eq!(ended.code, Some(0));
        assert!(
            noted_at_report,
            "it had its SIGTERM before the exit was reported"
        );
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn what_a_wrapper_left_that_ignores_sigterm_is_killed_at_the_grace() {
        // The subshell and its sleep both ignore SIGTERM; the wrapper itself ends on it.
        let (child, seen) = listening(
            r#"trap 'exit 0' TERM; (trap '' TERM; sleep 300 & echo "$!"; wait) & echo "$!"; echo '{"kind":"listening","port":4324}' >&2; while :; do sleep 0.05; done"#,
        )
        .await;
        let left = pids(&seen, 2).await;
        let began = Instant::now();
        child.retire(Duration::from_millis(700)).await;
        let took = began.elapsed();
        assert_eq!(still_running(&left), Vec::<i32>::new(), "both were killed");
        assert!(
            took >= Duration::from_millis(600),
            "they were given the grace: {took:?}"
        );
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn a_child_killed_at_its_boot_timeout_takes_what_it_started_along() {
        let (sink, seen) = collect();
        let failed = boot(
            &shell(r#"sleep 300 & echo "$!"; wait"#),
            Duration::from_secs(1),
            sink,
            Arc::default(),
            pending(),
        )
        .await;
        let left = pids(&seen, 1).await;
        assert!(failed.is_err());
        assert_eq!(
            still_running(&left),
            Vec::<i32>::new(),
            "the sleep was killed with the script"
        );
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn a_child_that_exits_while_what_it_started_holds_its_pipes_is_seen_to_exit() {
        // A crash, not a retirement: nobody signals anything, and the exit is still reported.
        let (child, seen) = listening(
            r#"sleep 300 & echo "$!"; echo '{"kind":"listening","port":4325}' >&2; sleep 0.2; exit 3"#,
        )
        .await;
        let left = pids(&seen, 1).await;
        let ended = tokio::time::timeout(Duration::from_secs(10), child.exited()).await;
        still_running(&left);
        assert_eq!(ended.expect("the exit is reported").code, Some(3));
    }

    #[test]
    fn launches_alike_compares_the_environment_in_any_order() {
        let spec = |env: &[(&str, &str)]| ChildSpec {
            env: env
                .iter()
                .map(|(k, v)| ((*k).into(), (*v).into()))
                .collect(),
            ..shell("true")
        };
        assert!(spec(&[("A", "1"), ("B", "2")]).launches_alike(&spec(&[("B", "2"), ("A", "1")])));
        assert!(!spec(&[("A", "1")]).launches_alike(&spec(&[("A", "2")])));
        assert!(!spec(&[("A", "1")]).launches_alike(&spec(&[("A", "1"), ("B", "2")])));
        let other_args = ChildSpec {
            args: vec!["-c".into(), "false".into()],
            ..spec(&[])
        };
        assert!(!spec(&[]).launches_alike(&other_args));
        let other_folder = ChildSpec {
            cwd: Some("/".into()),
            ..spec(&[])
        };
        assert!(!spec(&[]).launches_alike(&other_folder));
    }

    /// A held child that writes past [`HELD_BYTES`] before it reads its release: nothing is
    /// passed on until the release, then every line in order, and it boots.
    #[tokio::test]
    async fn a_held_child_says_nothing_until_its_release_then_everything_in_order() {
        let (sink, seen) = collect();
        let spec = ChildSpec {
            env: vec![("PAD".into(), "x".repeat(500))],
            ..shell(
                r#"trap 'exit 0' TERM; [ "$KINDGI_PACK_SERVICE_HOLD" = 1 ] || exit 9; i=0; while [ $i -lt 3000 ]; do echo "$i $PAD"; i=$((i+1)); done; read line || exit 0; echo '{"kind":"listening","port":4330}' >&2; while :; do sleep 0.05; done"#,
            )
        };
        let mut held = spawn(&spec, true, sink, Arc::default())
            .await
            .expect("it spawns");
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(lines(&seen), Vec::<ChildLine>::new(), "nothing while held");
        assert!(held.heeds_hold());
        assert!(held.release().await);
        assert!(!held.release().await, "released once");
        let child = held
            .listening(Duration::from_secs(20), pending())
            .await
            .expect("it listens once released");
        assert_eq!(child.port, 4330);
        child.retire(Duration::from_secs(5)).await;
        let numbers: Vec<usize> = lines(&seen)
            .iter()
            .filter_map(|l| match l {
                ChildLine::Output { line, .. } => line.split(' ').next()?.parse().ok(),
                ChildLine::Event { .. } => None,
            })
            .collect();
        assert_eq!(numbers, (0..3000).collect::<Vec<_>>());
    }

    #[tokio::test]
    async fn a_held_child_that_listens_does_not_heed_the_hold() {
        let (sink, seen) = collect();
        let spec = shell(
            r#"trap 'exit 0' TERM; echo '{"kind":"listening","port":4331}' >&2; while :; do sleep 0.05; done"#,
        );
        let held = spawn(&spec, true, sink, Arc::default())
            .await
            .expect("it spawns");
        for _ in 0..500 {
            if !held.heeds_hold() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(!held.heeds_hold());
        let gone = held.gone();
        held.kill().await;
        gone.await;
        assert_eq!(
            lines(&seen),
            Vec::<ChildLine>::new(),
            "a killed spare's lines go nowhere"
        );
    }

    #[tokio::test]
    async fn a_held_child_that_is_gone_cannot_be_released() {
        let (sink, _) = collect();
        let mut held = spawn(&shell("exit 0"), true, sink, Arc::default())
            .await
            .expect("it spawns");
        held.gone().await;
        assert!(!held.release().await);
        // Stdin closed before any line (the supervisor let it go): no listening, no hang.
        let (sink, _) = collect();
        let mut waiting = spawn(
            &shell(r#"read line || exit 0; echo '{"kind":"listening","port":4332}' >&2"#),
            true,
            sink,
            Arc::default(),
        )
        .await
        .expect("it spawns");
        drop(waiting.stdin.take());
        let ended = tokio::time::timeout(
            Duration::from_secs(10),
            waiting.listening(Duration::from_secs(10), pending()),
        )
        .await;
        assert_eq!(
            ended.expect("it ends").err(),
            Some(vec![
                "The pack service exited (0) before listening".to_owned()
            ])
        );
    }

    #[tokio::test]
    async fn boot_failures_say_why() {
        let (sink, _) = collect();
        let problems = |spec: ChildSpec, timeout: Duration| {
            let sink = Arc::clone(&sink);
            async move {
                boot(&spec, timeout, sink, Arc::default(), pending())
                    .await
                    .err()
            }
        };
        let ten_s = Duration::from_secs(10);
        assert_eq!(
            problems(shell(r#"echo '{"time":"t","level":"error","subsystem":"pack","message":"m","problems":["Missing module: a.mjs",2],"event":"boot-failed"}' >&2; exit 1"#), ten_s).await,
            Some(vec!["Missing module: a.mjs".into(), "2".into()])
        );
        assert_eq!(
            problems(shell("exit 3"), ten_s).await,
            Some(vec!["The pack service exited (3) before listening".into()])
        );
        assert_eq!(
            problems(shell("sleep 5"), Duration::from_millis(100)).await,
            Some(vec!["The pack service did not listen within 100 ms".into()])
        );
        // A program that cannot start, in the words of Node's spawn.
        let missing = ChildSpec {
            program: "/no/such/program".into(),
            ..ChildSpec::default()
        };
        assert_eq!(
            problems(missing, ten_s).await,
            Some(vec!["spawn /no/such/program ENOENT".into()])
        );
        // Cancelled (the supervisor closing): killed, and gone before the answer.
        let (pid_tx, pid_rx) = oneshot::channel();
        let pid_sink: LineSink = Arc::new({
            let pid_tx = Mutex::new(Some(pid_tx));
            move |line| {
                if let ChildLine::Output { line, .. } = line {
                    if let Some(tx) = pid_tx.lock().ok().and_then(|mut t| t.take()) {
                        let _ = tx.send(line);
                    }
                }
            }
        });
        let cancelled = boot(
            &shell("echo $$; exec sleep 30"),
            Duration::from_secs(60),
            pid_sink,
            Arc::default(),
            async {
                tokio::time::sleep(Duration::from_millis(100)).await;
            },
        )
        .await;
        assert_eq!(cancelled.err(), Some(vec![CLOSING.to_owned()]));
        let pid = pid_rx.await.expect("the child said its pid");
        assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists());
    }
}

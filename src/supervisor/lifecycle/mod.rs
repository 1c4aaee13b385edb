//! Which child serves: `start` boots a new child and switches calls to it once it listens,
//! then retires the previous one; a child that fails to boot leaves the previous one serving;
//! a serving child that exits on its own is restarted, with a growing delay and at most
//! `max_restarts` times within [`RESTART_WINDOW`], so one that boots and then keeps crashing
//! is given up on instead of restarted forever. The owner's own `start` (new code) that boots
//! gives the next crash a fresh count; a restart's boot does not.
//!
//! With `spare`, each boot leaves the next child spawned and held (see [`Spare`]): a start
//! that would launch it alike releases it instead of spawning, which skips the child's own
//! start-up (a new process, its runtime, the pack's modules).

use crate::supervisor::backlog::Backlog;
use crate::supervisor::calls::CallsToChildren;
use crate::supervisor::child::{
    spawn, Child, ChildExit, ChildLine, ChildSpec, LineSink, Spawned, CLOSING,
};
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// Restarts are counted over this window: more than `max_restarts` within it is giving up.
pub const RESTART_WINDOW: Duration = Duration::from_secs(60);

/// How long a child killed by SIGINT or SIGHUP waits before it is a crash: a terminal's
/// Ctrl+C or hangup reaches the owner too, whose `begin_close` is then on its way.
pub const INTERRUPT_GRACE: Duration = Duration::from_millis(100);

/// What a child killed by SIGINT or SIGHUP waits for before it is judged a crash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InterruptWait {
    /// A fixed time: [`INTERRUPT_GRACE`] outside tests.
    Grace(Duration),
    /// The owner's own steps (TypeScript's `nextTurn` seam): the exit is handed over as
    /// [`SupervisorEvent::Interrupted`] and judged when the owner calls
    /// [`Lifecycle::judge_interrupt`], so a test decides what comes first.
    Owner,
}

/// What the supervisor tells its owner.
#[derive(Debug, Clone, PartialEq)]
pub enum SupervisorEvent {
    Started {
        port: u16,
        index_path: String,
    },
    BootFailed {
        problems: Vec<String>,
    },
    Exited(ChildExit),
    Restarting {
        attempt: u32,
    },
    GaveUp {
        attempts: u32,
    },
    /// Not an event for the owner: a child killed by SIGINT or SIGHUP under
    /// [`InterruptWait::Owner`], waiting for [`Lifecycle::judge_interrupt`] with this `id`.
    Interrupted {
        id: u32,
    },
    /// One of the service's own lines (a call, `draining`, a record), which JavaScript reads
    /// into its event.
    Log {
        line: String,
    },
    /// A line of the pack's own output, and whether it came on stderr.
    Output {
        line: String,
        stderr: bool,
    },
}

pub type EventSink = Arc<dyn Fn(SupervisorEvent) + Send + Sync>;

/// How a child is made for an index: the owner's command and environment, read at every start.
pub type Launch = Arc<
    dyn Fn(String) -> Pin<Box<dyn Future<Output = Result<ChildSpec, String>> + Send>> + Send + Sync,
>;

#[derive(Debug, Clone)]
pub struct LifecycleOptions {
    pub boot_timeout: Duration,
    pub stop_grace: Duration,
    pub max_restarts: u32,
    pub restart_delay: Duration,
    pub interrupt_wait: InterruptWait,
    /// Where the child's lines wait for JavaScript (the binding's event sink enters each one).
    pub backlog: Arc<Backlog>,
    /// Keep a spare child held for the next start.
    pub spare: bool,
}

#[derive(Default)]
struct State {
    serving: Option<(Arc<Child>, String)>,
    stopped: bool,
    /// How many times `stop` ran: a start that saw fewer when it began never serves.
    stops: u64,
    /// How many starts the owner began: a restart begun before the latest never serves.
    owner_starts: u64,
    /// When the restarts of the window happened.
    restarts: VecDeque<Instant>,
    spare: Option<Spare>,
    /// Spares asked for so far: one whose making began before the latest ask, a stop or a
    /// fresh start is not kept.
    spares: u64,
    /// A spare wrote `listening` while held: the command does not know the hold, so its spares
    /// would serve the index as it was when they were spawned. None is made again.
    spares_refused: bool,
}

/// The next child, spawned ahead with the launch of the boot before it and held (it has
/// loaded what it can and waits for a line on stdin). A start whose launch is alike releases
/// it; any other start, a stop and a close kill it; one that exits on its own is dropped
/// without a word.
struct Spare {
    /// Which ask made it (`State::spares`).
    id: u64,
    spec: ChildSpec,
    child: Spawned,
}

pub struct Lifecycle {
    options: LifecycleOptions,
    launch: Launch,
    events: EventSink,
    state: Mutex<State>,
    /// Set only with `state` locked, so the front's view never lags a later change.
    serving_port: watch::Sender<Option<u16>>,
    /// True from `begin_close` on (set with `state` locked): nothing starts or restarts, and
    /// boots in progress kill their child and give up.
    closing: watch::Sender<bool>,
    /// Starts and stops in progress, which `close` waits out so that no child outlives it.
    starting: watch::Sender<usize>,
    /// The front's port once it listens (0 before): no child may serve on it.
    front_port: AtomicU32,
    /// The front's calls on their way to each child: a swap retires the previous child once
    /// none that chose it is still out.
    calls: Arc<CallsToChildren>,
    /// Exits handed to the owner to judge ([`InterruptWait::Owner`]), by id.
    interrupts: Mutex<HashMap<u32, Interrupted>>,
    next_interrupt: AtomicU32,
}

/// A child's SIGINT or SIGHUP exit, waiting for the owner to judge it.
struct Interrupted {
    child: Arc<Child>,
    exit: ChildExit,
    /// Where its restart runs: the owner judges from a thread of its own.
    runtime: tokio::runtime::Handle,
}

/// The next step of a recovery.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Restart {
    Attempt(u32),
    GiveUp(u32),
}

impl Restart {
    fn event(self) -> SupervisorEvent {
        match self {
            Restart::Attempt(attempt) => SupervisorEvent::Restarting { attempt },
            Restart::GiveUp(attempts) => SupervisorEvent::GaveUp { attempts },
        }
    }
}

/// Why a child that booted does not serve: the owner stopped the supervisor meanwhile.
const STOPPED: &str = "The pack service was stopped while it booted";

/// Why a restart's child that booted does not serve: the owner started new code meanwhile.
const SUPERSEDED: &str = "The pack service was started anew while it booted";

/// How long a start waits for JavaScript to take its `started` or `boot-failed` event before it
/// resolves (so the event comes first, as in TypeScript), when JavaScript is slow to.
const EVENT_BEFORE_ANSWER: Duration = Duration::from_secs(2);

/// Counts one start (or stop) in progress for as long as it lives.
struct Starting<'a>(&'a watch::Sender<usize>);

impl<'a> Starting<'a> {
    fn new(starting: &'a watch::Sender<usize>) -> Self {
        starting.send_modify(|n| *n += 1);
        Starting(starting)
    }
}

impl Drop for Starting<'_> {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n -= 1);
    }
}

impl Lifecycle {
    pub fn new(options: LifecycleOptions, launch: Launch, events: EventSink) -> Arc<Lifecycle> {
        Arc::new(Lifecycle {
            options,
            launch,
            events,
            state: Mutex::new(State::default()),
            serving_port: watch::channel(None).0,
            closing: watch::channel(false).0,
            starting: watch::channel(0).0,
            front_port: AtomicU32::new(0),
            calls: Arc::default(),
            interrupts: Mutex::default(),
            next_interrupt: AtomicU32::new(1),
        })
    }

    /// The port the front listens on (see `front_port`).
    pub fn set_front_port(&self, port: u16) {
        self.front_port.store(port.into(), Ordering::Release);
    }

    /// The serving child's port, as the front reads it.
    pub fn serving(&self) -> watch::Receiver<Option<u16>> {
        self.serving_port.subscribe()
    }

    /// Where the front counts its calls to each child.
    pub fn calls(&self) -> Arc<CallsToChildren> {
        Arc::clone(&self.calls)
    }

    fn is_closing(&self) -> bool {
        *self.closing.borrow()
    }

    fn with_state<R>(&self, f: impl FnOnce(&mut State) -> R) -> Option<R> {
        self.state.lock().ok().map(|mut state| f(&mut state))
    }

    fn lines(&self) -> LineSink {
        let events = Arc::clone(&self.events);
        Arc::new(move |line| {
            events(match line {
                ChildLine::Output { line, stderr } => SupervisorEvent::Output { line, stderr },
                ChildLine::Event { line } => SupervisorEvent::Log { line },
            })
        })
    }

    /// Boots a child on `index_path` and switches calls to it once it listens; the previous
    /// child is retired (its calls drain) before this resolves. On failure the previous child
    /// keeps serving.
    pub async fn start(self: &Arc<Self>, index_path: &str) -> Result<u16, Vec<String>> {
        self.boot_and_serve(index_path, true, false).await
    }

    /// [`Lifecycle::start`] with a new process even when a spare is held: for a change the
    /// spare cannot see (a file its modules imported that it will not import again).
    pub async fn start_fresh(self: &Arc<Self>, index_path: &str) -> Result<u16, Vec<String>> {
        self.boot_and_serve(index_path, true, true).await
    }

    /// [`Lifecycle::start`], for the owner (`by_owner`: the restart count starts over once the
    /// child listens, as TypeScript's does) or for a restart (the count goes on); then the
    /// spare for the next one.
    async fn boot_and_serve(
        self: &Arc<Self>,
        index_path: &str,
        by_owner: bool,
        fresh: bool,
    ) -> Result<u16, Vec<String>> {
        let mut launched = None;
        let served = self
            .launch_and_serve(index_path, by_owner, fresh, &mut launched)
            .await;
        if let Some(spec) = launched {
            self.prepare_spare(spec);
        }
        served
    }

    /// [`Lifecycle::boot_and_serve`] but the spare; `launched` gets the launch it booted.
    async fn launch_and_serve(
        self: &Arc<Self>,
        index_path: &str,
        by_owner: bool,
        fresh: bool,
        launched: &mut Option<ChildSpec>,
    ) -> Result<u16, Vec<String>> {
        // Counted under the lock that `begin_close` takes, so `close` waits for this start.
        let starting = self
            .with_state(|state| {
                // The owner's start undoes a stop; a restart never does.
                if by_owner {
                    state.stopped = false;
                    state.owner_starts += 1;
                }
                let seen = (state.stops, state.owner_starts);
                (!self.is_closing()).then(|| (Starting::new(&self.starting), seen))
            })
            .flatten();
        let Some((_starting, (stops_seen, owner_starts_seen))) = starting else {
            return Err(vec![CLOSING.into()]);
        };
        let close_begins = |mut closed: watch::Receiver<bool>| async move {
            let _ = closed.wait_for(|closing| *closing).await;
        };
        // The owner's `command()` and `env()` may never settle: a close does not wait for them.
        let spec = tokio::select! {
            spec = (self.launch)(index_path.to_owned()) => spec,
            () = close_begins(self.closing.subscribe()) => Err(CLOSING.to_owned()),
        };
        let booted = match spec {
            Ok(spec) => {
                let spawned = self.spawn_child(&spec, fresh).await;
                *launched = Some(spec);
                match spawned {
                    Ok(spawned) => {
                        let closed = close_begins(self.closing.subscribe());
                        spawned.listening(self.options.boot_timeout, closed).await
                    }
                    Err(problems) => Err(problems),
                }
            }
            Err(reason) => Err(vec![reason]),
        };
        // A child that names the front's own port would have the front forward to itself,
        // each hop a new connection, until no descriptor is left. (Port 0 is no front's: one
        // not listening yet.)
        let booted = match booted {
            Ok(child)
                if child.port != 0
                    && u32::from(child.port) == self.front_port.load(Ordering::Acquire) =>
            {
                child.retire(self.options.stop_grace).await;
                Err(vec![format!(
                    "The pack service announced the supervisor's own port {}",
                    child.port
                )])
            }
            booted => booted,
        };
        let child = match booted {
            Ok(child) => Arc::new(child),
            Err(problems) if self.is_closing() => return Err(problems),
            Err(problems) => return self.boot_failed(problems).await,
        };
        let port = child.port;
        // A close that began as the child came up, or a stop during a restart's boot: it
        // never serves.
        let installed = self
            .with_state(|state| {
                if self.is_closing() {
                    return Err(CLOSING);
                }
                // A stop since this start began, even the owner's own start: the front must not
                // forward to a child started before the owner stopped.
                if state.stops != stops_seen {
                    return Err(STOPPED);
                }
                // A restart yields to the owner's code: to a start begun since, or to one begun
                // before that came up first (the crash left nothing serving).
                if !by_owner && (state.owner_starts != owner_starts_seen || state.serving.is_some())
                {
                    return Err(SUPERSEDED);
                }
                if by_owner {
                    state.restarts.clear();
                }
                let previous = state
                    .serving
                    .replace((Arc::clone(&child), index_path.to_owned()));
                self.serving_port.send_replace(Some(port));
                Ok(previous)
            })
            .unwrap_or(Err(CLOSING));
        let previous = match installed {
            Ok(previous) => previous,
            Err(reason) => {
                child.retire(self.options.stop_grace).await;
                let problems = vec![reason.to_owned()];
                // The owner's start failed and says so, as every other failed start does; a
                // restart the owner stopped or superseded ends quietly.
                if by_owner && reason != CLOSING {
                    return self.boot_failed(problems).await;
                }
                return Err(problems);
            }
        };
        self.announce(SupervisorEvent::Started {
            port,
            index_path: index_path.to_owned(),
        })
        .await;
        self.watch(child);
        if let Some((previous, _)) = previous {
            // A call may have chosen the previous child just before the switch: it is let
            // reach it and finish (for up to the grace) before the child is told to drain,
            // which would answer it 503, or exit under it.
            let calls_out = self.calls.none_out_to(previous.port);
            let _ = tokio::time::timeout(self.options.stop_grace, calls_out).await;
            previous.retire(self.options.stop_grace).await;
        }
        Ok(port)
    }

    /// The child for `spec`: the spare, released, when it was made alike and still holds;
    /// otherwise a new one (and any spare is killed meanwhile).
    async fn spawn_child(&self, spec: &ChildSpec, fresh: bool) -> Result<Spawned, Vec<String>> {
        let spare = self
            .with_state(|state| {
                if fresh {
                    state.spares += 1;
                }
                state.spare.take()
            })
            .flatten();
        let spawned = || spawn(spec, false, self.lines(), Arc::clone(&self.options.backlog));
        let Some(mut spare) = spare else {
            return spawned().await;
        };
        let heeds_hold = spare.child.heeds_hold();
        if !fresh && heeds_hold && spare.spec.launches_alike(spec) && spare.child.release().await {
            return Ok(spare.child);
        }
        if !heeds_hold {
            self.with_state(|state| state.spares_refused = true);
        }
        let ((), spawned) = tokio::join!(spare.child.kill(), spawned());
        spawned
    }

    /// Spawns the spare for a boot that launched `spec`, in the background; it replaces the
    /// spare held before, if any.
    fn prepare_spare(self: &Arc<Self>, spec: ChildSpec) {
        if !self.options.spare {
            return;
        }
        let lifecycle = Arc::clone(self);
        tokio::spawn(async move {
            // Counted under the lock `begin_close` takes, as a start is: `close` waits for it.
            let asked = lifecycle
                .with_state(|state| {
                    if lifecycle.is_closing() || state.stopped || state.spares_refused {
                        return None;
                    }
                    state.spares += 1;
                    Some((state.spares, Starting::new(&lifecycle.starting)))
                })
                .flatten();
            let Some((id, making)) = asked else {
                return;
            };
            let backlog = Arc::clone(&lifecycle.options.backlog);
            let Ok(child) = spawn(&spec, true, lifecycle.lines(), backlog).await else {
                return;
            };
            let gone = child.gone();
            let spare = Spare { id, spec, child };
            let unwanted = match lifecycle.state.lock() {
                Ok(mut state)
                    if !lifecycle.is_closing() && !state.stopped && state.spares == id =>
                {
                    state.spare.replace(spare)
                }
                _ => Some(spare),
            };
            if let Some(unwanted) = unwanted {
                unwanted.child.kill().await;
            }
            drop(making);
            let closing = lifecycle.closing.subscribe();
            tokio::select! {
                () = gone => {}
                () = async move {
                    let mut closing = closing;
                    let _ = closing.wait_for(|closing| *closing).await;
                } => {}
            }
            // Still held: it died (dropped without a word) or the supervisor closes.
            let held = lifecycle
                .with_state(|state| match &state.spare {
                    Some(spare) if spare.id == id => state
                        .spare
                        .take()
                        .map(|spare| (spare, Starting::new(&lifecycle.starting))),
                    _ => None,
                })
                .flatten();
            if let Some((spare, _killing)) = held {
                spare.child.kill().await;
            }
        });
    }

    /// A start that failed: its `boot-failed` event, then its answer.
    async fn boot_failed(&self, problems: Vec<String>) -> Result<u16, Vec<String>> {
        self.announce(SupervisorEvent::BootFailed {
            problems: problems.clone(),
        })
        .await;
        Err(problems)
    }

    /// Emits a start's own event and waits (a while) for JavaScript to take it, behind the
    /// child's lines before it.
    async fn announce(&self, event: SupervisorEvent) {
        (self.events)(event);
        let mark = self.options.backlog.entered();
        let _ = tokio::time::timeout(
            EVENT_BEFORE_ANSWER,
            self.options.backlog.delivered_through(mark),
        )
        .await;
    }

    /// Restarts a serving child that exits on its own (not one being replaced or stopped).
    fn watch(self: &Arc<Self>, child: Arc<Child>) {
        let lifecycle = Arc::clone(self);
        tokio::spawn(async move {
            let ended = child.exited().await;
            // Any other end is a crash at once.
            if matches!(ended.signal.as_deref(), Some("SIGINT" | "SIGHUP")) {
                match lifecycle.options.interrupt_wait {
                    InterruptWait::Grace(grace) => tokio::time::sleep(grace).await,
                    InterruptWait::Owner => return lifecycle.hand_over(child, ended),
                }
            }
            let Some(index) = lifecycle.crashed(&child) else {
                return;
            };
            (lifecycle.events)(SupervisorEvent::Exited(ended));
            lifecycle.recover(index).await;
        });
    }

    /// Whether `child`'s exit is a crash: it still serves, and the owner is neither stopping
    /// nor closing. If so it serves no more, and this is the index to restart it on.
    fn crashed(&self, child: &Arc<Child>) -> Option<String> {
        self.with_state(|state| {
            let still_serving = state
                .serving
                .as_ref()
                .is_some_and(|(serving, _)| Arc::ptr_eq(serving, child));
            if !still_serving || state.stopped || self.is_closing() {
                return None;
            }
            self.serving_port.send_replace(None);
            state.serving.take().map(|(_, index)| index)
        })
        .flatten()
    }

    /// Hands a SIGINT or SIGHUP exit to the owner to judge. Every such exit of a watched
    /// child is handed over, serving or not, as TypeScript steps `nextTurn` for each; the
    /// judging sorts them out.
    fn hand_over(&self, child: Arc<Child>, exit: ChildExit) {
        let id = self.next_interrupt.fetch_add(1, Ordering::Relaxed);
        let interrupted = Interrupted {
            child,
            exit,
            runtime: tokio::runtime::Handle::current(),
        };
        // Checked under the lock `close` clears them with: none is kept once it has.
        if let Ok(mut interrupts) = self.interrupts.lock() {
            if !self.is_closing() {
                interrupts.insert(id, interrupted);
            }
        }
        (self.events)(SupervisorEvent::Interrupted { id });
    }

    /// Judges the exit handed over as `id` (once: a later call finds nothing), as a crash by
    /// the rule every exit is judged by. The events that raises now, in order (`exited`, then
    /// `restarting` or `gave-up`), are given back rather than sent, for the owner to raise in
    /// the step that judged, as TypeScript raises them; the restart goes on meanwhile.
    pub fn judge_interrupt(self: &Arc<Self>, id: u32) -> Vec<SupervisorEvent> {
        let interrupted = self
            .interrupts
            .lock()
            .ok()
            .and_then(|mut interrupts| interrupts.remove(&id));
        let Some(Interrupted {
            child,
            exit,
            runtime,
        }) = interrupted
        else {
            return Vec::new();
        };
        let Some(index) = self.crashed(&child) else {
            return Vec::new();
        };
        let mut raised = vec![SupervisorEvent::Exited(exit)];
        if let Some(step) = self.next_restart() {
            raised.push(step.event());
            if let Restart::Attempt(attempt) = step {
                let lifecycle = Arc::clone(self);
                runtime.spawn(async move {
                    if !lifecycle.restart(&index, attempt).await {
                        lifecycle.recover(index).await;
                    }
                });
            }
        }
        raised
    }

    /// Restarts the crashed child on `index` until one serves, the owner stops or closes, or
    /// the window's restarts run out.
    async fn recover(self: &Arc<Self>, index: String) {
        while let Some(step) = self.next_restart() {
            (self.events)(step.event());
            match step {
                Restart::Attempt(attempt) if !self.restart(&index, attempt).await => {}
                _ => return,
            }
        }
    }

    /// The recovery's next step, counted in the window; none when there is nothing to recover
    /// (the owner stopped or closes, or a child serves).
    fn next_restart(&self) -> Option<Restart> {
        self.with_state(|state| {
            if state.stopped || self.is_closing() || state.serving.is_some() {
                return None;
            }
            let now = Instant::now();
            while state
                .restarts
                .front()
                .is_some_and(|at| now.duration_since(*at) > RESTART_WINDOW)
            {
                state.restarts.pop_front();
            }
            let recent = u32::try_from(state.restarts.len()).unwrap_or(u32::MAX);
            if recent >= self.options.max_restarts {
                return Some(Restart::GiveUp(recent));
            }
            state.restarts.push_back(now);
            Some(Restart::Attempt(recent + 1))
        })
        .flatten()
    }

    /// Restart `attempt` after its delay: whether the recovery is over (a child serves, or
    /// the owner stopped or closes meanwhile) or goes on to its next step (the boot failed).
    async fn restart(self: &Arc<Self>, index: &str, attempt: u32) -> bool {
        // Each restart in the window waits twice as long as the one before.
        // (A huge `restartDelayMs` saturates instead of overflowing `Duration`.)
        let backoff = self
            .options
            .restart_delay
            .checked_mul(2u32.saturating_pow(attempt - 1))
            .unwrap_or(Duration::MAX);
        tokio::time::sleep(backoff).await;
        let cancelled = self
            .with_state(|state| state.stopped || self.is_closing() || state.serving.is_some())
            .unwrap_or(true);
        cancelled || self.boot_and_serve(index, false, false).await.is_ok()
    }

    /// Stops the serving child (its calls drain) and kills the spare; the front then answers
    /// 503.
    pub async fn stop(&self) {
        let taken = self.with_state(|state| {
            state.stopped = true;
            state.stops += 1;
            state.spares += 1;
            self.serving_port.send_replace(None);
            (state.serving.take(), state.spare.take())
        });
        let (serving, spare) = taken.unwrap_or((None, None));
        if let Some(spare) = spare {
            let _killing = Starting::new(&self.starting);
            spare.child.kill().await;
        }
        if let Some((child, _)) = serving {
            // Counted: a `close` while this retires waits for the child to be gone.
            let _stopping = Starting::new(&self.starting);
            child.retire(self.options.stop_grace).await;
        }
    }

    /// From now on a child that exits is expected, and none starts again; children still
    /// booting are killed.
    pub fn begin_close(&self) {
        // Under the lock, so a start is either counted before this or sees it.
        self.with_state(|_| self.closing.send_replace(true));
    }

    /// Closes, retires the serving child, and waits out every start still in progress, so no
    /// child outlives this.
    pub async fn close(&self) {
        self.begin_close();
        // Closing, no exit still waiting for the owner is a crash: their children are let go.
        if let Ok(mut interrupts) = self.interrupts.lock() {
            interrupts.clear();
        }
        self.stop().await;
        let _ = self.starting.subscribe().wait_for(|n| *n == 0).await;
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU16, Ordering};

    /// Shell children that listen on a new fake port each start; `crash_after` makes each one
    /// exit that long after listening.
    fn lifecycle(
        crash_after: Option<&str>,
        max_restarts: u32,
    ) -> (Arc<Lifecycle>, Arc<Mutex<Vec<SupervisorEvent>>>) {
        lifecycle_waiting(
            crash_after,
            max_restarts,
            InterruptWait::Grace(INTERRUPT_GRACE),
        )
    }

    /// A child that runs `script` in `/bin/sh` with an empty environment.
    fn shell_spec(
        script: String,
    ) -> Pin<Box<dyn Future<Output = Result<ChildSpec, String>> + Send>> {
        Box::pin(async move {
            Ok(ChildSpec {
                program: "/bin/sh".into(),
                args: vec!["-c".into(), script],
                env: vec![],
                cwd: None,
            })
        })
    }

    fn options(
        max_restarts: u32,
        restart_delay: Duration,
        interrupt_wait: InterruptWait,
    ) -> LifecycleOptions {
        LifecycleOptions {
            boot_timeout: Duration::from_secs(10),
            stop_grace: Duration::from_secs(2),
            max_restarts,
            restart_delay,
            interrupt_wait,
            backlog: Arc::default(),
            spare: false,
        }
    }

    fn lifecycle_waiting(
        crash_after: Option<&str>,
        max_restarts: u32,
        interrupt_wait: InterruptWait,
    ) -> (Arc<Lifecycle>, Arc<Mutex<Vec<SupervisorEvent>>>) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let into = Arc::clone(&seen);
        let events: EventSink = Arc::new(move |event| {
            if !matches!(
                event,
                SupervisorEvent::Output { .. } | SupervisorEvent::Log { .. }
            ) {
                into.lock().map(|mut s| s.push(event)).ok();
            }
        });
        let next = Arc::new(AtomicU16::new(1000));
        let tail = match crash_after {
            Some(after) => format!("sleep {after}; exit 7"),
            None => "while :; do sleep 0.05; done".into(),
        };
        let launch: Launch = Arc::new(move |index| {
            let port = next.fetch_add(1, Ordering::Relaxed);
            let script = if let Some(marker) = index.strip_prefix("slow:") {
                // Listens only after a while; the marker names it among the processes.
                // (Short sleeps: a killed shell's last one outlives it, holding its pipes.)
                format!("i=0; while [ $i -lt 40 ]; do sleep 0.05; i=$((i+1)); done; echo '{{\"kind\":\"listening\",\"port\":{port}}}' >&2; {tail} # {marker}")
            } else if index == "broken" {
                "echo '{\"kind\":\"boot-failed\",\"problems\":[\"Missing module: a.mjs\"]}' >&2; exit 1".to_owned()
            } else {
                // The trap is set before `listening`: a retire may come the moment it is read.
                // The index names the child among the processes.
                format!("trap 'exit 0' TERM; echo '{{\"kind\":\"listening\",\"port\":{port}}}' >&2; {tail} # {index}")
            };
            shell_spec(script)
        });
        let options = options(max_restarts, Duration::from_millis(10), interrupt_wait);
        (Lifecycle::new(options, launch, events), seen)
    }

    fn kinds(seen: &Mutex<Vec<SupervisorEvent>>) -> Vec<String> {
        seen.lock()
            .map(|s| {
                s.iter()
                    .map(|e| match e {
                        SupervisorEvent::Started { .. } => "started".to_owned(),
                        SupervisorEvent::BootFailed { .. } => "boot-failed".into(),
                        SupervisorEvent::Exited(_) => "exited".into(),
                        SupervisorEvent::Restarting { attempt } => format!("restarting {attempt}"),
                        SupervisorEvent::GaveUp { attempts } => format!("gave-up {attempts}"),
                        SupervisorEvent::Interrupted { .. } => "interrupted".into(),
                        _ => "line".into(),
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    #[tokio::test]
    async fn swaps_children_and_keeps_the_old_one_when_a_boot_fails() {
        let (lifecycle, seen) = lifecycle(None, 3);
        let serving = lifecycle.serving();
        assert_eq!(lifecycle.start("a").await, Ok(1000));
        assert_eq!(lifecycle.start("b").await, Ok(1001));
        assert_eq!(
            lifecycle.start("broken").await,
            Err(vec!["Missing module: a.mjs".to_owned()])
        );
        assert_eq!(*serving.borrow(), Some(1001));
        lifecycle.close().await;
        assert_eq!(*serving.borrow(), None);
        assert_eq!(
            lifecycle.start("c").await,
            Err(vec!["The pack service is closing".to_owned()])
        );
        assert_eq!(kinds(&seen), ["started", "started", "boot-failed"]);
    }

    #[tokio::test]
    async fn a_child_that_keeps_crashing_is_given_up_on() {
        let (lifecycle, seen) = lifecycle(Some("0.05"), 2);
        assert!(lifecycle.start("a").await.is_ok());
        until(|| kinds(&seen).iter().any(|k| k.starts_with("gave-up"))).await;
        // Each restart booted, then crashed: still given up on after two in the window.
        assert_eq!(
            kinds(&seen),
            [
                "started",
                "exited",
                "restarting 1",
                "started",
                "exited",
                "restarting 2",
                "started",
                "exited",
                "gave-up 2"
            ]
        );
        assert_eq!(*lifecycle.serving().borrow(), None);
    }

    /// Waits (up to 10 s) until `condition` holds; the caller asserts what it needs after.
    async fn until(condition: impl Fn() -> bool) {
        for _ in 0..1000 {
            if condition() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// The pid of a live process whose command line holds `marker`.
    fn pid_with(marker: &str) -> Option<i32> {
        std::fs::read_dir("/proc")
            .into_iter()
            .flatten()
            .flatten()
            .find(|entry| {
                std::fs::read(entry.path().join("cmdline"))
                    .is_ok_and(|cmdline| String::from_utf8_lossy(&cmdline).contains(marker))
            })
            .and_then(|entry| entry.file_name().to_str()?.parse().ok())
    }

    fn alive_with(marker: &str) -> bool {
        pid_with(marker).is_some()
    }

    /// SUP 113-115: a SIGKILL is a crash at once, a SIGINT only after the grace (a long one
    /// here, so the difference cannot be a matter of timing).
    #[tokio::test]
    async fn only_an_interrupt_waits_before_it_is_a_crash() {
        for (signal, crash_at_once) in [(libc::SIGKILL, true), (libc::SIGINT, false)] {
            let grace = InterruptWait::Grace(Duration::from_secs(600));
            let (lifecycle, seen) = lifecycle_waiting(None, 3, grace);
            let marker = format!("signalled-{signal}-{}", std::process::id());
            assert!(lifecycle.start(&marker).await.is_ok());
            let pid = pid_with(&marker).expect("the child runs");
            // SAFETY: kill(2) only sends a signal, to the child the test started.
            unsafe {
                libc::kill(pid, signal);
            }
            // The exit is seen (the pid is reaped), then given time to be reported.
            let gone = || !std::path::Path::new(&format!("/proc/{pid}")).exists();
            until(gone).await;
            assert!(gone(), "the child ended by signal {signal}");
            if crash_at_once {
                until(|| kinds(&seen).len() > 1).await;
                let seen = kinds(&seen);
                assert!(
                    seen.starts_with(&["started".into(), "exited".into()]),
                    "{seen:?}"
                );
            } else {
                // Longer than the exit's report can take (`LINES_AFTER_EXIT`, 500 ms).
                tokio::time::sleep(Duration::from_millis(1000)).await;
                assert_eq!(kinds(&seen), ["started"], "SIGINT waits for the grace");
            }
            lifecycle.close().await;
        }
    }

    /// A child under the owner's steps, started on an index named `tag` and ended by
    /// `signal`, once it is gone.
    async fn signalled_under_the_owners_steps(
        tag: &str,
        max_restarts: u32,
        signal: i32,
    ) -> (Arc<Lifecycle>, Arc<Mutex<Vec<SupervisorEvent>>>) {
        let (lifecycle, seen) = lifecycle_waiting(None, max_restarts, InterruptWait::Owner);
        let marker = format!("{tag}-{}", std::process::id());
        assert!(lifecycle.start(&marker).await.is_ok());
        let pid = pid_with(&marker).expect("the child runs");
        // SAFETY: kill(2) only sends a signal, to the child the test started.
        unsafe {
            libc::kill(pid, signal);
        }
        let gone = || !std::path::Path::new(&format!("/proc/{pid}")).exists();
        until(gone).await;
        assert!(gone(), "the child ended by signal {signal}");
        (lifecycle, seen)
    }

    /// The id of the exit handed to the owner, once it is.
    async fn handed_over(seen: &Mutex<Vec<SupervisorEvent>>) -> u32 {
        let id = || {
            seen.lock().ok()?.iter().find_map(|e| match e {
                SupervisorEvent::Interrupted { id } => Some(*id),
                _ => None,
            })
        };
        until(|| id().is_some()).await;
        id().expect("the exit was handed to the owner")
    }

    /// Under the owner's steps a SIGINT waits for the owner however long it takes; judged, it
    /// is a crash whose events come back in order, not sent, and whose restart goes on.
    #[tokio::test]
    async fn the_owner_judges_an_interrupt_once_and_takes_its_events() {
        let (lifecycle, seen) =
            signalled_under_the_owners_steps("owner-sigint", 3, libc::SIGINT).await;
        let id = handed_over(&seen).await;
        // Far past the grace a SIGINT waits without the owner's steps.
        tokio::time::sleep(INTERRUPT_GRACE * 5).await;
        assert_eq!(kinds(&seen), ["started", "interrupted"]);
        assert_eq!(*lifecycle.serving().borrow(), Some(1000), "not judged yet");
        assert_eq!(
            lifecycle.judge_interrupt(id),
            [
                SupervisorEvent::Exited(ChildExit {
                    code: None,
                    signal: Some("SIGINT".into())
                }),
                SupervisorEvent::Restarting { attempt: 1 }
            ]
        );
        assert_eq!(lifecycle.judge_interrupt(id), [], "judged once");
        until(|| kinds(&seen).len() == 3).await;
        assert_eq!(kinds(&seen), ["started", "interrupted", "started"]);
        assert_eq!(*lifecycle.serving().borrow(), Some(1001));
        lifecycle.close().await;
    }

    /// With no restarts allowed the judged crash is given up on in the same step.
    #[tokio::test]
    async fn a_judged_interrupt_with_no_restarts_left_is_given_up_on_at_once() {
        let (lifecycle, seen) =
            signalled_under_the_owners_steps("owner-sighup", 0, libc::SIGHUP).await;
        let id = handed_over(&seen).await;
        assert_eq!(
            lifecycle.judge_interrupt(id),
            [
                SupervisorEvent::Exited(ChildExit {
                    code: None,
                    signal: Some("SIGHUP".into())
                }),
                SupervisorEvent::GaveUp { attempts: 0 }
            ]
        );
        assert_eq!(*lifecycle.serving().borrow(), None);
        lifecycle.close().await;
    }

    /// What the owner did before its steps ran (closing, stopping, new code) makes the exit
    /// no crash, by the rule every exit is judged by.
    #[tokio::test]
    async fn an_interrupt_judged_after_a_close_stop_or_start_is_no_crash() {
        for then in ["begin_close", "stop", "start"] {
            let tag = format!("owner-then-{then}");
            let (lifecycle, seen) = signalled_under_the_owners_steps(&tag, 3, libc::SIGINT).await;
            let id = handed_over(&seen).await;
            match then {
                "begin_close" => lifecycle.begin_close(),
                "stop" => lifecycle.stop().await,
                _ => assert_eq!(lifecycle.start("new").await, Ok(1001)),
            }
            assert_eq!(lifecycle.judge_interrupt(id), [], "after {then}");
            tokio::time::sleep(Duration::from_millis(100)).await;
            let expected: &[&str] = match then {
                "start" => &["started", "interrupted", "started"],
                _ => &["started", "interrupted"],
            };
            assert_eq!(kinds(&seen), expected, "after {then}");
            lifecycle.close().await;
        }
    }

    /// Under the owner's steps any other end is still a crash at once, and nothing is handed
    /// over.
    #[tokio::test]
    async fn under_the_owners_steps_only_an_interrupt_is_handed_over() {
        let (lifecycle, seen) =
            signalled_under_the_owners_steps("owner-sigkill", 3, libc::SIGKILL).await;
        until(|| kinds(&seen).len() >= 3).await;
        assert_eq!(kinds(&seen)[..3], ["started", "exited", "restarting 1"]);
        lifecycle.close().await;
        assert!(!kinds(&seen).contains(&"interrupted".to_owned()));
    }

    #[tokio::test]
    async fn close_kills_a_child_still_booting_and_waits_for_it() {
        let (lifecycle, seen) = lifecycle(None, 3);
        // No other test's marker holds this one (`stopped-booting-…` holds `booting-…`).
        let marker = format!("closed-while-booting-{}", std::process::id());
        let index = format!("slow:{marker}");
        let (started, ()) = tokio::join!(lifecycle.start(&index), async {
            // Until the child runs, then close while it has not listened yet.
            until(|| alive_with(&marker)).await;
            lifecycle.close().await;
            // close() returned: the booting child is gone already.
            assert!(!alive_with(&marker));
        });
        assert_eq!(started, Err(vec![CLOSING.to_owned()]));
        assert_eq!(*lifecycle.serving().borrow(), None);
        assert_eq!(kinds(&seen), Vec::<String>::new());
    }

    #[tokio::test]
    async fn a_stop_during_a_restarts_boot_leaves_nothing_serving() {
        let (lifecycle, seen) = lifecycle(Some("0.05"), 3);
        let marker = format!("restart-{}", std::process::id());
        assert!(lifecycle.start(&format!("slow:{marker}")).await.is_ok());
        // The child crashes, and its restart is booting (slowly) when the owner stops.
        until(|| kinds(&seen).iter().any(|k| k == "restarting 1") && alive_with(&marker)).await;
        lifecycle.stop().await;
        until(|| !alive_with(&marker)).await;
        assert!(!alive_with(&marker), "the restart's child was retired");
        assert_eq!(kinds(&seen), ["started", "exited", "restarting 1"]);
        assert_eq!(*lifecycle.serving().borrow(), None);
    }

    #[tokio::test]
    async fn an_owners_start_stopped_while_it_boots_fails_and_says_so() {
        let (lifecycle, seen) = lifecycle(None, 3);
        let marker = format!("stopped-booting-{}", std::process::id());
        let index = format!("slow:{marker}");
        let (started, ()) = tokio::join!(lifecycle.start(&index), async {
            until(|| alive_with(&marker)).await;
            lifecycle.stop().await;
        });
        assert_eq!(started, Err(vec![STOPPED.to_owned()]));
        assert!(!alive_with(&marker), "its child was retired");
        assert_eq!(*lifecycle.serving().borrow(), None);
        assert_eq!(kinds(&seen), ["boot-failed"]);
        lifecycle.close().await;
    }

    #[tokio::test]
    async fn an_owners_start_during_a_restarts_boot_keeps_the_new_code() {
        let (lifecycle, seen) = lifecycle(Some("0.05"), 3);
        let marker = format!("superseded-{}", std::process::id());
        let slow = format!("slow:{marker}");
        assert!(lifecycle.start(&slow).await.is_ok());
        // The child crashes, and its restart (the old code) is booting when new code starts.
        until(|| kinds(&seen).iter().any(|k| k == "restarting 1") && alive_with(&marker)).await;
        assert!(lifecycle.start("new").await.is_ok());
        // The restart's child boots after that and is retired instead of serving.
        until(|| !alive_with(&marker)).await;
        let old_code_started = seen
            .lock()
            .map(|s| {
                s.iter()
                    .filter(|e| matches!(e, SupervisorEvent::Started { index_path, .. } if *index_path == slow))
                    .count()
            })
            .unwrap_or_default();
        assert_eq!(
            old_code_started, 1,
            "only the first start served the old code"
        );
        lifecycle.close().await;
    }

    /// The owner's start begins during a restart's delay and boots in 1 s; the restart of the
    /// crashed code begins booting after it, takes 2 s, and comes up last.
    #[tokio::test]
    async fn a_restart_that_comes_up_after_the_owners_earlier_start_does_not_replace_it() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let into = Arc::clone(&seen);
        let events: EventSink = Arc::new(move |event| {
            if matches!(event, SupervisorEvent::Started { .. }) {
                into.lock().map(|mut s| s.push(event)).ok();
            }
        });
        let restarting = Arc::new(tokio::sync::Notify::new());
        let told = Arc::clone(&restarting);
        let events: EventSink = Arc::new(move |event| {
            if matches!(event, SupervisorEvent::Restarting { .. }) {
                told.notify_one();
            }
            events(event);
        });
        let next = Arc::new(AtomicU16::new(2000));
        let launches = Arc::new(AtomicU16::new(0));
        let launch: Launch = Arc::new(move |index| {
            let port = next.fetch_add(1, Ordering::Relaxed);
            let script = if index == "new" {
                format!("trap 'exit 0' TERM; sleep 1; echo '{{\"kind\":\"listening\",\"port\":{port}}}' >&2; while :; do sleep 0.05; done")
            } else if launches.fetch_add(1, Ordering::Relaxed) == 0 {
                // The old code's first child: up at once, then a crash.
                format!("echo '{{\"kind\":\"listening\",\"port\":{port}}}' >&2; sleep 0.2; exit 7")
            } else {
                format!("trap 'exit 0' TERM; sleep 2; echo '{{\"kind\":\"listening\",\"port\":{port}}}' >&2; while :; do sleep 0.05; done")
            };
            shell_spec(script)
        });
        let options = options(
            3,
            Duration::from_millis(300),
            InterruptWait::Grace(INTERRUPT_GRACE),
        );
        let lifecycle = Lifecycle::new(options, launch, events);
        assert_eq!(lifecycle.start("old").await, Ok(2000));
        restarting.notified().await;
        assert_eq!(lifecycle.start("new").await, Ok(2001));
        // Past the restart's boot: it must not have taken the owner's place.
        tokio::time::sleep(Duration::from_millis(2500)).await;
        assert_eq!(*lifecycle.serving().borrow(), Some(2001));
        let started = seen
            .lock()
            .map(|s| {
                s.iter()
                    .filter_map(|e| match e {
                        SupervisorEvent::Started { index_path, .. } => Some(index_path.clone()),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default();
        lifecycle.close().await;
        assert_eq!(started, ["old", "new"]);
    }

    #[tokio::test]
    async fn the_owners_start_gives_a_fresh_count_of_restarts() {
        let (lifecycle, seen) = lifecycle(Some("0.05"), 1);
        let gave_up = |n: usize| {
            let seen = Arc::clone(&seen);
            async move {
                let count = || {
                    kinds(&seen)
                        .iter()
                        .filter(|k| k.starts_with("gave-up"))
                        .count()
                };
                until(|| count() == n).await;
                assert_eq!(count(), n, "given up on: {:?}", kinds(&seen));
            }
        };
        assert!(lifecycle.start("a").await.is_ok());
        gave_up(1).await;
        // New code from the owner: its crash is restarted once more before it is given up on.
        assert!(lifecycle.start("b").await.is_ok());
        gave_up(2).await;
        let once = [
            "started",
            "exited",
            "restarting 1",
            "started",
            "exited",
            "gave-up 1",
        ];
        assert_eq!(kinds(&seen), [once, once].concat());
    }

    /// A lifecycle with `spare`, and every event and line it raises. Its children hold as this
    /// package's service does (`heeds_hold`): held, one writes `held <pid>` and waits for a line
    /// on stdin. Each listens on [`port_of`] its pid, so a spare's launch is the start's, but
    /// for `GENERATION` in its environment, read from the counter given back.
    fn spare_lifecycle(
        heeds_hold: bool,
    ) -> (
        Arc<Lifecycle>,
        Arc<Mutex<Vec<SupervisorEvent>>>,
        Arc<AtomicU16>,
    ) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let into = Arc::clone(&seen);
        let events: EventSink = Arc::new(move |event| {
            into.lock().map(|mut s| s.push(event)).ok();
        });
        let generation = Arc::new(AtomicU16::new(0));
        let read = Arc::clone(&generation);
        let launch: Launch = Arc::new(move |index| {
            let hold = if heeds_hold {
                r#"if [ -n "$KINDGI_PACK_SERVICE_HOLD" ]; then echo "held $$"; read line || exit 0; fi; "#
            } else {
                ""
            };
            let script = format!(
                r#"trap 'exit 0' TERM; {hold}echo "{{\"kind\":\"listening\",\"port\":$(( $$ % 50000 + 10000 ))}}" >&2; while :; do sleep 0.05; done # {index}"#
            );
            let generation = read.load(Ordering::Relaxed).to_string();
            Box::pin(async move {
                Ok(ChildSpec {
                    program: "/bin/sh".into(),
                    args: vec!["-c".into(), script],
                    env: vec![("GENERATION".into(), generation)],
                    cwd: None,
                })
            })
        });
        let options = LifecycleOptions {
            spare: true,
            ..options(
                3,
                Duration::from_millis(10),
                InterruptWait::Grace(INTERRUPT_GRACE),
            )
        };
        (Lifecycle::new(options, launch, events), seen, generation)
    }

    fn port_of(pid: i32) -> u16 {
        u16::try_from(pid % 50000 + 10000).unwrap_or_default()
    }

    /// Live processes (not zombies) whose command line holds `marker` and whose environment
    /// holds the hold: spares, held or released.
    fn spares_with(marker: &str) -> Vec<i32> {
        let hold = format!("{}=1", crate::supervisor::child::HOLD_VAR);
        pids_with(marker)
            .into_iter()
            .filter(|pid| {
                std::fs::read(format!("/proc/{pid}/environ")).is_ok_and(|environ| {
                    environ.split(|&b| b == 0).any(|var| var == hold.as_bytes())
                })
            })
            .collect()
    }

    /// Live processes (not zombies) whose command line holds `marker`.
    fn pids_with(marker: &str) -> Vec<i32> {
        std::fs::read_dir("/proc")
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| {
                let pid: i32 = entry.file_name().to_str()?.parse().ok()?;
                let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
                let status = std::fs::read_to_string(entry.path().join("status")).ok()?;
                let zombie = status
                    .lines()
                    .any(|l| l.starts_with("State:") && l.contains('Z'));
                (String::from_utf8_lossy(&cmdline).contains(marker) && !zombie).then_some(pid)
            })
            .collect()
    }

    /// The spare held for `marker` once there is one other than those in `not`.
    async fn new_spare(marker: &str, not: &[i32]) -> i32 {
        let found = || {
            spares_with(marker)
                .into_iter()
                .find(|pid| !not.contains(pid))
        };
        until(|| found().is_some()).await;
        found().expect("a spare is held")
    }

    /// The events of [`kinds`], lines left out.
    fn raised(seen: &Mutex<Vec<SupervisorEvent>>) -> Vec<String> {
        kinds(seen).into_iter().filter(|k| k != "line").collect()
    }

    fn outputs(seen: &Mutex<Vec<SupervisorEvent>>) -> Vec<String> {
        seen.lock()
            .map(|s| {
                s.iter()
                    .filter_map(|e| match e {
                        SupervisorEvent::Output { line, .. } => Some(line.clone()),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    #[tokio::test]
    async fn a_spare_is_held_then_serves_the_next_start_launched_alike() {
        let (lifecycle, seen, _) = spare_lifecycle(true);
        let index = format!("spare-alike-{}", std::process::id());
        let first = lifecycle.start(&index).await.expect("it boots");
        let spare = new_spare(&index, &[]).await;
        assert_ne!(port_of(spare), first);
        // Held, it has not listened, and what it wrote waits for its release.
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(*lifecycle.serving().borrow(), Some(first));
        assert!(!outputs(&seen).contains(&format!("held {spare}")));
        assert_eq!(lifecycle.start(&index).await, Ok(port_of(spare)));
        assert_eq!(*lifecycle.serving().borrow(), Some(port_of(spare)));
        assert!(outputs(&seen).contains(&format!("held {spare}")));
        // The next one is held in its turn.
        let next = new_spare(&index, &[spare]).await;
        assert_eq!(raised(&seen), ["started", "started"]);
        lifecycle.close().await;
        assert_eq!(
            pids_with(&index),
            Vec::<i32>::new(),
            "nothing outlives close: {next} included"
        );
    }

    #[tokio::test]
    async fn a_start_launched_otherwise_or_fresh_kills_the_spare_and_spawns_anew() {
        let (lifecycle, seen, generation) = spare_lifecycle(true);
        let index = format!("spare-otherwise-{}", std::process::id());
        assert!(lifecycle.start(&index).await.is_ok());
        let spare = new_spare(&index, &[]).await;
        generation.store(1, Ordering::Relaxed);
        let port = lifecycle.start(&index).await.expect("it boots");
        assert_ne!(port, port_of(spare));
        assert!(!pids_with(&index).contains(&spare), "the spare was killed");
        // Launched alike again, but fresh: the spare held since is not used either.
        let alike = new_spare(&index, &[spare]).await;
        let port = lifecycle.start_fresh(&index).await.expect("it boots");
        assert_ne!(port, port_of(alike));
        assert!(!pids_with(&index).contains(&alike), "the spare was killed");
        assert_eq!(raised(&seen), ["started", "started", "started"]);
        lifecycle.close().await;
        assert_eq!(pids_with(&index), Vec::<i32>::new());
    }

    #[tokio::test]
    async fn a_spare_that_dies_is_dropped_without_a_word_and_replaced_after_the_next_start() {
        let (lifecycle, seen, _) = spare_lifecycle(true);
        let index = format!("spare-dies-{}", std::process::id());
        assert!(lifecycle.start(&index).await.is_ok());
        let spare = new_spare(&index, &[]).await;
        // SAFETY: kill(2) only sends a signal, to the spare the test started.
        unsafe {
            libc::kill(spare, libc::SIGKILL);
        }
        until(|| !pids_with(&index).contains(&spare)).await;
        tokio::time::sleep(Duration::from_millis(700)).await;
        assert_eq!(raised(&seen), ["started"], "no exit, no restart");
        assert_eq!(
            spares_with(&index),
            Vec::<i32>::new(),
            "none made before the next start"
        );
        let port = lifecycle.start(&index).await.expect("it boots");
        assert_ne!(port, port_of(spare));
        new_spare(&index, &[spare]).await;
        assert_eq!(raised(&seen), ["started", "started"]);
        lifecycle.close().await;
        assert_eq!(pids_with(&index), Vec::<i32>::new());
    }

    #[tokio::test]
    async fn stop_and_begin_close_kill_the_spare() {
        let (lifecycle, _, _) = spare_lifecycle(true);
        let index = format!("spare-stop-{}", std::process::id());
        assert!(lifecycle.start(&index).await.is_ok());
        new_spare(&index, &[]).await;
        lifecycle.stop().await;
        assert_eq!(
            pids_with(&index),
            Vec::<i32>::new(),
            "stop leaves no child, held or serving"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(
            spares_with(&index),
            Vec::<i32>::new(),
            "none made after a stop"
        );
        assert!(lifecycle.start(&index).await.is_ok());
        let spare = new_spare(&index, &[]).await;
        lifecycle.begin_close();
        until(|| !pids_with(&index).contains(&spare)).await;
        assert!(
            !pids_with(&index).contains(&spare),
            "begin_close kills the spare"
        );
        lifecycle.close().await;
        assert_eq!(pids_with(&index), Vec::<i32>::new());
    }

    /// A command that does not know the hold boots at once, on the index as it was: its spare
    /// is never released, and none follows.
    #[tokio::test]
    async fn a_spare_that_listens_while_held_is_not_used_and_none_follows() {
        let (lifecycle, seen, _) = spare_lifecycle(false);
        let index = format!("spare-deaf-{}", std::process::id());
        assert!(lifecycle.start(&index).await.is_ok());
        let spare = new_spare(&index, &[]).await;
        // Given time to write `listening` (it does so first thing) and be read.
        tokio::time::sleep(Duration::from_millis(500)).await;
        let port = lifecycle.start(&index).await.expect("it boots");
        assert_ne!(port, port_of(spare));
        assert!(!pids_with(&index).contains(&spare), "the spare was killed");
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(spares_with(&index), Vec::<i32>::new(), "no spare follows");
        assert_eq!(raised(&seen), ["started", "started"]);
        lifecycle.close().await;
    }

    #[tokio::test]
    async fn without_spare_no_child_is_held() {
        let (lifecycle, _) = lifecycle(None, 3);
        let index = format!("no-spare-{}", std::process::id());
        assert!(lifecycle.start(&index).await.is_ok());
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(pids_with(&index).len(), 1);
        lifecycle.close().await;
    }
}

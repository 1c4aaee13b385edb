//! Which child serves: `start` boots a new child and switches calls to it once it listens,
//! then retires the previous one; a child that fails to boot leaves the previous one serving;
//! a serving child that exits on its own is restarted, with a growing delay and at most
//! `max_restarts` times within [`RESTART_WINDOW`], so one that boots and then keeps crashing
//! is given up on instead of restarted forever. The owner's own `start` (new code) that boots
//! gives the next crash a fresh count; a restart's boot does not.
//!
//! With `spare`, each boot leaves the next child spawned and held (see `spare`): a start
//! that would launch it alike releases it instead of spawning, which skips the child's own
//! start-up (a new process, its runtime, the pack's modules).

use crate::supervisor::backlog::Backlog;
use crate::supervisor::calls::CallsToChildren;
use crate::supervisor::child::{Child, ChildExit, ChildLine, ChildSpec, LineSink, CLOSING};
use recovery::Interrupted;
use spare::Spare;
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::watch;

mod recovery;
mod spare;
#[cfg(all(test, unix))]
mod tests;

pub use recovery::RESTART_WINDOW;

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

    /// Whether the serving child says its pack code holds its JS thread.
    pub fn serving_is_stalled(&self) -> bool {
        self.with_state(|state| {
            state
                .serving
                .as_ref()
                .is_some_and(|(child, _)| child.is_stalled())
        })
        .unwrap_or(false)
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

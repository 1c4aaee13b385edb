//! A serving child that exits on its own: a crash, restarted with a growing delay until one
//! serves or the window's restarts run out; a SIGINT or SIGHUP exit is judged a crash only
//! after a grace, or once the owner's own steps judge it.

use super::{InterruptWait, Lifecycle, SupervisorEvent};
use crate::supervisor::child::{Child, ChildExit};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Restarts are counted over this window: more than `max_restarts` within it is giving up.
pub const RESTART_WINDOW: Duration = Duration::from_secs(60);

/// A child's SIGINT or SIGHUP exit, waiting for the owner to judge it.
pub(super) struct Interrupted {
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

impl Lifecycle {
    /// Restarts a serving child that exits on its own (not one being replaced or stopped).
    pub(super) fn watch(self: &Arc<Self>, child: Arc<Child>) {
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
}

//! Calls handed to a runner on another thread (the JS thread) and not settled yet: the id that
//! thread settles each by, and where its answer goes. Also the answers of a call whose pack
//! code never answered.

use crate::service::call::{Answer, Settled};
use crate::service::http::NotReady;
use crate::service::start_gate::StartGate;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

/// The id no call has: the warm-up's, which JS settles without effect.
pub const WARM_UP_ID: u32 = 0;

/// A call handed over and not yet settled.
struct Pending {
    settle: oneshot::Sender<Settled>,
    start: Arc<StartGate>,
}

/// The calls out, by id.
pub struct PendingCalls {
    calls: Mutex<HashMap<u32, Pending>>,
    next_id: AtomicU32,
}

impl Default for PendingCalls {
    fn default() -> Self {
        PendingCalls::starting_at(1)
    }
}

impl PendingCalls {
    /// Ids start at `first` (only tests start elsewhere than 1, to reach the wrap-around).
    fn starting_at(first: u32) -> PendingCalls {
        PendingCalls {
            calls: Mutex::new(HashMap::new()),
            next_id: AtomicU32::new(first),
        }
    }

    /// A call's id, with where its settle goes. Ids wrap after 2^32 calls: one still held (a
    /// handler that ignored its abort) or [`WARM_UP_ID`] is passed over.
    pub fn register(&self, start: Arc<StartGate>) -> (u32, oneshot::Receiver<Settled>) {
        let (settle, settled) = oneshot::channel();
        let call = Pending { settle, start };
        // A poisoned lock (a panic elsewhere): the call cannot be settled and ends by its
        // deadline.
        let Ok(mut calls) = self.calls.lock() else {
            return (self.next_id.fetch_add(1, Ordering::Relaxed), settled);
        };
        loop {
            let id = self.next_id.fetch_add(1, Ordering::Relaxed);
            if id != WARM_UP_ID && !calls.contains_key(&id) {
                calls.insert(id, call);
                return (id, settled);
            }
        }
    }

    /// Ends call `id` with `settled`; false when it is gone. Its place under the cap goes at
    /// once, on the thread that settled it.
    pub fn finish(&self, id: u32, settled: Settled) -> bool {
        let call = self
            .calls
            .lock()
            .ok()
            .and_then(|mut calls| calls.remove(&id));
        call.is_some_and(|call| {
            call.start.settled();
            call.settle.send(settled).is_ok()
        })
    }

    /// Drops call `id`'s settle slot: the task waiting on it ends as unsettled.
    pub fn forget(&self, id: u32) {
        if let Ok(mut calls) = self.calls.lock() {
            calls.remove(&id);
        }
    }

    /// How many calls are out.
    pub fn len(&self) -> usize {
        self.calls.lock().map_or(0, |calls| calls.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Forgets call `id` when the returned guard drops: when its future ends, answered or not.
    pub fn forget_on_drop(&self, id: u32) -> ForgetOnDrop<'_> {
        ForgetOnDrop { calls: self, id }
    }
}

/// Removes a call's slot when dropped (see [`PendingCalls::forget_on_drop`]).
pub struct ForgetOnDrop<'a> {
    calls: &'a PendingCalls,
    id: u32,
}

impl Drop for ForgetOnDrop<'_> {
    fn drop(&mut self) {
        self.calls.forget(self.id);
    }
}

/// The answer of a call that reached the runner after the service released JS: its pack code
/// provably never ran, so it is refused as a draining service refuses calls (503, to retry).
pub fn stopped() -> Settled {
    Settled {
        answer: Answer::Transport(NotReady::Draining.reply()),
        honoured_abort: true,
    }
}

/// The answer of a call whose settle slot went without an answer (the JS side gone with it).
pub fn unsettled(word: &str, id: &str) -> Settled {
    Settled {
        answer: Answer::failed(format!("The {word} {id} ended without an answer")),
        honoured_abort: true,
    }
}

/// The answer of a call aborted while still queued for a busy JS thread: it never starts.
pub fn ended_before_start(word: &str, id: &str) -> Settled {
    Settled {
        answer: Answer::failed(format!("The {word} {id} ended before it started")),
        honoured_abort: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::admission::Admission;

    fn gate() -> Arc<StartGate> {
        Arc::new(StartGate::new(Admission::new(1)))
    }

    fn ok() -> Settled {
        Settled {
            answer: Answer::Message("{}".into()),
            honoured_abort: false,
        }
    }

    #[test]
    fn call_ids_wrap_past_the_ones_still_held_and_the_warm_up() {
        let calls = PendingCalls::starting_at(u32::MAX - 1);
        let held = || calls.register(gate());
        assert_eq!(held().0, u32::MAX - 1);
        // u32::MAX is free; then 0 (the warm-up's) is passed over, and 1 is still held.
        assert_eq!(held().0, u32::MAX);
        if let Ok(mut out) = calls.calls.lock() {
            let (settle, _) = oneshot::channel();
            out.insert(
                1,
                Pending {
                    settle,
                    start: gate(),
                },
            );
        }
        assert_eq!(held().0, 2);
    }

    #[test]
    fn a_call_is_settled_once_then_gone() {
        let calls = PendingCalls::default();
        let (id, mut settled) = calls.register(gate());
        assert_eq!(calls.len(), 1);
        assert!(calls.finish(id, ok()));
        assert_eq!(settled.try_recv().ok(), Some(ok()));
        assert!(!calls.finish(id, ok()), "settled once");
        assert!(calls.is_empty());
    }

    #[test]
    fn a_forgotten_call_ends_unsettled() {
        let calls = PendingCalls::default();
        let (id, mut settled) = calls.register(gate());
        {
            let _guard = calls.forget_on_drop(id);
        }
        assert!(calls.is_empty());
        assert!(!calls.finish(id, ok()));
        assert!(matches!(
            settled.try_recv(),
            Err(oneshot::error::TryRecvError::Closed)
        ));
        let (id, _settled) = calls.register(gate());
        calls.forget(id);
        assert!(calls.is_empty());
    }

    #[test]
    fn answers_of_calls_that_never_answered() {
        assert_eq!(
            unsettled("tool", "t1").answer,
            Answer::failed("The tool t1 ended without an answer".into())
        );
        assert_eq!(
            ended_before_start("check", "c1").answer,
            Answer::failed("The check c1 ended before it started".into())
        );
        assert!(matches!(stopped().answer, Answer::Transport(reply) if reply.status == 503));
    }
}

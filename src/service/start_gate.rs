//! Where a call's pack code starts: under the concurrency cap, and only if the call has not
//! ended first.
//!
//! A JavaScript runner queues each call for the JS thread. A queued call holds no place under
//! the cap (the TypeScript service's equivalent is a request not yet read): it takes one when
//! its pack code starts, and is refused `overloaded` then if the cap is reached, as the
//! TypeScript service refuses a request it reads while as many calls are busy. The place is
//! given back when the pack code settles or the call is answered, whichever comes first.
//!
//! While the JS thread is busy (a handler that computes for a while), calls can end in the
//! queue: their deadline passes, or their caller leaves. Their pack code then never starts
//! (the TypeScript service could not start a handler after answering its call), and each
//! holds a place until the queue reaches it, so the work and memory queued behind a busy
//! thread stay bounded by the cap instead of by how fast callers can send.

use crate::service::admission::{Admission, Place, Queued};
use std::sync::{Arc, Mutex};

/// What [`StartGate::start`] decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// Start the pack code: it has its place.
    Run,
    /// The call ended first: its pack code never starts.
    Ended,
    /// The cap is reached: the call is answered `overloaded` and its pack code never starts.
    Overloaded,
}

#[derive(Debug)]
enum Phase {
    Queued,
    /// Pack code started, with its place until it settles or its call ends.
    Started(Option<Place>),
    /// The call ended before its start, holding a place until the queue reaches it.
    Ended(Option<Place>),
    Refused,
}

#[derive(Debug)]
struct State {
    phase: Phase,
    /// The call's body, counted against the queue's budget until the JS thread reaches it.
    queued: Option<Queued>,
    /// A started call's place goes back as the JS thread takes its abort
    /// ([`StartGate::place_goes_with_abort`]), not when the call ends.
    abort_gives_back: bool,
}

/// One lock for every step, so a step on one thread (the call ending on a tokio worker) never
/// falls between two parts of another (its pack code starting on the JS thread).
#[derive(Debug)]
pub struct StartGate {
    admission: Arc<Admission>,
    state: Mutex<State>,
}

impl StartGate {
    pub fn new(admission: Arc<Admission>) -> StartGate {
        StartGate {
            admission,
            state: Mutex::new(State {
                phase: Phase::Queued,
                queued: None,
                abort_gives_back: false,
            }),
        }
    }

    /// The call's body, counted against the queue's budget since it was read, stays counted
    /// until the JS thread reaches the call.
    pub fn queue(&self, body: Queued) {
        if let Ok(mut state) = self.state.lock() {
            state.queued = Some(body);
        }
    }

    /// Where pack code is about to start (the queue reached the call).
    pub fn start(&self) -> Start {
        // A poisoned lock (a panic elsewhere): the call cannot be judged; it does not start.
        let Ok(mut state) = self.state.lock() else {
            return Start::Ended;
        };
        state.queued = None;
        match state.phase {
            Phase::Queued => match self.admission.start() {
                Some(place) => {
                    state.phase = Phase::Started(Some(place));
                    Start::Run
                }
                None => {
                    state.phase = Phase::Refused;
                    Start::Overloaded
                }
            },
            // The place an ended call held while queued goes now.
            Phase::Ended(ref mut held) => {
                held.take();
                Start::Ended
            }
            Phase::Started(_) | Phase::Refused => Start::Ended,
        }
    }

    /// When the call ends (answered, or its caller gone): true when its pack code had not
    /// started, which now never will. A call still queued holds a place until
    /// [`StartGate::start`] is reached (or the gate is gone); started pack code gives its place
    /// back.
    pub fn end(&self) -> bool {
        let Ok(mut state) = self.state.lock() else {
            return false;
        };
        let abort_gives_back = state.abort_gives_back;
        match state.phase {
            Phase::Queued => {
                state.phase = Phase::Ended(Some(self.admission.hold()));
                true
            }
            Phase::Started(ref mut place) => {
                if !abort_gives_back {
                    place.take();
                }
                false
            }
            Phase::Ended(_) | Phase::Refused => true,
        }
    }

    /// From now on a started call's place goes back as the JS thread takes the call's abort
    /// ([`StartGate::take_place`] there), not when the call ends: pack code hears of its abort
    /// before its place goes to another call. The JavaScript runner queues the abort behind
    /// the call, so whatever the order of the deadline, the start and the end on their
    /// threads, no call queued before the abort starts in that place. (A call answered
    /// without an abort has settled, and given its place back then.)
    pub fn place_goes_with_abort(&self) {
        if let Ok(mut state) = self.state.lock() {
            state.abort_gives_back = true;
        }
    }

    /// The place of a call whose pack code started, taken out to be given back: `None` when it
    /// has not started, or gave it back.
    pub fn take_place(&self) -> Option<Place> {
        let mut state = self.state.lock().ok()?;
        match state.phase {
            Phase::Started(ref mut place) => place.take(),
            _ => None,
        }
    }

    /// Pack code settled: its place goes back.
    pub fn settled(&self) {
        drop(self.take_place());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::admission::Admit;

    #[test]
    fn a_place_that_goes_with_the_abort_outlives_the_calls_end_until_the_abort_takes_it() {
        let admission = Admission::new(1);
        // The call's abort came while it was queued; it started on the JS thread, and then it
        // ended on its worker: the place stays until the JS thread takes the abort.
        let gate = StartGate::new(Arc::clone(&admission));
        gate.place_goes_with_abort();
        assert_eq!(gate.start(), Start::Run);
        assert!(!gate.end());
        assert_eq!(admission.places(), 1);
        assert!(
            admission.start().is_none(),
            "no other call starts in its place"
        );
        drop(gate.take_place());
        assert_eq!(admission.places(), 0);
        // Without the abort to give it back, the call's end does.
        let plain = StartGate::new(Arc::clone(&admission));
        assert_eq!(plain.start(), Start::Run);
        assert!(!plain.end());
        assert_eq!(admission.places(), 0);
    }

    #[test]
    fn a_call_that_ends_first_never_starts_and_holds_a_place_until_reached() {
        let admission = Admission::new(1);
        let gate = StartGate::new(Arc::clone(&admission));
        assert_eq!(admission.places(), 0, "a queued call holds no place");
        assert!(gate.end());
        assert_eq!(admission.places(), 1);
        assert!(
            admission.start().is_none(),
            "the held place counts toward the cap"
        );
        assert_eq!(gate.start(), Start::Ended);
        assert_eq!(admission.places(), 0);
    }

    #[test]
    fn started_pack_code_holds_a_place_until_it_settles_or_its_call_ends() {
        let admission = Admission::new(1);
        let gate = StartGate::new(Arc::clone(&admission));
        assert_eq!(gate.start(), Start::Run);
        assert_eq!(admission.places(), 1);
        gate.settled();
        assert_eq!(admission.places(), 0);
        assert!(!gate.end(), "it started");
        assert_eq!(admission.places(), 0);

        let gate = StartGate::new(Arc::clone(&admission));
        assert_eq!(gate.start(), Start::Run);
        assert!(!gate.end());
        assert_eq!(
            admission.places(),
            0,
            "answered: the handler runs on, uncounted"
        );
    }

    #[test]
    fn pack_code_that_would_pass_the_cap_is_refused() {
        let admission = Admission::new(1);
        let first = StartGate::new(Arc::clone(&admission));
        let second = StartGate::new(Arc::clone(&admission));
        assert_eq!(first.start(), Start::Run);
        assert_eq!(second.start(), Start::Overloaded);
        assert!(second.end(), "refused pack code never started");
        assert_eq!(admission.places(), 1);
        first.settled();
        assert_eq!(admission.places(), 0);
    }

    #[test]
    fn a_queued_body_counts_against_the_budget_until_the_queue_reaches_it() {
        let admission = Admission::new(1);
        let gate = StartGate::new(Arc::clone(&admission));
        let waits = |admit: Admit<'_>| matches!(admit, Admit::Wait(_));
        gate.queue(admission.queue(crate::service::admission::QUEUE_BUDGET));
        assert!(waits(admission.admit(0)), "the budget is spent");
        assert_eq!(gate.start(), Start::Run);
        assert!(
            matches!(admission.admit(0), Admit::Admitted(..)),
            "reached: off the budget"
        );
        let unreached = StartGate::new(Arc::clone(&admission));
        unreached.queue(admission.queue(crate::service::admission::QUEUE_BUDGET));
        assert!(waits(admission.admit(0)));
        drop(unreached);
        assert!(
            matches!(admission.admit(0), Admit::Admitted(..)),
            "a gate dropped unreached is off the budget"
        );
    }

    #[test]
    fn a_call_ending_as_its_pack_code_starts_never_keeps_a_running_place() {
        // The two steps on two threads, many times: whichever comes first, once both ran and the
        // call's place is given back, no place is left.
        let admission = Admission::new(usize::MAX);
        for _ in 0..2_000 {
            let gate = Arc::new(StartGate::new(Arc::clone(&admission)));
            let other = Arc::clone(&gate);
            let ender = std::thread::spawn(move || other.end());
            let started = gate.start();
            let ended_first = ender.join().unwrap_or(false);
            assert!(started == Start::Run || ended_first);
            drop(gate);
            assert_eq!(admission.places(), 0);
        }
    }

    #[test]
    fn a_gate_dropped_unreached_gives_its_place_up() {
        let admission = Admission::new(1);
        let gate = StartGate::new(Arc::clone(&admission));
        assert!(gate.end());
        drop(gate);
        assert_eq!(admission.places(), 0);
    }
}

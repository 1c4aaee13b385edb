//! Whether a call's pack code started before the call ended.
//!
//! A JavaScript runner queues each call for the JS thread. While that thread is busy (a
//! handler that computes for a while), calls can end in the queue: their deadline passes, or
//! their caller leaves. Their pack code then never starts (the TypeScript service could not
//! start a handler after answering its call), and each keeps its place among the calls in
//! flight until the queue reaches it, so the work and memory queued behind a busy thread stay
//! bounded by `maxConcurrency` instead of by how fast callers can send.

use crate::service::admission::InFlight;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Mutex;

const QUEUED: u8 = 0;
const STARTED: u8 = 1;
const ENDED: u8 = 2;

#[derive(Debug, Default)]
pub struct StartGate {
    phase: AtomicU8,
    /// The call's place in flight, held from its end until the queue reaches it.
    place: Mutex<Option<InFlight>>,
}

impl StartGate {
    pub fn new() -> StartGate {
        StartGate::default()
    }

    /// Where pack code is about to start: false when its call ended first, and then never
    /// starts; its place is given up now.
    pub fn start(&self) -> bool {
        if self
            .phase
            .compare_exchange(QUEUED, STARTED, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            return true;
        }
        if let Ok(mut place) = self.place.lock() {
            place.take();
        }
        false
    }

    /// When the call ends: true when its pack code had not started, which now never will;
    /// the call keeps `place()` until [`StartGate::start`] is reached (or the gate is gone).
    pub fn end_before_start(&self, place: impl FnOnce() -> InFlight) -> bool {
        // The place is set under the lock that `start` takes after seeing ENDED, so it is
        // always there to be given up.
        let Ok(mut held) = self.place.lock() else {
            return false;
        };
        let ended = self
            .phase
            .compare_exchange(QUEUED, ENDED, Ordering::AcqRel, Ordering::Acquire)
            .is_ok();
        if ended {
            *held = Some(place());
        }
        ended
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::admission::Admission;

    #[test]
    fn a_call_that_ends_first_never_starts_and_holds_its_place_until_reached() {
        let admission = Admission::new(1);
        let gate = StartGate::new();
        assert!(gate.end_before_start(|| admission.hold()));
        assert_eq!(admission.in_flight(), 1);
        assert!(
            admission.admit().is_none(),
            "the held place counts toward the cap"
        );
        assert!(!gate.start());
        assert_eq!(admission.in_flight(), 0);
    }

    #[test]
    fn a_started_call_ends_as_usual_and_holds_nothing() {
        let admission = Admission::new(1);
        let gate = StartGate::new();
        assert!(gate.start());
        assert!(!gate.end_before_start(|| admission.hold()));
        assert_eq!(admission.in_flight(), 0);
    }

    #[test]
    fn a_gate_dropped_unreached_gives_its_place_up() {
        let admission = Admission::new(1);
        let gate = StartGate::new();
        assert!(gate.end_before_start(|| admission.hold()));
        drop(gate);
        assert_eq!(admission.in_flight(), 0);
    }
}

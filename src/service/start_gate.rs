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

use crate::service::admission::{Admission, Place};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

const QUEUED: u8 = 0;
const STARTED: u8 = 1;
const ENDED: u8 = 2;
const REFUSED: u8 = 3;

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
pub struct StartGate {
    admission: Arc<Admission>,
    phase: AtomicU8,
    /// The place of running pack code, from its start until it settles or its call ends.
    running: Mutex<Option<Place>>,
    /// The place of a call that ended before its start, until the queue reaches it.
    held: Mutex<Option<Place>>,
}

impl StartGate {
    pub fn new(admission: Arc<Admission>) -> StartGate {
        StartGate {
            admission,
            phase: AtomicU8::new(QUEUED),
            running: Mutex::new(None),
            held: Mutex::new(None),
        }
    }

    /// Where pack code is about to start.
    pub fn start(&self) -> Start {
        let place = self.admission.start();
        let next = if place.is_some() { STARTED } else { REFUSED };
        match self
            .phase
            .compare_exchange(QUEUED, next, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) if place.is_some() => {
                if let Ok(mut running) = self.running.lock() {
                    *running = place;
                }
                Start::Run
            }
            Ok(_) => Start::Overloaded,
            Err(_) => {
                // Ended first: the place it held while queued goes now.
                if let Ok(mut held) = self.held.lock() {
                    held.take();
                }
                Start::Ended
            }
        }
    }

    /// When the call ends (answered, or its caller gone): true when its pack code had not
    /// started, which now never will. A call still queued holds a place until
    /// [`StartGate::start`] is reached (or the gate is gone); started pack code gives its place
    /// back.
    pub fn end(&self) -> bool {
        // The held place is set under the lock that `start` takes after seeing ENDED, so it is
        // always there to be given up.
        let Ok(mut held) = self.held.lock() else {
            return false;
        };
        match self
            .phase
            .compare_exchange(QUEUED, ENDED, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => {
                *held = Some(self.admission.hold());
                true
            }
            Err(STARTED) => {
                drop(held);
                self.settled();
                false
            }
            // Refused at its start, or ended already.
            Err(_) => true,
        }
    }

    /// Pack code settled: its place goes back.
    pub fn settled(&self) {
        if let Ok(mut running) = self.running.lock() {
            running.take();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn a_gate_dropped_unreached_gives_its_place_up() {
        let admission = Admission::new(1);
        let gate = StartGate::new(Arc::clone(&admission));
        assert!(gate.end());
        drop(gate);
        assert_eq!(admission.places(), 0);
    }
}

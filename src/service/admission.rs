//! Calls in flight, the concurrency cap, readiness and drain.
//!
//! Every call counts *in flight* from admission until its answer is written (or its caller is
//! gone): drain waits for that count to reach zero, by notification instead of polling.
//!
//! The cap counts fewer: only calls that hold a *place*, waiting on something outside the
//! service's own threads. That is what the TypeScript service's count holds: there, a call
//! whose body is in and whose handler answers in the same turn is done before the next
//! request is even read; here it waits its turn for the JS thread among calls read in
//! parallel, and counting that wait refused bursts the TypeScript service serves. Three kinds
//! of place, each kept under the cap with the held ones:
//!
//! - an upload: a request is refused at its head when uploads and held places reach the cap;
//! - running pack code, from its start (on the JS thread) until it settles or its call is
//!   answered: pack code is refused as it starts when running and held places reach the cap;
//! - held: a call answered before its pack code started holds a place until it would have
//!   started (see `StartGate`), so calls that outlive their answers cannot pile up.
//!
//! Uploads and running pack code are capped apart because either lasts only microseconds for
//! a small body and a handler that answers at once, and one seen by the other's check would
//! refuse calls the TypeScript service, on one thread, never sees overlap.
//!
//! Calls whose bodies are in and whose pack code waits its turn hold no place, but their bodies
//! are memory the TypeScript service would not have read yet (its thread busy, they wait in
//! the kernel's socket buffers). They are bounded by bytes instead: past [`QUEUE_BUDGET`] of
//! them, requests are refused at their heads. Uploads still in flight are not counted: the
//! TypeScript service reads those too, and they are bounded by the cap and the body limit, so
//! the queue can pass the budget by the uploads that were under way when it reached it.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;

/// The bytes of bodies queued for the JS thread past which requests are refused at their heads.
pub const QUEUE_BUDGET: usize = 64 << 20;

/// What a queued call counts against the budget at least, its body however small.
const QUEUED_CALL_BYTES: usize = 1024;

#[derive(Debug)]
pub struct Admission {
    max_places: usize,
    uploads: AtomicUsize,
    running: AtomicUsize,
    held: AtomicUsize,
    /// Bytes of bodies queued for the JS thread (see [`Queued`]).
    queued: AtomicUsize,
    in_flight: AtomicUsize,
    warm: AtomicBool,
    draining: AtomicBool,
    idle: Notify,
}

/// One admitted call; dropping it ends the call's count in flight.
#[derive(Debug)]
pub struct InFlight {
    admission: Arc<Admission>,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if self.admission.in_flight.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.admission.idle.notify_waiters();
        }
    }
}

/// A body queued for the JS thread; dropping it takes it off the budget.
#[derive(Debug)]
pub struct Queued {
    admission: Arc<Admission>,
    bytes: usize,
}

impl Drop for Queued {
    fn drop(&mut self) {
        self.admission
            .queued
            .fetch_sub(self.bytes, Ordering::AcqRel);
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Upload,
    Running,
    Held,
}

/// One place under the cap; dropping it gives the place back.
#[derive(Debug)]
pub struct Place {
    admission: Arc<Admission>,
    kind: Kind,
}

impl Drop for Place {
    fn drop(&mut self) {
        self.admission
            .count(self.kind)
            .fetch_sub(1, Ordering::AcqRel);
    }
}

impl Admission {
    pub fn new(max_places: usize) -> Arc<Admission> {
        Arc::new(Admission {
            max_places,
            uploads: AtomicUsize::new(0),
            running: AtomicUsize::new(0),
            held: AtomicUsize::new(0),
            queued: AtomicUsize::new(0),
            in_flight: AtomicUsize::new(0),
            warm: AtomicBool::new(false),
            draining: AtomicBool::new(false),
            idle: Notify::new(),
        })
    }

    /// Counts a request's call in, with a place for its upload, unless uploads and held
    /// places reach the cap.
    pub fn admit(self: &Arc<Self>) -> Option<(InFlight, Place)> {
        if self.queued.load(Ordering::Acquire) >= QUEUE_BUDGET {
            return None;
        }
        let upload = self.take(Kind::Upload)?;
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        let in_flight = InFlight {
            admission: Arc::clone(self),
        };
        Some((in_flight, upload))
    }

    /// A place for pack code about to start, unless running and held places reach the cap.
    pub fn start(self: &Arc<Self>) -> Option<Place> {
        self.take(Kind::Running)
    }

    fn take(self: &Arc<Self>, kind: Kind) -> Option<Place> {
        let held = self.held.load(Ordering::Acquire);
        self.count(kind)
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n.saturating_add(held) < self.max_places).then_some(n + 1)
            })
            .ok()
            .map(|_| Place {
                admission: Arc::clone(self),
                kind,
            })
    }

    /// A place whatever the cap: a call answered while its pack code still waits to start
    /// holds one until it would have started (or is dropped), so that calls that outlive their
    /// answers cannot pile up beyond the cap.
    pub fn hold(self: &Arc<Self>) -> Place {
        self.held.fetch_add(1, Ordering::AcqRel);
        Place {
            admission: Arc::clone(self),
            kind: Kind::Held,
        }
    }

    fn count(&self, kind: Kind) -> &AtomicUsize {
        match kind {
            Kind::Upload => &self.uploads,
            Kind::Running => &self.running,
            Kind::Held => &self.held,
        }
    }

    /// A body of `bytes` queued for the JS thread, counted until the [`Queued`] is dropped.
    pub fn queue(self: &Arc<Self>, bytes: usize) -> Queued {
        let bytes = bytes.max(QUEUED_CALL_BYTES);
        self.queued.fetch_add(bytes, Ordering::AcqRel);
        Queued {
            admission: Arc::clone(self),
            bytes,
        }
    }

    /// Calls admitted and not yet answered.
    pub fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::Acquire)
    }

    /// Places taken under the cap, of every kind.
    pub fn places(&self) -> usize {
        [&self.uploads, &self.running, &self.held]
            .iter()
            .map(|count| count.load(Ordering::Acquire))
            .sum()
    }

    pub fn is_warm(&self) -> bool {
        self.warm.load(Ordering::Acquire)
    }

    /// Set after each prewarm: warm only when every module loaded.
    pub fn set_warm(&self, warm: bool) {
        self.warm.store(warm, Ordering::Release);
    }

    pub fn is_draining(&self) -> bool {
        self.draining.load(Ordering::Acquire)
    }

    /// Stops taking calls, for good: readiness and new invokes answer 503 `draining` from now.
    pub fn stop_taking_calls(&self) {
        self.draining.store(true, Ordering::Release);
    }

    /// Stops taking calls (for good) and waits until none is in flight or `grace` has passed.
    /// Returns whether the service went idle in time.
    pub async fn drain(&self, grace: Duration) -> bool {
        self.stop_taking_calls();
        let idle = async {
            loop {
                let notified = self.idle.notified();
                tokio::pin!(notified);
                // Registered before the check, so a call ending in between still wakes us.
                notified.as_mut().enable();
                if self.in_flight() == 0 {
                    return;
                }
                notified.await;
            }
        };
        tokio::time::timeout(grace, idle).await.is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn caps_places_and_counts_every_call_in_flight() {
        let admission = Admission::new(2);
        let a = admission.admit();
        let b = admission.admit();
        assert!(a.is_some() && b.is_some());
        assert!(admission.admit().is_none());
        assert_eq!(admission.in_flight(), 2);
        // A call whose upload is done gives its place back and stays in flight.
        let (a_in_flight, a_upload) = a.expect("admitted");
        drop(a_upload);
        assert_eq!((admission.in_flight(), admission.places()), (2, 1));
        let c = admission.admit();
        assert!(c.is_some());
        assert_eq!((admission.in_flight(), admission.places()), (3, 2));
        drop(a_in_flight);
        assert_eq!(admission.in_flight(), 2);
        // A held place ignores the cap.
        let _held = admission.hold();
        assert_eq!(admission.places(), 3);
    }

    #[tokio::test]
    async fn uploads_and_running_pack_code_are_capped_apart_with_held_places() {
        let admission = Admission::new(1);
        let running = admission.start();
        assert!(running.is_some());
        assert!(admission.start().is_none());
        let (_in_flight, upload) = admission
            .admit()
            .expect("running pack code refuses no request");
        assert!(admission.admit().is_none(), "an upload refuses the next");
        drop(upload);
        drop(running);
        assert_eq!(admission.places(), 0);
        let _held = admission.hold();
        assert!(admission.admit().is_none() && admission.start().is_none());
    }

    #[tokio::test]
    async fn bodies_queued_past_the_budget_refuse_requests() {
        let admission = Admission::new(usize::MAX);
        let first = admission.queue(QUEUE_BUDGET - 1);
        assert!(admission.admit().is_some());
        let tiny = admission.queue(1);
        assert!(
            admission.admit().is_none(),
            "a tiny body counts for a kilobyte"
        );
        drop(tiny);
        assert!(admission.admit().is_some());
        drop(first);
        assert_eq!(admission.queued.load(Ordering::Acquire), 0);
    }

    #[tokio::test]
    async fn drain_wakes_when_the_last_call_ends() {
        let admission = Admission::new(4);
        let call = admission.admit().map(|(in_flight, _busy)| in_flight);
        let ender = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(30)).await;
            drop(call);
        });
        let started = std::time::Instant::now();
        assert!(admission.drain(Duration::from_secs(5)).await);
        assert!(started.elapsed() < Duration::from_secs(5));
        assert!(admission.is_draining());
        ender.await.expect("the ending task runs");
    }

    #[tokio::test]
    async fn drain_gives_up_after_the_grace() {
        let admission = Admission::new(4);
        let _call = admission.admit().map(|(in_flight, _busy)| in_flight);
        assert!(!admission.drain(Duration::from_millis(20)).await);
        assert_eq!(admission.in_flight(), 1);
    }
}

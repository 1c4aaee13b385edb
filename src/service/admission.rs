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
//! them, requests wait at their heads, their bodies unread, until the JS thread has taken
//! enough of the queue. Where the transport reads a body only once admitted (the service's own
//! server), an upload that declares [`RESERVED_FROM`] bytes or more counts its length against
//! the same budget while it is read: a burst of large bodies is read no further ahead of the JS
//! thread than the budget, the rest left in the kernel as the TypeScript service, its thread
//! busy, leaves them (a body larger than the budget is read once nothing else is held). Smaller
//! uploads, and any upload behind `handle` (Node has read it), are not counted while in flight,
//! so the queue can pass the budget by those under way when it reached it.
//!
//! A request that finds the places taken while uploads are arriving (bytes of one came within
//! [`ARRIVING`]) waits for a place as well rather than being refused: those uploads end by
//! themselves, and the TypeScript service, its thread busy reading them, would have read this
//! request only later. One that finds the uploads stalled, or the places held by calls
//! waiting on the JS thread's queue, is refused, as the TypeScript service, its thread idle,
//! refuses a request while as many calls are in flight; so is one that has waited
//! [`PLACE_WAIT`] for a place (uploads that trickle in keep their places, and that thread,
//! idle between their bytes, would have refused it).
//!
//! Waits are bounded too: past [`MAX_WAITING`] requests at their heads a new one is refused
//! `overloaded`, and an upload declared larger than half the budget, which the budget cannot
//! hold beside the bodies held, cannot be starved by smaller ones admitted after it: once it
//! has waited [`ARRIVING`], it is read past the budget, one such upload at a time.

use std::pin::Pin;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::futures::Notified;
use tokio::sync::Notify;

/// The bytes of bodies queued for the JS thread past which requests wait at their heads: three
/// bodies of the default 10 MiB limit, enough to keep the JS thread fed (it takes one at a
/// time, and they are read far faster than it parses them).
pub const QUEUE_BUDGET: usize = 32 << 20;

/// Uploads count as arriving while bytes of one came this recently: a request waits for their
/// places then, and is refused once they stall.
pub const ARRIVING: Duration = Duration::from_secs(1);

/// What a queued call counts against the budget at least, its body however small.
const QUEUED_CALL_BYTES: usize = 1024;

/// Uploads that declare this length or more reserve it against the budget while they are read
/// (see [`Admission::admit`]); smaller ones cost too little to count.
pub const RESERVED_FROM: usize = 1 << 20;

/// How long a request waits for a place held by uploads still arriving before it is refused.
pub const PLACE_WAIT: Duration = Duration::from_secs(5);

/// Requests waiting at their heads at most; each wake of the room wakes them all.
pub const MAX_WAITING: usize = 1024;

#[derive(Debug)]
pub struct Admission {
    max_places: usize,
    uploads: AtomicUsize,
    running: AtomicUsize,
    held: AtomicUsize,
    /// Bytes of bodies queued for the JS thread (see [`Queued`]).
    queued: AtomicUsize,
    /// Bytes large uploads being read declared (see [`Place`]).
    reading: AtomicUsize,
    in_flight: AtomicUsize,
    warm: AtomicBool,
    draining: AtomicBool,
    idle: Notify,
    /// Requests waiting at their heads (see [`Room`]), and what wakes them.
    waiting: AtomicUsize,
    room: Notify,
    /// Whether an upload is being read past the budget (see [`Admission::admit_on`]).
    overdraft: AtomicBool,
    /// When bytes of an upload last came, in milliseconds from `epoch` and plus one: 0 is
    /// never.
    arrived_ms: AtomicU64,
    epoch: Instant,
    /// [`ARRIVING`], but in tests.
    arriving: Duration,
}

/// What a request's head finds.
#[derive(Debug)]
pub enum Admit<'a> {
    /// Counted in, with a place for its upload.
    Admitted(InFlight, Place),
    /// No room, and none that work under way will make: refused `overloaded`.
    Refused,
    /// No room yet: the request waits for [`Room::made`], its body unread, and asks again.
    Wait(Room<'a>),
}

/// Which look at the room a request's head takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Look {
    /// Its first.
    First,
    /// Another, having waited this long at its head.
    Again(Duration),
}

impl Look {
    fn waited(self) -> Duration {
        match self {
            Look::First => Duration::ZERO,
            Look::Again(waited) => waited,
        }
    }
}

/// A request waiting at its head for a place or for the queue to shrink.
#[derive(Debug)]
pub struct Room<'a> {
    admission: &'a Admission,
    made: Pin<Box<Notified<'a>>>,
}

impl Room<'_> {
    /// Resolves once a place was given back or the queue shrank (or the service stopped
    /// taking calls), or after [`ARRIVING`], to see whether the uploads it waits for stalled:
    /// the request may find room now.
    pub async fn made(mut self) {
        let _ = tokio::time::timeout(self.admission.arriving, self.made.as_mut()).await;
    }
}

impl Drop for Room<'_> {
    fn drop(&mut self) {
        self.admission.waiting.fetch_sub(1, Ordering::SeqCst);
    }
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
            .fetch_sub(self.bytes, Ordering::SeqCst);
        self.admission.wake_waiting();
    }
}

/// Why a request finds no room.
enum Busy {
    Refused,
    Wait,
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
    /// An upload's declared bytes, counted against the budget while it is read.
    reserved: usize,
    /// Whether this upload is the one read past the budget.
    overdraft: bool,
}

impl Place {
    /// The declared bytes counted against the budget while its upload is read.
    pub fn reserved(&self) -> usize {
        self.reserved
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        self.admission
            .reading
            .fetch_sub(self.reserved, Ordering::SeqCst);
        self.admission
            .count(self.kind)
            .fetch_sub(1, Ordering::SeqCst);
        if self.overdraft {
            self.admission.overdraft.store(false, Ordering::SeqCst);
        }
        // Running pack code is not what a head waits for.
        if self.kind != Kind::Running {
            self.admission.wake_waiting();
        }
    }
}

impl Admission {
    pub fn new(max_places: usize) -> Arc<Admission> {
        Admission::arriving_within(max_places, ARRIVING)
    }

    fn arriving_within(max_places: usize, arriving: Duration) -> Arc<Admission> {
        Arc::new(Admission {
            max_places,
            uploads: AtomicUsize::new(0),
            running: AtomicUsize::new(0),
            held: AtomicUsize::new(0),
            queued: AtomicUsize::new(0),
            reading: AtomicUsize::new(0),
            in_flight: AtomicUsize::new(0),
            warm: AtomicBool::new(false),
            draining: AtomicBool::new(false),
            idle: Notify::new(),
            waiting: AtomicUsize::new(0),
            room: Notify::new(),
            overdraft: AtomicBool::new(false),
            arrived_ms: AtomicU64::new(0),
            epoch: Instant::now(),
            arriving,
        })
    }

    /// Milliseconds from `epoch`, plus one.
    fn now_ms(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis())
            .unwrap_or(u64::MAX)
            .saturating_add(1)
    }

    /// Bytes of an upload came.
    pub fn arrived(&self) {
        self.arrived_ms.store(self.now_ms(), Ordering::Relaxed);
    }

    /// Whether uploads hold places and bytes of one came within [`ARRIVING`].
    fn uploads_arriving(&self) -> bool {
        let arrived = self.arrived_ms.load(Ordering::Relaxed);
        self.uploads.load(Ordering::SeqCst) > 0
            && arrived != 0
            && self.now_ms().saturating_sub(arrived)
                <= u64::try_from(self.arriving.as_millis()).unwrap_or(u64::MAX)
    }

    /// Counts a request's call in, with a place for its upload, unless the queue is past its
    /// budget or uploads and held places reach the cap (see the module's notes for which of
    /// those wait and which are refused).
    ///
    /// `declared` is the body's length when the transport reads it only once admitted (0
    /// otherwise): from [`RESERVED_FROM`] on, it counts against the budget while it is read,
    /// and it waits while it would take the bodies held past the budget, unless none is held.
    /// Checked and counted apart, so requests admitted at the same instant can pass the budget
    /// by their bodies.
    pub fn admit(self: &Arc<Self>, declared: usize) -> Admit<'_> {
        self.admit_on(declared, Look::First)
    }

    /// [`Admission::admit`] on a request's `look`: only a first look is refused past
    /// [`MAX_WAITING`]; one that has waited past [`PLACE_WAIT`] no longer waits for a place,
    /// and past [`ARRIVING`] an upload of more than half the budget that it cannot hold beside
    /// the bodies held may be the one read past it.
    pub fn admit_on(self: &Arc<Self>, declared: usize, look: Look) -> Admit<'_> {
        let waited = look.waited();
        let reserved = if declared >= RESERVED_FROM {
            declared
        } else {
            0
        };
        match self.try_admit(reserved, waited) {
            Ok((in_flight, upload)) => return Admit::Admitted(in_flight, upload),
            Err(Busy::Refused) => return Admit::Refused,
            Err(Busy::Wait) => {}
        }
        if look == Look::First && self.waiting.load(Ordering::SeqCst) >= MAX_WAITING {
            return Admit::Refused;
        }
        // Counted and registered before looking again, so that room made in between still
        // wakes it (a place given back after this count sees it; one given back before is
        // seen by the second look).
        self.waiting.fetch_add(1, Ordering::SeqCst);
        let mut made = Box::pin(self.room.notified());
        made.as_mut().enable();
        let room = Room {
            admission: self,
            made,
        };
        match self.try_admit(reserved, waited) {
            Ok((in_flight, upload)) => Admit::Admitted(in_flight, upload),
            Err(Busy::Refused) => Admit::Refused,
            Err(Busy::Wait) => Admit::Wait(room),
        }
    }

    fn try_admit(
        self: &Arc<Self>,
        reserved: usize,
        waited: Duration,
    ) -> Result<(InFlight, Place), Busy> {
        let held = self.queued.load(Ordering::SeqCst) + self.reading.load(Ordering::SeqCst);
        let fits = held == 0 || held.saturating_add(reserved) <= QUEUE_BUDGET;
        // Past half the budget, smaller bodies can keep it from ever holding this one: past
        // its wait, it is read past the budget, if no other is.
        let overdraft = !fits
            && reserved > QUEUE_BUDGET / 2
            && held < QUEUE_BUDGET
            && waited >= self.arriving
            && self
                .overdraft
                .compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok();
        if held >= QUEUE_BUDGET || !(fits || overdraft) {
            return Err(Busy::Wait);
        }
        let Some(mut upload) = self.take(Kind::Upload) else {
            if overdraft {
                self.overdraft.store(false, Ordering::SeqCst);
            }
            return Err(if self.uploads_arriving() && waited < PLACE_WAIT {
                Busy::Wait
            } else {
                Busy::Refused
            });
        };
        self.reading.fetch_add(reserved, Ordering::SeqCst);
        upload.reserved = reserved;
        upload.overdraft = overdraft;
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        let in_flight = InFlight {
            admission: Arc::clone(self),
        };
        Ok((in_flight, upload))
    }

    /// Wakes the requests waiting at their heads, if any, to look again: room was made, or
    /// the JS thread stalled (a wait then ends in `pack code stalled` as a new request would).
    pub fn wake_waiting(&self) {
        if self.waiting.load(Ordering::SeqCst) > 0 {
            self.room.notify_waiters();
        }
    }

    /// A place for pack code about to start, unless running and held places reach the cap.
    pub fn start(self: &Arc<Self>) -> Option<Place> {
        self.take(Kind::Running)
    }

    fn take(self: &Arc<Self>, kind: Kind) -> Option<Place> {
        let held = self.held.load(Ordering::SeqCst);
        self.count(kind)
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n.saturating_add(held) < self.max_places).then_some(n + 1)
            })
            .ok()
            .map(|_| Place {
                admission: Arc::clone(self),
                kind,
                reserved: 0,
                overdraft: false,
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
            reserved: 0,
            overdraft: false,
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

    /// Requests waiting at their heads.
    pub fn waiting(&self) -> usize {
        self.waiting.load(Ordering::SeqCst)
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

    /// Stops taking calls, for good: readiness and new invokes answer 503 `draining` from now,
    /// those waiting at their heads included.
    pub fn stop_taking_calls(&self) {
        self.draining.store(true, Ordering::Release);
        self.room.notify_waiters();
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

    /// The call `admit` counts in, when it does.
    fn admitted(admit: Admit<'_>) -> Option<(InFlight, Place)> {
        match admit {
            Admit::Admitted(in_flight, upload) => Some((in_flight, upload)),
            Admit::Refused | Admit::Wait(_) => None,
        }
    }

    /// Bytes that count as arriving however slow the host.
    const LONG: Duration = Duration::from_secs(3600);

    #[tokio::test]
    async fn caps_places_and_counts_every_call_in_flight() {
        let admission = Admission::arriving_within(2, LONG);
        let a = admitted(admission.admit(0));
        let b = admitted(admission.admit(0));
        assert!(a.is_some() && b.is_some());
        admission.arrived();
        assert!(matches!(admission.admit(0), Admit::Wait(_)));
        assert_eq!(admission.in_flight(), 2);
        // A call whose upload is done gives its place back and stays in flight.
        let (a_in_flight, a_upload) = a.expect("admitted");
        drop(a_upload);
        assert_eq!((admission.in_flight(), admission.places()), (2, 1));
        let c = admitted(admission.admit(0));
        assert!(c.is_some());
        assert_eq!((admission.in_flight(), admission.places()), (3, 2));
        drop(a_in_flight);
        assert_eq!(admission.in_flight(), 2);
        // A held place ignores the cap.
        let _held = admission.hold();
        assert_eq!(admission.places(), 3);
        assert_eq!(admission.waiting.load(Ordering::SeqCst), 0);
    }

    #[tokio::test]
    async fn uploads_and_running_pack_code_are_capped_apart_with_held_places() {
        let admission = Admission::arriving_within(1, LONG);
        let running = admission.start();
        assert!(running.is_some());
        assert!(admission.start().is_none());
        let (_in_flight, upload) =
            admitted(admission.admit(0)).expect("running pack code refuses no request");
        admission.arrived();
        assert!(
            matches!(admission.admit(0), Admit::Wait(_)),
            "an upload arriving makes the next wait"
        );
        drop(upload);
        drop(running);
        assert_eq!(admission.places(), 0);
        let _held = admission.hold();
        assert!(
            matches!(admission.admit(0), Admit::Refused),
            "held places alone refuse"
        );
        assert!(admission.start().is_none());
    }

    #[tokio::test]
    async fn a_request_waits_for_the_place_of_an_upload_arriving() {
        let admission = Admission::arriving_within(1, LONG);
        let (_in_flight, upload) = admitted(admission.admit(0)).expect("admitted");
        assert!(matches!(admission.admit(0), Admit::Refused), "no bytes yet");
        admission.arrived();
        let Admit::Wait(room) = admission.admit(0) else {
            panic!("the upload takes the only place");
        };
        let made = tokio::spawn({
            let admission = Arc::clone(&admission);
            async move {
                let Admit::Wait(room) = admission.admit(0) else {
                    return None;
                };
                room.made().await;
                admitted(admission.admit(0))
            }
        });
        while admission.waiting.load(Ordering::SeqCst) < 2 {
            tokio::task::yield_now().await;
        }
        drop(upload);
        let taken = made.await.expect("the waiting task ends");
        assert!(taken.is_some(), "the place is its");
        // The other woke too, and finds it taken: it waits again.
        room.made().await;
        assert!(matches!(admission.admit(0), Admit::Wait(_)));
        assert_eq!(admission.waiting.load(Ordering::SeqCst), 0);
    }

    #[tokio::test]
    async fn a_request_is_refused_once_the_uploads_stall() {
        let admission = Admission::arriving_within(1, Duration::from_millis(20));
        let _upload = admitted(admission.admit(0)).expect("admitted");
        admission.arrived();
        tokio::time::sleep(Duration::from_millis(60)).await;
        assert!(matches!(admission.admit(0), Admit::Refused));
        // A waiting request looks again once the window has passed, woken or not.
        admission.arrived();
        if let Admit::Wait(room) = admission.admit(0) {
            room.made().await;
            tokio::time::sleep(Duration::from_millis(60)).await;
            assert!(matches!(admission.admit(0), Admit::Refused));
        };
    }

    #[tokio::test]
    async fn bodies_queued_past_the_budget_make_requests_wait() {
        let admission = Admission::arriving_within(usize::MAX, LONG);
        let first = admission.queue(QUEUE_BUDGET - 1);
        assert!(admitted(admission.admit(0)).is_some());
        let tiny = admission.queue(1);
        let Admit::Wait(room) = admission.admit(0) else {
            panic!("a tiny body counts for a kilobyte");
        };
        drop(tiny);
        room.made().await;
        assert!(admitted(admission.admit(0)).is_some());
        drop(first);
        assert_eq!(admission.queued.load(Ordering::Acquire), 0);
        // Waiting ends when the service stops taking calls.
        let _full = admission.queue(QUEUE_BUDGET);
        let Admit::Wait(room) = admission.admit(0) else {
            panic!("the budget is spent");
        };
        admission.stop_taking_calls();
        room.made().await;
    }

    #[tokio::test]
    async fn large_uploads_reserve_their_length_while_they_are_read() {
        let admission = Admission::arriving_within(usize::MAX, LONG);
        let half = QUEUE_BUDGET / 2;
        let first = admitted(admission.admit(half)).expect("nothing held yet");
        let second = admitted(admission.admit(half - RESERVED_FROM)).expect("within the budget");
        let Admit::Wait(room) = admission.admit(RESERVED_FROM + 1) else {
            panic!("past the budget, a large upload waits");
        };
        assert!(
            admitted(admission.admit(RESERVED_FROM - 1)).is_some(),
            "a small one reserves nothing"
        );
        // Read: its bytes move to the queue before its reservation ends.
        let (_first_call, first_upload) = first;
        let queued = admission.queue(half);
        drop(first_upload);
        assert!(matches!(admission.admit(RESERVED_FROM + 1), Admit::Wait(_)));
        drop(queued);
        room.made().await;
        assert!(admitted(admission.admit(RESERVED_FROM + 1)).is_some());
        drop(second);
        // With nothing held, a body larger than the budget is read all the same.
        let admission = Admission::arriving_within(usize::MAX, LONG);
        let huge = admitted(admission.admit(2 * QUEUE_BUDGET));
        assert!(huge.is_some());
        assert!(matches!(admission.admit(RESERVED_FROM), Admit::Wait(_)));
        drop(huge);
        assert!(admitted(admission.admit(RESERVED_FROM)).is_some());
    }

    #[tokio::test]
    async fn a_request_waits_for_a_place_no_longer_than_place_wait() {
        let admission = Admission::arriving_within(1, LONG);
        let _upload = admitted(admission.admit(0)).expect("admitted");
        // Bytes keep coming, as from an upload that trickles in.
        admission.arrived();
        let just_under = PLACE_WAIT - Duration::from_millis(1);
        assert!(matches!(
            admission.admit_on(0, Look::Again(just_under)),
            Admit::Wait(_)
        ));
        assert!(matches!(
            admission.admit_on(0, Look::Again(PLACE_WAIT)),
            Admit::Refused
        ));
    }

    #[tokio::test]
    async fn past_max_waiting_a_new_request_is_refused_and_one_waiting_looks_again() {
        let admission = Admission::arriving_within(usize::MAX, LONG);
        let _full = admission.queue(QUEUE_BUDGET);
        let rooms: Vec<Admit<'_>> = (0..MAX_WAITING).map(|_| admission.admit(0)).collect();
        assert!(rooms.iter().all(|admit| matches!(admit, Admit::Wait(_))));
        assert!(matches!(admission.admit(0), Admit::Refused));
        let looking_again = admission.admit_on(0, Look::Again(Duration::from_millis(1)));
        assert!(matches!(looking_again, Admit::Wait(_)));
        drop(looking_again);
        drop(rooms);
        assert_eq!(admission.waiting.load(Ordering::SeqCst), 0);
        assert!(matches!(admission.admit(0), Admit::Wait(_)));
    }

    #[tokio::test]
    async fn an_upload_the_budget_cannot_hold_beside_others_is_read_past_it_one_at_a_time() {
        let arriving = Duration::from_millis(20);
        let admission = Admission::arriving_within(usize::MAX, arriving);
        // Steady traffic: a small body always queued.
        let small = admission.queue(1);
        let large = QUEUE_BUDGET / 2 + 1;
        let held_back = admission.queue(QUEUE_BUDGET / 2);
        assert!(matches!(admission.admit(large), Admit::Wait(_)));
        let first = admitted(admission.admit_on(large, Look::Again(arriving)));
        let (_first_call, first_upload) = first.expect("past its wait, read past the budget");
        drop(held_back);
        // No room beside it, and the overdraft is taken: the second waits however long.
        assert!(matches!(
            admission.admit_on(large, Look::Again(arriving)),
            Admit::Wait(_)
        ));
        assert!(
            matches!(
                admission.admit_on(QUEUE_BUDGET, Look::Again(arriving)),
                Admit::Wait(_)
            ),
            "one at a time"
        );
        drop(first_upload);
        // Its body is queued now: the budget is spent, and nothing is read past it.
        let queued = admission.queue(QUEUE_BUDGET);
        assert!(matches!(
            admission.admit_on(QUEUE_BUDGET, Look::Again(arriving)),
            Admit::Wait(_)
        ));
        drop(queued);
        assert!(admitted(admission.admit_on(QUEUE_BUDGET, Look::Again(arriving))).is_some());
        // Half the budget or less waits for room however long: a burst of them is read no
        // further ahead than the budget.
        let half = admission.queue(QUEUE_BUDGET / 2 + 1);
        let waited = Duration::from_secs(60);
        assert!(matches!(
            admission.admit_on(QUEUE_BUDGET / 2, Look::Again(waited)),
            Admit::Wait(_)
        ));
        drop(half);
        drop(small);
    }

    #[tokio::test]
    async fn drain_wakes_when_the_last_call_ends() {
        let admission = Admission::new(4);
        let call = admitted(admission.admit(0)).map(|(in_flight, _upload)| in_flight);
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
        let _call = admitted(admission.admit(0)).map(|(in_flight, _upload)| in_flight);
        assert!(!admission.drain(Duration::from_millis(20)).await);
        assert_eq!(admission.in_flight(), 1);
    }
}

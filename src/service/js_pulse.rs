//! Whether the JS thread still takes turns: the pack service's watchdog.
//!
//! HTTP runs on Rust's threads, so the probes would answer while pack code holds the JS thread
//! for good (a `for(;;)`, a handler that busy-waits). The JS thread counts a turn each time it
//! takes something from the dispatcher's queue (a call, an abort, or a ping). A thread with no
//! work is idle, not stalled: after [`PING_AFTER`] without a turn the watch queues a ping, and
//! the thread is stalled from then until it takes a turn. Under load calls are turns, so no ping
//! is sent at all; the cost on the JS thread is one relaxed add a dispatch.

use crate::log::Logger;
use crate::service::js_threads::JsThreads;
use serde_json::{Map, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long the JS thread may go without a turn before the watch asks it for one.
pub const PING_AFTER: Duration = Duration::from_millis(250);

/// How often the watch looks.
pub const WATCH_EVERY: Duration = Duration::from_millis(100);

/// How long the JS thread may be unable to take a turn before `/readyz` and new calls answer
/// 503: far above a garbage collection's pause, below the readiness probe's period.
pub const READY_LIMIT: Duration = Duration::from_millis(1000);

/// `KINDGI_PACK_SERVICE_STALL_MS`'s default: past it `/healthz` answers 503, so that a
/// liveness probe restarts a process whose pack code is stuck.
pub const DEFAULT_STALL_MS: u64 = 10_000;

/// No ping out (see [`JsPulse::ping_sent_ms`]).
const NO_PING: u64 = u64::MAX;

/// The JS thread's turns, and the ping it has not answered yet.
#[derive(Debug)]
pub struct JsPulse {
    origin: Instant,
    /// Turns taken, counted on the JS thread.
    turns: AtomicU64,
    /// When the ping still out was sent (ms since `origin`), or [`NO_PING`].
    ping_sent_ms: AtomicU64,
    /// [`JsPulse::turns`] when that ping was sent: any turn since answers it.
    turns_at_ping: AtomicU64,
}

impl Default for JsPulse {
    fn default() -> Self {
        JsPulse {
            origin: Instant::now(),
            turns: AtomicU64::new(0),
            ping_sent_ms: AtomicU64::new(NO_PING),
            turns_at_ping: AtomicU64::new(0),
        }
    }
}

impl JsPulse {
    /// The JS thread took a turn. Called on that thread.
    pub fn turn(&self) {
        self.turns.fetch_add(1, Ordering::Relaxed);
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.origin.elapsed().as_millis()).unwrap_or(NO_PING - 1)
    }

    /// How long the JS thread has been unable to take a turn: zero unless a ping is out and no
    /// turn came since.
    pub fn stalled_for(&self) -> Duration {
        let sent = self.ping_sent_ms.load(Ordering::Acquire);
        if sent == NO_PING
            || self.turns.load(Ordering::Relaxed) != self.turns_at_ping.load(Ordering::Acquire)
        {
            return Duration::ZERO;
        }
        Duration::from_millis(self.now_ms().saturating_sub(sent))
    }

    /// Marks a ping sent now, unless one is out already; true when the caller is to send it.
    fn start_ping(&self) -> bool {
        if self.ping_sent_ms.load(Ordering::Acquire) != NO_PING {
            return false;
        }
        self.turns_at_ping
            .store(self.turns.load(Ordering::Relaxed), Ordering::Release);
        self.ping_sent_ms.store(self.now_ms(), Ordering::Release);
        true
    }

    fn clear_ping(&self) {
        self.ping_sent_ms.store(NO_PING, Ordering::Release);
    }
}

/// What the watch reports when a stall starts or ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StallChange {
    /// The thread has not taken a turn for [`READY_LIMIT`]; `for_ms` so far.
    Stalled { for_ms: u64 },
    /// A turn came after a stall that lasted `for_ms`.
    Resumed { for_ms: u64 },
}

/// The watch's state between looks: the turns last seen, and whether a stall was reported.
#[derive(Debug)]
pub struct StallWatch {
    seen_turns: u64,
    last_turn: Instant,
    /// The stall reported and not yet ended, from its ping.
    reported: Option<Instant>,
}

impl Default for StallWatch {
    fn default() -> Self {
        StallWatch {
            seen_turns: 0,
            last_turn: Instant::now(),
            reported: None,
        }
    }
}

impl StallWatch {
    /// One look at `pulse` at `now`: queues a ping through `ping` when the thread has been
    /// quiet for [`PING_AFTER`], and says when a stall passes [`READY_LIMIT`] or ends.
    pub fn look(
        &mut self,
        pulse: &JsPulse,
        now: Instant,
        ping: impl FnOnce() -> bool,
    ) -> Option<StallChange> {
        let turns = pulse.turns.load(Ordering::Relaxed);
        if turns != self.seen_turns {
            self.seen_turns = turns;
            self.last_turn = now;
            pulse.clear_ping();
            return self.reported.take().map(|since| StallChange::Resumed {
                for_ms: millis(now.saturating_duration_since(since)),
            });
        }
        if now.saturating_duration_since(self.last_turn) >= PING_AFTER
            && pulse.start_ping()
            && !ping()
        {
            // Not queued (the functions are released): nothing can answer it.
            pulse.clear_ping();
        }
        let stalled = pulse.stalled_for();
        if self.reported.is_none() && stalled > READY_LIMIT {
            self.reported = Some(now.checked_sub(stalled).unwrap_or(now));
            return Some(StallChange::Stalled {
                for_ms: millis(stalled),
            });
        }
        None
    }
}

/// Watches every thread of `threads` every [`WATCH_EVERY`] until dropped, pinging a quiet one
/// through `ping(index)` and writing a `js-stalled` record when its stall passes
/// [`READY_LIMIT`] and `js-resumed` when it ends. With more than one thread, each record names
/// its thread (`thread`: 0 is the main thread). `stalled` runs as a stall passes the limit, so
/// that requests waiting at their heads for the thread's queue look at readiness again at once.
pub async fn watch(
    threads: Arc<JsThreads>,
    records: Option<Logger>,
    ping: impl Fn(usize) -> bool,
    stalled: impl Fn(),
) {
    let mut watches: Vec<StallWatch> = Vec::new();
    let mut every = tokio::time::interval(WATCH_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        let count = threads.len();
        watches.resize_with(count, StallWatch::default);
        for (index, watch) in watches.iter_mut().enumerate() {
            let Some(thread) = threads.get(index) else {
                continue;
            };
            let Some(change) = watch.look(&thread.pulse, Instant::now(), || ping(index)) else {
                continue;
            };
            if matches!(change, StallChange::Stalled { .. }) {
                stalled();
            }
            if let Some(records) = &records {
                let thread = (count > 1).then_some(index);
                let every_held = threads.all_stalled_for() > READY_LIMIT;
                let (kind, message, for_ms) = stall_record(change, thread, every_held);
                let mut fields = Map::new();
                fields.insert("stalledMs".into(), Value::from(for_ms));
                if let Some(thread) = thread {
                    // With `threads`, a reader (the supervisor) tells when every one is held.
                    fields.insert("thread".into(), Value::from(thread));
                    fields.insert("threads".into(), Value::from(threads.live()));
                }
                records.lifecycle(kind, &message, fields);
            }
        }
    }
}

/// A stall change's record: its kind, message and length so far; `thread` names the thread
/// when there are several, and `every_held` says whether each of them is held now (readiness
/// then answers 503).
fn stall_record(
    change: StallChange,
    thread: Option<usize>,
    every_held: bool,
) -> (&'static str, String, u64) {
    let name = match thread {
        None => "the JS thread".to_owned(),
        Some(0) => "the main JS thread".to_owned(),
        Some(index) => format!("JS worker thread {index}"),
    };
    match change {
        StallChange::Stalled { for_ms } => {
            let answer = match (thread, every_held) {
                (None, _) => "/readyz and new calls answer 503 until it lets go",
                (Some(_), false) => "it takes no new calls until it lets go",
                (Some(_), true) => {
                    "every JS thread is held: /readyz and new calls answer 503 until one lets go"
                }
            };
            (
                "js-stalled",
                format!("Pack code has held {name} for {for_ms} ms: {answer}"),
                for_ms,
            )
        }
        StallChange::Resumed { for_ms } => {
            let name = match name.strip_prefix("the ") {
                Some(rest) => format!("The {rest}"),
                None => name,
            };
            (
                "js-resumed",
                format!("{name} took a turn again after a {for_ms} ms stall"),
                for_ms,
            )
        }
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_idle_thread_is_pinged_and_stalled_only_until_a_turn_answers() {
        let pulse = JsPulse::default();
        let mut watch = StallWatch::default();
        let start = Instant::now();
        let mut pings = 0;
        assert_eq!(watch.look(&pulse, start, || unreachable!()), None);
        // Quiet for PING_AFTER: one ping, and one only while it is out.
        let later = start + PING_AFTER;
        assert_eq!(
            watch.look(&pulse, later, || {
                pings += 1;
                true
            }),
            None
        );
        assert_eq!(watch.look(&pulse, later, || unreachable!()), None);
        assert_eq!(pings, 1);
        // A turn answers it: not stalled, and the next look sees the turn.
        pulse.turn();
        assert_eq!(pulse.stalled_for(), Duration::ZERO);
        assert_eq!(watch.look(&pulse, later, || unreachable!()), None);
    }

    #[test]
    fn a_ping_left_unanswered_is_a_stall_reported_once_then_its_end() {
        let pulse = JsPulse::default();
        let mut watch = StallWatch::default();
        let start = Instant::now();
        watch.look(&pulse, start + PING_AFTER, || true);
        std::thread::sleep(READY_LIMIT + Duration::from_millis(50));
        let now = Instant::now();
        assert!(pulse.stalled_for() > READY_LIMIT);
        let Some(StallChange::Stalled { for_ms }) = watch.look(&pulse, now, || unreachable!())
        else {
            panic!("the stall is reported");
        };
        assert!(for_ms > 1000);
        assert_eq!(watch.look(&pulse, now, || unreachable!()), None, "once");
        pulse.turn();
        let Some(StallChange::Resumed { for_ms }) =
            watch.look(&pulse, now + Duration::from_millis(500), || unreachable!())
        else {
            panic!("the end is reported");
        };
        assert!(for_ms >= 1500, "{for_ms}");
        assert_eq!(pulse.stalled_for(), Duration::ZERO);
    }

    #[test]
    fn a_stall_record_says_what_answers_503() {
        let stalled = StallChange::Stalled { for_ms: 1100 };
        let message = |thread, every_held| stall_record(stalled, thread, every_held).1;
        assert_eq!(
            message(None, true),
            "Pack code has held the JS thread for 1100 ms: /readyz and new calls answer 503 until it lets go"
        );
        assert_eq!(
            message(Some(0), false),
            "Pack code has held the main JS thread for 1100 ms: it takes no new calls until it lets go"
        );
        assert_eq!(
            message(Some(2), true),
            "Pack code has held JS worker thread 2 for 1100 ms: every JS thread is held: /readyz and new calls answer 503 until one lets go"
        );
        let resumed = stall_record(StallChange::Resumed { for_ms: 40 }, Some(0), false);
        assert_eq!(
            resumed,
            (
                "js-resumed",
                "The main JS thread took a turn again after a 40 ms stall".to_owned(),
                40
            )
        );
    }

    #[test]
    fn a_ping_that_cannot_be_queued_is_no_stall() {
        let pulse = JsPulse::default();
        let mut watch = StallWatch::default();
        watch.look(&pulse, Instant::now() + PING_AFTER, || false);
        assert_eq!(pulse.ping_sent_ms.load(Ordering::Acquire), NO_PING);
        assert_eq!(pulse.stalled_for(), Duration::ZERO);
    }
}

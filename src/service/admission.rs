//! Calls in flight, readiness and drain.
//!
//! A call counts from admission until its answer is written (or its caller is gone), so the
//! count includes the body upload, as in the TypeScript service. Drain waits for the count to
//! reach zero by notification instead of polling.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;

#[derive(Debug)]
pub struct Admission {
    max_in_flight: usize,
    in_flight: AtomicUsize,
    warm: AtomicBool,
    draining: AtomicBool,
    idle: Notify,
}

/// One admitted call; dropping it ends the call's count.
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

impl Admission {
    pub fn new(max_in_flight: usize) -> Arc<Admission> {
        Arc::new(Admission {
            max_in_flight,
            in_flight: AtomicUsize::new(0),
            warm: AtomicBool::new(false),
            draining: AtomicBool::new(false),
            idle: Notify::new(),
        })
    }

    /// Counts a call in, unless the cap is reached.
    pub fn admit(self: &Arc<Self>) -> Option<InFlight> {
        self.in_flight
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < self.max_in_flight).then_some(n + 1)
            })
            .ok()
            .map(|_| InFlight {
                admission: Arc::clone(self),
            })
    }

    /// Counts in, whatever the cap, a call admitted before whose request has ended while its
    /// pack code still waits to start: until it starts (or is dropped) it holds its place, so
    /// that calls that outlive their answers cannot pile up beyond the cap.
    pub fn hold(self: &Arc<Self>) -> InFlight {
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        InFlight {
            admission: Arc::clone(self),
        }
    }

    pub fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::Acquire)
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
    async fn caps_and_counts() {
        let admission = Admission::new(2);
        let a = admission.admit();
        let b = admission.admit();
        assert!(a.is_some() && b.is_some());
        assert!(admission.admit().is_none());
        assert_eq!(admission.in_flight(), 2);
        drop(a);
        assert_eq!(admission.in_flight(), 1);
        assert!(admission.admit().is_some());
    }

    #[tokio::test]
    async fn drain_wakes_when_the_last_call_ends() {
        let admission = Admission::new(4);
        let call = admission.admit();
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
        let _call = admission.admit();
        assert!(!admission.drain(Duration::from_millis(20)).await);
        assert_eq!(admission.in_flight(), 1);
    }
}

//! The calls on their way to each child, counted by its port. The front counts a call against
//! the child it chose before sending it, so the lifecycle retires a child that stopped serving
//! only once no call that chose it is still out: a call that picked the old child the moment a
//! swap began would otherwise reach it draining (503) or gone (502).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::Notify;

#[derive(Default)]
pub struct CallsToChildren {
    counts: Mutex<HashMap<u16, usize>>,
    finished: Notify,
}

/// One call counted against a child until dropped.
pub struct CountedCall {
    calls: Arc<CallsToChildren>,
    port: u16,
}

impl CallsToChildren {
    /// Counts a call against the child on `port` until the guard drops.
    pub fn count(self: &Arc<Self>, port: u16) -> CountedCall {
        if let Ok(mut counts) = self.counts.lock() {
            *counts.entry(port).or_default() += 1;
        }
        CountedCall {
            calls: Arc::clone(self),
            port,
        }
    }

    fn out_to(&self, port: u16) -> usize {
        self.counts
            .lock()
            .map_or(0, |counts| counts.get(&port).copied().unwrap_or(0))
    }

    /// Resolves once no call counted against `port` is out.
    pub async fn none_out_to(&self, port: u16) {
        loop {
            let finished = self.finished.notified();
            if self.out_to(port) == 0 {
                return;
            }
            finished.await;
        }
    }
}

impl Drop for CountedCall {
    fn drop(&mut self) {
        if let Ok(mut counts) = self.calls.counts.lock() {
            if let Some(count) = counts.get_mut(&self.port) {
                *count -= 1;
                if *count == 0 {
                    counts.remove(&self.port);
                    // Only the last call out to a child ends a wait: the others need not wake it.
                    self.calls.finished.notify_waiters();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn waits_for_the_calls_out_to_a_port_and_no_others() {
        let calls = Arc::new(CallsToChildren::default());
        let first = calls.count(1);
        let second = calls.count(1);
        let other = calls.count(2);
        tokio::time::timeout(Duration::from_millis(50), calls.none_out_to(3))
            .await
            .expect("no call is out to port 3");
        let waiting = tokio::spawn({
            let calls = Arc::clone(&calls);
            async move { calls.none_out_to(1).await }
        });
        drop(first);
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiting.is_finished(), "one call is still out to port 1");
        drop(second);
        tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("the wait ends with the last call")
            .expect("the wait did not panic");
        assert_eq!(calls.out_to(2), 1);
        drop(other);
        assert_eq!(calls.out_to(2), 0);
    }
}

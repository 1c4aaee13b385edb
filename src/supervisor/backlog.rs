//! How many of the child's lines and the supervisor's events are on their way to JavaScript.
//!
//! The child's pipes are read in Rust and every line crosses to the JS thread. A child that
//! writes faster than the owner's `onLog` takes its lines would otherwise fill the parent's
//! memory with lines still to deliver (the TypeScript supervisor reads them on the JS thread,
//! so the pipe fills and the child waits). Readers wait while the backlog is full; each
//! delivery leaves it when JavaScript has taken it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use tokio::sync::Notify;

/// Lines and events on their way to JavaScript before the child's pipes are left unread.
pub const BACKLOG_LIMIT: u64 = 1024;

#[derive(Debug, Default)]
pub struct Backlog {
    entered: AtomicU64,
    delivered: AtomicU64,
    progress: Notify,
}

/// One line or event on its way; dropping it (once JavaScript has it, or when it cannot be
/// delivered) counts it delivered.
pub struct Delivery(Arc<Backlog>);

impl Drop for Delivery {
    fn drop(&mut self) {
        self.0.delivered.fetch_add(1, Ordering::AcqRel);
        self.0.progress.notify_waiters();
    }
}

impl Backlog {
    pub fn enter(self: &Arc<Self>) -> Delivery {
        self.entered.fetch_add(1, Ordering::AcqRel);
        Delivery(Arc::clone(self))
    }

    /// How many have entered so far: a mark to wait for with [`Backlog::delivered_through`].
    pub fn entered(&self) -> u64 {
        self.entered.load(Ordering::Acquire)
    }

    fn pending(&self) -> u64 {
        self.entered()
            .saturating_sub(self.delivered.load(Ordering::Acquire))
    }

    /// Resolves once fewer than [`BACKLOG_LIMIT`] are on their way.
    pub async fn room(&self) {
        self.until(|backlog| backlog.pending() < BACKLOG_LIMIT)
            .await;
    }

    /// Resolves once `mark` deliveries have been made (they are made in order: one queue,
    /// one JS thread).
    pub async fn delivered_through(&self, mark: u64) {
        self.until(|backlog| backlog.delivered.load(Ordering::Acquire) >= mark)
            .await;
    }

    async fn until(&self, done: impl Fn(&Self) -> bool) {
        loop {
            let progress = self.progress.notified();
            if done(self) {
                return;
            }
            progress.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn readers_wait_while_the_backlog_is_full() {
        let backlog = Arc::new(Backlog::default());
        let mut held: Vec<Delivery> = (0..BACKLOG_LIMIT).map(|_| backlog.enter()).collect();
        let waiting = tokio::time::timeout(Duration::from_millis(20), backlog.room()).await;
        assert!(
            waiting.is_err(),
            "no room while {BACKLOG_LIMIT} are on their way"
        );
        held.pop();
        backlog.room().await;
        let mark = backlog.entered();
        let late = tokio::time::timeout(Duration::from_millis(20), backlog.delivered_through(mark));
        assert!(late.await.is_err());
        held.clear();
        backlog.delivered_through(mark).await;
    }
}

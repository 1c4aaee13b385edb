//! How many of the child's lines and the supervisor's events are on their way to JavaScript.
//!
//! The child's pipes are read in Rust and every line crosses to the JS thread. A child that
//! writes faster than the owner's `onLog` takes its lines would otherwise fill the parent's
//! memory with lines still to deliver (the TypeScript supervisor reads them on the JS thread,
//! so the pipe fills and the child waits). Readers wait while the backlog is full, by count
//! or by bytes; each delivery leaves it when JavaScript has taken it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use tokio::sync::Notify;

/// Lines and events on their way to JavaScript before the child's pipes are left unread.
pub const BACKLOG_LIMIT: u64 = 1024;

/// Bytes of lines and events on their way to JavaScript before the child's pipes are left
/// unread. The count alone let 1,024 lines of up to 64 MiB each wait (64 GiB; see
/// docs/design.md, *Memory*). 1,024 ordinary lines (a few hundred
/// bytes each) stay far under it, so it binds only on long lines. A line bigger than this
/// still passes once the backlog is empty: readers wait before they read, not before a line
/// enters.
pub const BACKLOG_BYTES: u64 = 16 * 1024 * 1024;

#[derive(Debug, Default)]
pub struct Backlog {
    entered: AtomicU64,
    delivered: AtomicU64,
    /// Bytes of the deliveries still on their way.
    bytes: AtomicU64,
    progress: Notify,
}

/// One line or event on its way, and its size; dropping it (once JavaScript has it, or when it
/// cannot be delivered) counts it delivered.
pub struct Delivery {
    backlog: Arc<Backlog>,
    bytes: u64,
}

impl Drop for Delivery {
    fn drop(&mut self) {
        // Before `delivered`: a waiter that sees the count sees the bytes gone too.
        self.backlog.bytes.fetch_sub(self.bytes, Ordering::AcqRel);
        self.backlog.delivered.fetch_add(1, Ordering::AcqRel);
        self.backlog.progress.notify_waiters();
    }
}

impl Backlog {
    /// One line or event of `bytes` (as it crosses to JavaScript) on its way.
    pub fn enter(self: &Arc<Self>, bytes: usize) -> Delivery {
        let bytes = u64::try_from(bytes).unwrap_or(u64::MAX);
        self.bytes.fetch_add(bytes, Ordering::AcqRel);
        self.entered.fetch_add(1, Ordering::AcqRel);
        Delivery {
            backlog: Arc::clone(self),
            bytes,
        }
    }

    /// How many have entered so far: a mark to wait for with [`Backlog::delivered_through`].
    pub fn entered(&self) -> u64 {
        self.entered.load(Ordering::Acquire)
    }

    fn pending(&self) -> u64 {
        self.entered()
            .saturating_sub(self.delivered.load(Ordering::Acquire))
    }

    /// Bytes on their way.
    fn pending_bytes(&self) -> u64 {
        self.bytes.load(Ordering::Acquire)
    }

    /// Resolves once fewer than [`BACKLOG_LIMIT`] deliveries, holding fewer than
    /// [`BACKLOG_BYTES`], are on their way.
    pub async fn room(&self) {
        self.until(|backlog| {
            backlog.pending() < BACKLOG_LIMIT && backlog.pending_bytes() < BACKLOG_BYTES
        })
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

/// Texts on their way to JavaScript, sent in batches: one call at a time carries, as one string,
/// every text queued since the call before it. A child serving under load writes a record per
/// call, and one crossing each cost its supervisor about 19 us a line.
#[derive(Default)]
pub struct Outbox {
    state: std::sync::Mutex<Queued>,
}

#[derive(Default)]
struct Queued {
    batch: Batch,
    /// A batch is on its way: what comes meanwhile waits for the next.
    in_flight: bool,
}

/// Texts joined by line feeds (no text holds one: a line ends at one, and JSON escapes it),
/// and their deliveries.
#[derive(Default)]
pub struct Batch {
    pub texts: String,
    pub deliveries: Vec<Delivery>,
}

impl Outbox {
    fn queued(&self) -> std::sync::MutexGuard<'_, Queued> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Queues `text`; gives the batch to send now when none is on its way.
    pub fn push(&self, text: &str, delivery: Delivery) -> Option<Batch> {
        let mut queued = self.queued();
        if !queued.batch.texts.is_empty() {
            queued.batch.texts.push('\n');
        }
        queued.batch.texts.push_str(text);
        queued.batch.deliveries.push(delivery);
        (!std::mem::replace(&mut queued.in_flight, true)).then(|| std::mem::take(&mut queued.batch))
    }

    /// Once the batch on its way was taken (or could not be sent): the next one to send, or
    /// none, and then nothing is on its way.
    pub fn next(&self) -> Option<Batch> {
        let mut queued = self.queued();
        if queued.batch.deliveries.is_empty() {
            queued.in_flight = false;
            return None;
        }
        Some(std::mem::take(&mut queued.batch))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn readers_wait_while_the_backlog_is_full() {
        let backlog = Arc::new(Backlog::default());
        let mut held: Vec<Delivery> = (0..BACKLOG_LIMIT).map(|_| backlog.enter(10)).collect();
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

    #[tokio::test]
    async fn readers_wait_while_the_backlog_holds_its_bytes() {
        let no_room = |backlog: &Arc<Backlog>| {
            let backlog = Arc::clone(backlog);
            async move {
                tokio::time::timeout(Duration::from_millis(20), backlog.room())
                    .await
                    .is_err()
            }
        };
        let backlog = Arc::new(Backlog::default());
        // One line bigger than the budget passes an empty backlog, then holds it.
        let huge = backlog.enter(BACKLOG_BYTES as usize * 3);
        assert!(
            no_room(&backlog).await,
            "no room behind a line over the budget"
        );
        drop(huge);
        backlog.room().await;
        // Three 8 MiB lines, far under the count: full at two.
        let line = 8 * 1024 * 1024;
        let first = backlog.enter(line);
        backlog.room().await;
        let second = backlog.enter(line);
        assert!(no_room(&backlog).await, "no room with 16 MiB on their way");
        drop(first);
        backlog.room().await;
        drop(second);
        assert_eq!(backlog.pending_bytes(), 0);
        assert_eq!(backlog.pending(), 0);
    }

    #[test]
    fn texts_queued_while_a_batch_is_on_its_way_go_together_in_the_next() {
        let backlog = Arc::new(Backlog::default());
        let outbox = Outbox::default();
        let first = outbox
            .push("a", backlog.enter(1))
            .expect("nothing on its way");
        assert_eq!((first.texts.as_str(), first.deliveries.len()), ("a", 1));
        assert!(outbox.push("b", backlog.enter(1)).is_none());
        assert!(outbox.push("{\"c\":1}", backlog.enter(7)).is_none());
        assert_eq!(backlog.pending(), 3);
        drop(first);
        assert_eq!(backlog.pending(), 2);
        let second = outbox.next().expect("two waited");
        assert_eq!(second.texts, "b\n{\"c\":1}");
        drop(second);
        assert_eq!((backlog.pending(), backlog.pending_bytes()), (0, 0));
        assert!(outbox.next().is_none(), "nothing left: nothing on its way");
        let third = outbox
            .push("d", backlog.enter(1))
            .expect("sent at once again");
        assert_eq!(third.texts, "d");
    }
}

//! Large request bodies: parsed and checked a few at a time, with their worker marked busy.
//!
//! A body parsed into `serde_json::Value` takes far more memory than its text (72 bytes per
//! element with ordered maps), several times what V8 holds for the same array (figures in
//! docs/design.md, *Large bodies*). With `maxConcurrency` such calls at once that would be
//! tens of GB, so bodies of [`LARGE`] and more share a
//! budget of [`BUDGET`] bytes of text, each taking at least half: at most two are in that
//! state at a time (one of the largest), and smaller bodies never wait. While a large body is parsed or checked (up to a second of
//! CPU), its tokio worker is marked blocking, so other connections move to another thread.

use std::sync::Arc;
use tokio::runtime::{Handle, RuntimeFlavor};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Bodies from this size on take their turn.
pub const LARGE: usize = 1 << 20;

/// How many bytes of large bodies are parsed and checked at once.
pub const BUDGET: usize = 16 << 20;

#[derive(Debug)]
pub struct LargeBodies {
    budget: Arc<Semaphore>,
}

/// A body's turn: held while its parsed form is built and checked.
#[derive(Debug)]
pub struct Turn {
    permit: Option<OwnedSemaphorePermit>,
}

impl Default for LargeBodies {
    fn default() -> Self {
        LargeBodies {
            budget: Arc::new(Semaphore::new(BUDGET)),
        }
    }
}

impl LargeBodies {
    /// Waits for a body of `len` bytes to have its turn (at once for a small one). A body
    /// larger than the budget takes the whole of it.
    pub async fn turn(&self, len: usize) -> Turn {
        if len < LARGE {
            return Turn { permit: None };
        }
        // At least half the budget each: at most two at a time, as many as the workers would
        // parse at once anyway (a turn's work hands its worker on, so more would run).
        let wanted = u32::try_from(len.clamp(BUDGET / 2, BUDGET)).unwrap_or(u32::MAX);
        // The semaphore is never closed, so this only fails if it were.
        let permit = Arc::clone(&self.budget)
            .acquire_many_owned(wanted)
            .await
            .ok();
        Turn { permit }
    }
}

impl Turn {
    /// Runs CPU-bound `work` for the body: marked blocking when the body is large and the
    /// runtime has other workers to take over.
    pub fn run<T>(&self, work: impl FnOnce() -> T) -> T {
        let multi_threaded = || {
            Handle::try_current()
                .is_ok_and(|handle| handle.runtime_flavor() == RuntimeFlavor::MultiThread)
        };
        if self.permit.is_some() && multi_threaded() {
            tokio::task::block_in_place(work)
        } else {
            work()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn small_bodies_never_wait_and_large_ones_share_the_budget() {
        let bodies = LargeBodies::default();
        // The smallest large body still takes half: two at most at once.
        let (a, b) = (bodies.turn(LARGE).await, bodies.turn(LARGE).await);
        let third = tokio::time::timeout(Duration::from_millis(50), bodies.turn(LARGE)).await;
        assert!(third.is_err(), "a third waits");
        drop((a, b));
        let first = bodies.turn(BUDGET + 1).await;
        // The budget is taken: another large body waits, a small one does not.
        let small = tokio::time::timeout(Duration::from_millis(50), bodies.turn(LARGE - 1)).await;
        assert!(small.is_ok());
        let waiting = tokio::time::timeout(Duration::from_millis(50), bodies.turn(LARGE)).await;
        assert!(
            waiting.is_err(),
            "a large body waits while the budget is taken"
        );
        drop(first);
        let second = tokio::time::timeout(Duration::from_millis(50), bodies.turn(LARGE)).await;
        // Its work runs inline on this single-threaded runtime.
        assert_eq!(second.map(|turn| turn.run(|| 3)).ok(), Some(3));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_large_bodys_work_runs_marked_blocking() {
        let bodies = LargeBodies::default();
        let turn = bodies.turn(LARGE).await;
        assert_eq!(turn.run(|| 7), 7);
    }
}

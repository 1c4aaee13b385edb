//! Large request bodies: parsed and checked one at a time, with their worker marked busy.
//!
//! A parsed body can take many times the memory of its text, and of what V8 makes of it
//! (figures in docs/design.md, *Large bodies*). With `maxConcurrency` such calls at once that
//! would be tens of GB, and even two at once cost more than the TypeScript service holds for a
//! whole burst of them, so bodies of [`LARGE`] and more take turns, one at a time; smaller
//! bodies never wait. While a large body is parsed or checked (up to a second of CPU), its tokio worker is
//! marked blocking, so other connections move to another thread.

use std::sync::Arc;
use tokio::runtime::{Handle, RuntimeFlavor};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Bodies from this size on take their turn.
pub const LARGE: usize = 1 << 20;

#[derive(Debug)]
pub struct LargeBodies {
    turns: Arc<Semaphore>,
}

/// A body's turn: held while its parsed form is built and checked.
#[derive(Debug)]
pub struct Turn {
    permit: Option<OwnedSemaphorePermit>,
}

impl Default for LargeBodies {
    fn default() -> Self {
        LargeBodies {
            turns: Arc::new(Semaphore::new(1)),
        }
    }
}

impl LargeBodies {
    /// Waits for a body of `len` bytes to have its turn (at once for a small one).
    pub async fn turn(&self, len: usize) -> Turn {
        if len < LARGE {
            return Turn { permit: None };
        }
        // The semaphore is never closed, so this only fails if it were.
        let permit = Arc::clone(&self.turns).acquire_owned().await.ok();
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
    async fn small_bodies_never_wait_and_large_ones_take_turns() {
        let bodies = LargeBodies::default();
        let first = bodies.turn(LARGE).await;
        // The turn is taken: another large body waits, a small one does not.
        let small = tokio::time::timeout(Duration::from_millis(50), bodies.turn(LARGE - 1)).await;
        assert!(small.is_ok());
        let waiting = tokio::time::timeout(Duration::from_millis(50), bodies.turn(LARGE)).await;
        assert!(waiting.is_err(), "a second large body waits for the first");
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

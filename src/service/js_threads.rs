//! The JS threads pack code runs on (`KINDGI_PACK_SERVICE_WORKERS`): the main thread, and with
//! workers the `worker_threads` that joined it. Each has its own pulse (see `js_pulse`) and its
//! count of calls in flight; a call goes to the thread with the fewest, and a held thread
//! takes none while another is not held.

use crate::service::js_pulse::{JsPulse, PING_AFTER};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

/// One JS thread: its turns and its calls in flight.
#[derive(Debug, Default)]
pub struct JsThread {
    pub pulse: Arc<JsPulse>,
    in_flight: AtomicUsize,
    /// A worker thread found ended (its dispatcher closed): never picked or watched again.
    gone: AtomicBool,
}

impl JsThread {
    /// A worker thread that can take no call: a pool stopped after a listen failed, say.
    pub fn mark_gone(&self) {
        self.gone.store(true, Ordering::Relaxed);
    }

    fn is_gone(&self) -> bool {
        self.gone.load(Ordering::Relaxed)
    }

    pub fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::Relaxed)
    }

    /// Held: its ping has gone unanswered for as long as it waited to send it. A ping only
    /// just out is no reason to pass a thread by (a busy host may be slow to run it).
    fn stalled(&self) -> bool {
        self.pulse.stalled_for() >= PING_AFTER
    }
}

/// A call's place on its thread: counted in flight until dropped.
#[derive(Debug)]
pub struct OnThread {
    pub index: usize,
    pub thread: Arc<JsThread>,
}

impl Drop for OnThread {
    fn drop(&mut self) {
        self.thread.in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Every JS thread of one service, the main thread first (index 0).
#[derive(Debug)]
pub struct JsThreads {
    threads: RwLock<Vec<Arc<JsThread>>>,
}

impl Default for JsThreads {
    fn default() -> Self {
        JsThreads {
            threads: RwLock::new(vec![Arc::default()]),
        }
    }
}

impl JsThreads {
    /// Runs `f` over the threads, read in place (a call's pick allocates nothing).
    fn with<T>(&self, f: impl FnOnce(&[Arc<JsThread>]) -> T) -> T {
        match self.threads.read() {
            Ok(threads) => f(&threads),
            Err(poisoned) => f(&poisoned.into_inner()),
        }
    }

    /// Adds a thread; its index.
    pub fn join(&self) -> (usize, Arc<JsThread>) {
        let thread = Arc::<JsThread>::default();
        let mut threads = match self.threads.write() {
            Ok(threads) => threads,
            Err(poisoned) => poisoned.into_inner(),
        };
        threads.push(Arc::clone(&thread));
        (threads.len() - 1, thread)
    }

    pub fn len(&self) -> usize {
        self.with(<[_]>::len)
    }

    /// The threads that can take calls (not gone).
    pub fn live(&self) -> usize {
        self.with(|threads| threads.iter().filter(|t| !t.is_gone()).count())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Thread `index`, if it joined.
    pub fn get(&self, index: usize) -> Option<Arc<JsThread>> {
        self.with(|threads| threads.get(index).cloned())
    }

    /// The thread a new call goes to, counted in flight there: the one with the fewest calls
    /// among those not held (the first of equals), or among all when every one is held.
    pub fn pick(&self) -> OnThread {
        self.with(|threads| {
            let fewest = |stalled_too: bool| {
                threads
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| !t.is_gone() && (stalled_too || !t.stalled()))
                    .min_by_key(|(_, t)| t.in_flight())
                    .map(|(index, thread)| (index, Arc::clone(thread)))
            };
            let (index, thread) = fewest(false)
                .or_else(|| fewest(true))
                .unwrap_or_else(|| (0, Arc::default()));
            thread.in_flight.fetch_add(1, Ordering::Relaxed);
            OnThread { index, thread }
        })
    }

    /// How long every thread has been unable to take a turn: the shortest stall, so zero while
    /// any thread takes turns (readiness and new calls).
    pub fn all_stalled_for(&self) -> Duration {
        self.with(|threads| {
            threads
                .iter()
                .filter(|t| !t.is_gone())
                .map(|t| t.pulse.stalled_for())
                .min()
                .unwrap_or(Duration::ZERO)
        })
    }

    /// The longest stall of any thread (`/healthz`: a thread past the limit is stuck).
    pub fn any_stalled_for(&self) -> Duration {
        self.with(|threads| {
            threads
                .iter()
                .filter(|t| !t.is_gone())
                .map(|t| t.pulse.stalled_for())
                .max()
                .unwrap_or(Duration::ZERO)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::js_pulse::StallWatch;
    use std::time::Instant;

    /// Leaves `thread` with a ping out and unanswered for long enough, as a held thread has.
    fn hold(thread: &JsThread) {
        StallWatch::default().look(&thread.pulse, Instant::now() + PING_AFTER, || true);
        std::thread::sleep(PING_AFTER + Duration::from_millis(10));
    }

    #[test]
    fn a_ping_only_just_out_does_not_pass_a_thread_by() {
        let threads = JsThreads::default();
        threads.join();
        let main = threads.get(0).expect("the main thread");
        StallWatch::default().look(&main.pulse, Instant::now() + PING_AFTER, || true);
        assert_eq!(threads.pick().index, 0);
    }

    #[test]
    fn one_thread_takes_every_call() {
        let threads = JsThreads::default();
        let first = threads.pick();
        let second = threads.pick();
        assert_eq!((first.index, second.index), (0, 0));
        assert_eq!(first.thread.in_flight(), 2);
        drop(first);
        assert_eq!(second.thread.in_flight(), 1);
    }

    #[test]
    fn a_call_goes_to_the_thread_with_the_fewest_in_flight() {
        let threads = JsThreads::default();
        assert_eq!(threads.join().0, 1);
        assert_eq!(threads.join().0, 2);
        let mut calls: Vec<OnThread> = (0..3).map(|_| threads.pick()).collect();
        let indices: Vec<usize> = calls.iter().map(|c| c.index).collect();
        assert_eq!(indices, [0, 1, 2]);
        drop(calls.remove(1));
        // Thread 1's call ended: it has the fewest now.
        let next = threads.pick();
        assert_eq!(next.index, 1);
    }

    #[test]
    fn a_gone_thread_is_neither_picked_nor_watched() {
        let threads = JsThreads::default();
        let (_, worker) = threads.join();
        hold(&worker);
        worker.mark_gone();
        assert_eq!(threads.any_stalled_for(), Duration::ZERO);
        let calls: Vec<OnThread> = (0..3).map(|_| threads.pick()).collect();
        assert!(calls.iter().all(|c| c.index == 0));
    }

    #[test]
    fn a_stalled_thread_takes_no_call_while_another_does() {
        let threads = JsThreads::default();
        let (_, worker) = threads.join();
        hold(&threads.get(0).expect("the main thread"));
        assert!(threads.any_stalled_for() > Duration::ZERO);
        assert_eq!(threads.all_stalled_for(), Duration::ZERO);
        let calls: Vec<OnThread> = (0..3).map(|_| threads.pick()).collect();
        assert!(calls.iter().all(|c| c.index == 1));
        // Both held: the call goes where the fewest are, and every thread is stalled.
        hold(&worker);
        assert!(threads.all_stalled_for() > Duration::ZERO);
        assert_eq!(threads.pick().index, 0);
    }
}

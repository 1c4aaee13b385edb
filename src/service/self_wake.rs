//! Polling a connection's future again at once when it wakes itself while being polled.
//!
//! hyper hands a request's body to the handler through a channel inside the connection's own
//! task: reading the body wakes that task while it runs (the reader asks for data, the
//! dispatcher sends it). tokio takes a task woken during its own poll for one that yields: it
//! queues it behind the others and wakes another worker to steal it, two `futex` calls and a
//! thread woken for nothing on every request with a body. Polled again here instead, the
//! connection goes on where it is; a future that keeps waking itself still yields after
//! [`MAX_REPOLLS`] polls, as tokio would have it.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};

/// Polls in a row for one poll of the task, before it yields. A request wakes its connection
/// once or twice while it is polled; more is a future that yields on purpose (tokio's
/// cooperative budget spent, say), and polling it again would be wasted.
pub const MAX_REPOLLS: usize = 4;

const IDLE: u8 = 0;
const POLLING: u8 = 1;
/// Woken while being polled: the poller polls again.
const WOKEN: u8 = 2;

/// The waker the inner future sees. A wake while the future is being polled is kept for the
/// poller; any other goes to the task.
struct Shared {
    state: AtomicU8,
    task: Mutex<Option<Waker>>,
}

impl Wake for Shared {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        match self
            .state
            .compare_exchange(POLLING, WOKEN, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) | Err(WOKEN) => {}
            Err(_) => {
                if let Ok(task) = self.task.lock() {
                    if let Some(task) = task.as_ref() {
                        task.wake_by_ref();
                    }
                }
            }
        }
    }
}

/// `inner`, polled again at once when it wakes itself while being polled.
pub struct RepollSelfWakes<F> {
    inner: Pin<Box<F>>,
    shared: Arc<Shared>,
    waker: Waker,
}

impl<F: Future> RepollSelfWakes<F> {
    pub fn new(inner: F) -> RepollSelfWakes<F> {
        let shared = Arc::new(Shared {
            state: AtomicU8::new(IDLE),
            task: Mutex::new(None),
        });
        RepollSelfWakes {
            inner: Box::pin(inner),
            waker: Waker::from(Arc::clone(&shared)),
            shared,
        }
    }
}

impl<F: Future> Future for RepollSelfWakes<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.get_mut();
        if let Ok(mut task) = this.shared.task.lock() {
            if !task.as_ref().is_some_and(|t| t.will_wake(cx.waker())) {
                *task = Some(cx.waker().clone());
            }
        }
        let mut own = Context::from_waker(&this.waker);
        for _ in 0..MAX_REPOLLS {
            this.shared.state.store(POLLING, Ordering::Release);
            if let Poll::Ready(out) = this.inner.as_mut().poll(&mut own) {
                this.shared.state.store(IDLE, Ordering::Release);
                return Poll::Ready(out);
            }
            let settled = this.shared.state.compare_exchange(
                POLLING,
                IDLE,
                Ordering::AcqRel,
                Ordering::Acquire,
            );
            if settled.is_ok() {
                // Not woken meanwhile: a later wake goes to the task.
                return Poll::Pending;
            }
        }
        this.shared.state.store(IDLE, Ordering::Release);
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// Counts the wakes a task gets.
    #[derive(Default)]
    struct Counted(AtomicUsize);

    impl Wake for Counted {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// Wakes itself on each of its first `times` polls, then is ready with its poll count.
    struct WakesItself {
        times: usize,
        polls: usize,
    }

    impl Future for WakesItself {
        type Output = usize;
        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<usize> {
            self.polls += 1;
            if self.polls > self.times {
                return Poll::Ready(self.polls);
            }
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }

    fn wakes_itself(times: usize) -> RepollSelfWakes<WakesItself> {
        RepollSelfWakes::new(WakesItself { times, polls: 0 })
    }

    #[test]
    fn a_future_that_wakes_itself_is_polled_again_without_waking_the_task() {
        let task = Arc::new(Counted::default());
        let waker = Waker::from(Arc::clone(&task));
        let mut cx = Context::from_waker(&waker);
        let mut future = wakes_itself(3);
        assert_eq!(Pin::new(&mut future).poll(&mut cx), Poll::Ready(4));
        assert_eq!(task.0.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn one_that_keeps_waking_itself_yields_as_the_task() {
        let task = Arc::new(Counted::default());
        let waker = Waker::from(Arc::clone(&task));
        let mut cx = Context::from_waker(&waker);
        let mut future = wakes_itself(MAX_REPOLLS + 2);
        assert_eq!(Pin::new(&mut future).poll(&mut cx), Poll::Pending);
        assert_eq!(task.0.load(Ordering::SeqCst), 1, "woken once, to yield");
        assert_eq!(
            Pin::new(&mut future).poll(&mut cx),
            Poll::Ready(MAX_REPOLLS + 3)
        );
    }

    #[test]
    fn a_wake_between_polls_reaches_the_task_even_from_another_thread() {
        let task = Arc::new(Counted::default());
        let waker = Waker::from(Arc::clone(&task));
        let mut cx = Context::from_waker(&waker);
        // Pending on its first poll without waking itself, ready on the next.
        let seen: Arc<Mutex<Option<Waker>>> = Arc::default();
        let mut first = true;
        let mut future = RepollSelfWakes::new(std::future::poll_fn({
            let seen = Arc::clone(&seen);
            move |cx: &mut Context<'_>| {
                if let Ok(mut seen) = seen.lock() {
                    *seen = Some(cx.waker().clone());
                }
                if std::mem::take(&mut first) {
                    Poll::Pending
                } else {
                    Poll::Ready(())
                }
            }
        }));
        assert_eq!(Pin::new(&mut future).poll(&mut cx), Poll::Pending);
        assert_eq!(task.0.load(Ordering::SeqCst), 0);
        let inner_waker = seen.lock().ok().and_then(|w| w.clone()).expect("a waker");
        std::thread::spawn(move || inner_waker.wake())
            .join()
            .expect("the waking thread");
        assert_eq!(task.0.load(Ordering::SeqCst), 1);
        assert_eq!(Pin::new(&mut future).poll(&mut cx), Poll::Ready(()));
    }
}

//! SIGTERM for the pack service process, kept on Rust's threads so that it ends the process
//! whatever pack code does with the JS thread.
//!
//! Before the service listens, SIGTERM ends the process as the signal does. Once it listens,
//! SIGTERM stops new calls at once (`/readyz` and invokes answer 503 `draining`), writes the
//! `draining` record, drains the calls in flight for up to the budget, closes every connection
//! and writes `stopped`. The JS thread then lets the process exit with 0, as it always did; if
//! it cannot (pack code holds it), the process exits with 0 from here shortly after.

use crate::log::Logger;
use crate::service::core::PackService;
use crate::service::server::SharedListening;
use serde_json::Map;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::runtime::Handle;
use tokio::sync::watch;

/// How long the JS thread has, once `stopped` is written, to end the process itself (running
/// its `exit` listeners) before it is ended from here.
pub const EXIT_GRACE: Duration = Duration::from_millis(500);

/// How the process ends from here: the real ones in `service::sigterm`, a recording fake in
/// tests.
pub trait ProcessEnd: Send + Sync + 'static {
    /// Ends the process as SIGTERM's default action does.
    fn as_signal(&self);
    /// Ends the process with `code`, whatever its threads are doing.
    fn exit(&self, code: i32);
}

enum State {
    Booting,
    Serving {
        service: Arc<PackService>,
        listening: SharedListening,
        runtime: Handle,
    },
    Stopping,
}

pub struct Termination {
    budget: Duration,
    /// Lifecycle records: subsystem `pack`, no other bindings.
    records: Logger,
    state: Mutex<State>,
    stopped: watch::Sender<bool>,
    end: Arc<dyn ProcessEnd>,
}

impl Termination {
    pub fn new(budget: Duration, records: Logger, end: Arc<dyn ProcessEnd>) -> Termination {
        Termination {
            budget,
            records,
            state: Mutex::new(State::Booting),
            stopped: watch::Sender::new(false),
            end,
        }
    }

    /// The service listens: SIGTERM drains it from now on. Said before the `listening` record,
    /// so a SIGTERM that follows the record at once drains.
    pub fn serve(&self, service: Arc<PackService>, listening: SharedListening, runtime: Handle) {
        if let Ok(mut state) = self.state.lock() {
            if matches!(*state, State::Booting) {
                *state = State::Serving {
                    service,
                    listening,
                    runtime,
                };
            }
        }
    }

    /// SIGTERM came (on the signal's thread). A second one while draining changes nothing.
    pub fn signalled(&self) {
        let state = match self.state.lock() {
            Ok(mut state) => std::mem::replace(&mut *state, State::Stopping),
            Err(_) => return,
        };
        match state {
            State::Booting => self.end.as_signal(),
            State::Stopping => {}
            State::Serving {
                service,
                listening,
                runtime,
            } => {
                service.admission().stop_taking_calls();
                self.records.lifecycle(
                    "draining",
                    "Draining: finishing the calls in flight",
                    Map::new(),
                );
                let (budget, records) = (self.budget, self.records.clone());
                let (stopped, end) = (self.stopped.clone(), Arc::clone(&self.end));
                runtime.spawn(async move {
                    let taken = listening.lock().await.take();
                    match taken {
                        Some(listening) => listening.stop(budget).await,
                        None => {
                            service.admission().drain(budget).await;
                        }
                    }
                    records.lifecycle("stopped", "Stopped", Map::new());
                    records.flush();
                    stopped.send_replace(true);
                    tokio::time::sleep(EXIT_GRACE).await;
                    end.exit(0);
                });
            }
        }
    }

    /// Resolves once `stopped` is written.
    pub async fn stopped(&self) {
        let mut stopped = self.stopped.subscribe();
        // An error is a sender gone, which `self` holds: never.
        let _ = stopped.wait_for(|done| *done).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::{LogSettings, Sink};
    use crate::service::test_service::empty_service as service;
    use std::sync::atomic::{AtomicI32, Ordering};

    struct Ends {
        /// -1: none yet; 143: as the signal; else the exit code.
        how: AtomicI32,
    }

    impl ProcessEnd for Ends {
        fn as_signal(&self) {
            self.how.store(143, Ordering::SeqCst);
        }
        fn exit(&self, code: i32) {
            self.how.store(code, Ordering::SeqCst);
        }
    }

    fn termination(budget: Duration) -> (Termination, Arc<Ends>, Arc<Mutex<Vec<String>>>) {
        let lines = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&lines);
        let sink: Sink = Arc::new(move |line: &str| {
            if let Ok(mut lines) = kept.lock() {
                lines.push(line.to_owned());
            }
        });
        let ends = Arc::new(Ends {
            how: AtomicI32::new(-1),
        });
        let logger = Logger::new(LogSettings::default(), sink);
        let ended: Arc<dyn ProcessEnd> = ends.clone();
        (Termination::new(budget, logger, ended), ends, lines)
    }

    fn wrote(lines: &Mutex<Vec<String>>, kind: &str) -> bool {
        let field = format!("\"kind\":\"{kind}\"");
        lines
            .lock()
            .map(|l| l.iter().any(|line| line.contains(&field)))
            .unwrap_or(false)
    }

    #[test]
    fn before_listening_sigterm_ends_the_process_as_the_signal_does() {
        let (termination, ends, lines) = termination(Duration::from_secs(8));
        termination.signalled();
        assert_eq!(ends.how.load(Ordering::SeqCst), 143);
        assert!(!wrote(&lines, "draining"));
    }

    #[tokio::test]
    async fn once_serving_sigterm_drains_writes_its_records_and_exits_0() {
        let (termination, ends, lines) = termination(Duration::from_millis(200));
        let service = service();
        // A call in flight that never ends: the drain gives up after the budget.
        let _call = service.admission().admit(0);
        termination.serve(
            Arc::clone(&service),
            SharedListening::default(),
            Handle::current(),
        );
        termination.signalled();
        assert!(
            service.admission().is_draining(),
            "503 from the moment of the signal"
        );
        assert!(wrote(&lines, "draining"));
        assert!(!wrote(&lines, "stopped"), "not before the budget is spent");
        // A second SIGTERM changes nothing.
        termination.signalled();
        termination.stopped().await;
        assert!(wrote(&lines, "stopped"));
        assert_eq!(
            ends.how.load(Ordering::SeqCst),
            -1,
            "the JS thread's turn first"
        );
        tokio::time::sleep(EXIT_GRACE + Duration::from_millis(200)).await;
        assert_eq!(ends.how.load(Ordering::SeqCst), 0);
    }
}

//! One call to pack code, as the service hands it to a [`Runner`]: what to run, the parsed
//! request, and the call's abort (its deadline passed, or its caller went away).

use crate::json::{member_of, to_js_json};
use crate::protocol::{PackErrorCode, PackErrorMessage};
use crate::service::catalog::{Check, Tool};
use crate::service::http::Reply;
use crate::service::start_gate::StartGate;
use serde_json::{Map, Value};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use tokio::sync::Notify;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AbortReason {
    DeadlineExceeded,
    Cancelled,
}

impl AbortReason {
    pub fn as_str(self) -> &'static str {
        match self {
            AbortReason::DeadlineExceeded => "deadline-exceeded",
            AbortReason::Cancelled => "cancelled",
        }
    }
}

/// The abort of one call: set once, observable by polling or by waiting.
#[derive(Debug, Clone, Default)]
pub struct CallAbort {
    inner: Arc<AbortState>,
}

#[derive(Default)]
struct AbortState {
    reason: OnceLock<AbortReason>,
    fired: Notify,
    /// Run once, on the thread that aborts, before `abort` returns (see `on_abort`).
    hook: Mutex<Option<AbortHook>>,
}

type AbortHook = Box<dyn FnOnce(AbortReason) + Send>;

impl std::fmt::Debug for AbortState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AbortState")
            .field("reason", &self.reason.get())
            .finish_non_exhaustive()
    }
}

impl CallAbort {
    pub fn new() -> CallAbort {
        CallAbort::default()
    }

    /// Aborts the call; the first reason sticks.
    pub fn abort(&self, reason: AbortReason) {
        if self.inner.reason.set(reason).is_ok() {
            self.run_hook(reason);
            self.inner.fired.notify_waiters();
        }
    }

    /// Runs `hook` when the call is aborted, on the thread that aborts it and before `abort`
    /// returns (at once if it is aborted already): for what must happen before the call's
    /// place under the cap goes to another call, which follows its abort.
    pub fn on_abort(&self, hook: impl FnOnce(AbortReason) + Send + 'static) {
        if let Ok(mut slot) = self.inner.hook.lock() {
            *slot = Some(Box::new(hook));
        }
        // Stored, then the reason read: an abort in between runs the hook, or this does.
        if let Some(reason) = self.reason() {
            self.run_hook(reason);
        }
    }

    fn run_hook(&self, reason: AbortReason) {
        let hook = self.inner.hook.lock().ok().and_then(|mut slot| slot.take());
        if let Some(hook) = hook {
            hook(reason);
        }
    }

    pub fn reason(&self) -> Option<AbortReason> {
        self.inner.reason.get().copied()
    }

    /// Resolves once the call is aborted.
    pub async fn aborted(&self) -> AbortReason {
        loop {
            let fired = self.inner.fired.notified();
            tokio::pin!(fired);
            fired.as_mut().enable();
            if let Some(reason) = self.reason() {
                return reason;
            }
            fired.await;
        }
    }
}

/// What a call runs.
#[derive(Debug, Clone)]
pub enum Target {
    Tool(Arc<Tool>),
    Check(Arc<Check>),
}

impl Target {
    /// `tool` or `check`: the word records and events use.
    pub fn word(&self) -> &'static str {
        match self {
            Target::Tool(_) => "tool",
            Target::Check(_) => "check",
        }
    }
}

/// One admitted, parsed call.
#[derive(Debug, Clone)]
pub struct Call {
    pub target: Target,
    /// The request message as parsed, its input's defaults filled (`input`, `ctx`, `config`,
    /// `trace` are read from it); `null` for a runner that does not read it
    /// ([`Runner::reads_message`]).
    pub message: Value,
    /// The request body as received: what a JavaScript runner parses, so it sees exactly what
    /// `JSON.parse` makes of the caller's bytes, without a re-serialization in between.
    pub body: String,
    /// The id the caller asked for (a check's requested id, a tool's id).
    pub id: String,
    /// The call's log bindings, when the runner's `ctx.log` needs them.
    pub bindings: Option<Arc<Map<String, Value>>>,
    /// The defaults the tool's input schema filled into `message`'s input, as
    /// `validate::defaults_json` writes them (a JavaScript runner applies them to the input it
    /// parses from `body`); `None` when the input is used as sent (or the call is a check's).
    pub defaults_json: Option<String>,
    /// Where the call's pack code starts, under the concurrency cap: a runner that queues
    /// calls asks it when pack code is about to start (see [`Runner::queues_calls`]).
    pub start: Arc<StartGate>,
}

impl Call {
    /// A tool's input as JSON text, its defaults filled: what a Rust runner hands its handler
    /// (the JavaScript runner parses the body and fills the defaults itself).
    pub fn input_json(&self) -> String {
        to_js_json(member_of(&self.message, "input").unwrap_or(&Value::Null))
    }
}

/// What running pack code gave.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// The whole response message as compact JSON (`result` or `check-result`).
    Message(String),
    Error(PackErrorMessage),
    /// An error message already written as JSON (by the JS runner), with its code.
    ErrorJson {
        code: PackErrorCode,
        json: String,
    },
    /// The service itself failed on this call (an answer JSON cannot hold): a 500 whose
    /// `error` is `reason`. The call is recorded with the answer's `code` (a `handler-throw`
    /// whose error JSON cannot write), `ok` without one, as TypeScript records it before
    /// writing fails.
    Failed {
        reason: String,
        code: Option<PackErrorCode>,
    },
    /// A tool handler's output, not yet checked against the tool's output schema.
    Output(ToolOutput),
    /// A transport answer and no call record: refused before pack code started (503
    /// `overloaded` when the cap was reached as it was to start, `draining` once the service
    /// stopped), or a failure TypeScript's service lets escape the call (500: what its runner
    /// throws, such as validation on a schema that recurses forever, a Zod schema or a module
    /// getter that throws).
    Transport(Reply),
}

/// What a tool handler returned, as JSON text.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// The output with what JSON cannot hold marked (`validate::MARKER_KEY`): what the schema judges.
    pub marked: String,
    /// The whole `result` message, when the output held something JSON writes differently
    /// than the schema sees it (`undefined`, `NaN`, a `Date`); else it is built from `marked`.
    pub response: Option<String>,
    /// Why the output cannot be written as JSON (a BigInt): the call fails with a 500 once the
    /// output passed its schema.
    pub unwritable: Option<String>,
}

impl Answer {
    /// The service's 500 with `reason`, recorded as `ok`.
    pub fn failed(reason: String) -> Answer {
        Answer::Failed { reason, code: None }
    }

    /// `ok` or the error code: the call's outcome in events and records.
    pub fn outcome(&self) -> &'static str {
        match self {
            Answer::Message(_) | Answer::Output(_) | Answer::Failed { code: None, .. } => "ok",
            Answer::Failed {
                code: Some(code), ..
            } => code.as_str(),
            Answer::Error(error) => error.code.as_str(),
            Answer::ErrorJson { code, .. } => code.as_str(),
            Answer::Transport(_) => "refused",
        }
    }
}

/// A runner's report once pack code settled.
#[derive(Debug, Clone, PartialEq)]
pub struct Settled {
    pub answer: Answer,
    /// The handler ended because of its abort (it rejected with the abort's reason or an
    /// `AbortError`): it did not ignore the abort, so its call is not "finished late".
    pub honoured_abort: bool,
}

pub type RunFuture = Pin<Box<dyn Future<Output = Settled> + Send + 'static>>;

/// Runs pack code: the JS binding's threadsafe-function dispatcher, or a Rust fake in tests.
pub trait Runner: Send + Sync + 'static {
    fn run(&self, call: Call, abort: CallAbort) -> RunFuture;

    /// Whether pack code starts some time after `run` (queued for another thread): the runner
    /// then asks `call.start` when it does, and answers [`Answer::Transport`] when refused.
    /// Otherwise the service asks before it calls `run`.
    fn queues_calls(&self) -> bool {
        false
    }

    /// Whether the runner reads [`Call::message`]; one that does not (the JavaScript runner
    /// parses the body) gets `null` there, and the service makes no `serde_json` copy. One
    /// that does gets values as deep as the body (`json::MAX_DEPTH`), to walk on a stack that
    /// fits them.
    fn reads_message(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    #[test]
    fn an_abort_hook_runs_once_before_abort_returns_or_at_once_when_aborted_already() {
        let runs = Arc::new(AtomicUsize::new(0));
        let abort = CallAbort::new();
        let counted = Arc::clone(&runs);
        abort.on_abort(move |reason| {
            assert_eq!(reason, AbortReason::DeadlineExceeded);
            counted.fetch_add(1, Ordering::SeqCst);
        });
        assert_eq!(runs.load(Ordering::SeqCst), 0, "not before the abort");
        abort.abort(AbortReason::DeadlineExceeded);
        assert_eq!(runs.load(Ordering::SeqCst), 1, "by the time abort returns");
        abort.abort(AbortReason::Cancelled);
        assert_eq!(runs.load(Ordering::SeqCst), 1, "once");
        let counted = Arc::clone(&runs);
        abort.on_abort(move |reason| {
            assert_eq!(reason, AbortReason::DeadlineExceeded, "the first reason");
            counted.fetch_add(1, Ordering::SeqCst);
        });
        assert_eq!(
            runs.load(Ordering::SeqCst),
            2,
            "at once on a call aborted already"
        );
    }

    #[tokio::test]
    async fn abort_is_set_once_and_wakes_waiters() {
        let abort = CallAbort::new();
        let waiter = tokio::spawn({
            let abort = abort.clone();
            async move { abort.aborted().await }
        });
        tokio::time::sleep(Duration::from_millis(5)).await;
        abort.abort(AbortReason::Cancelled);
        abort.abort(AbortReason::DeadlineExceeded);
        assert_eq!(waiter.await.ok(), Some(AbortReason::Cancelled));
        assert_eq!(abort.reason(), Some(AbortReason::Cancelled));
        // Waiting after the fact resolves at once.
        assert_eq!(abort.aborted().await, AbortReason::Cancelled);
    }
}

//! The pack service's request handling, independent of the transport: the hyper server and the
//! node:http glue both describe a request as a [`RequestHead`], ask [`PackService::begin`]
//! what to do with it, and hand an admitted body to [`PackService::invoke`].

use crate::env::PackEnvCheck;
use crate::json::{
    has_lone_surrogates, on_deep_stack, parse_borrowed_on, protect_lone_surrogates,
    restore_lone_surrogates, restore_lone_surrogates_if, Borrowed, BorrowedError, ParseError,
    Stack,
};
use crate::log::Logger;
use crate::protocol::{parse_pack_request, PackErrorCode, PackErrorMessage, RequestKind};
use crate::service::admission::{Admission, Admit, InFlight, Look, Place, Room};
use crate::service::call::{AbortReason, Answer, Call, CallAbort, Runner, Target, ToolOutput};
use crate::service::call_log::{call_bindings, Reporter};
pub use crate::service::call_log::{EventSink, ServiceEvent};
use crate::service::catalog::{Catalog, Tool};
use crate::service::http::{
    is_json_content_type, parse_timeout_ms, refuse_request, NotReady, Reply, Route,
};
use crate::service::js_pulse::READY_LIMIT;
use crate::service::js_threads::JsThreads;
use crate::service::large_body::LargeBodies;
use crate::service::start_gate::{Start, StartGate};
use crate::service::tool_io::{
    check_input, check_output, result_message, Rejected, STACK_EXCEEDED,
};
use crate::validate::Instance;
use crate::validate::MARKER_KEY;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

pub const DEFAULT_MAX_CONCURRENCY: usize = 32;
pub const DEFAULT_MAX_BODY_BYTES: usize = 10 * 1024 * 1024;
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;

/// A request as the service reads it: header values as Node shows them (see
/// [`crate::service::http::join_into`]).
#[derive(Debug, Clone, Default)]
pub struct RequestHead {
    pub method: String,
    /// The raw request target (path and query).
    pub target: String,
    pub token: Option<String>,
    pub tenant: Option<String>,
    pub content_type: Option<String>,
    /// `content-length`, when the request declares one.
    pub content_length: Option<u64>,
    pub timeout_ms: Option<String>,
    pub traceparent: Option<String>,
}

/// What happens to a request before its body is read.
#[derive(Debug)]
pub enum Begin {
    /// Answer now (probes, info, refusals).
    Reply(Reply),
    /// An admitted call: read the body, then [`PackService::invoke`].
    Invoke(Admitted),
}

/// An admitted call: counted in flight until dropped, and under the cap until its body is in.
#[derive(Debug)]
pub struct Admitted {
    _in_flight: InFlight,
    uploading: Option<Place>,
    started: Instant,
}

impl Admitted {
    pub fn elapsed_ms(&self) -> u128 {
        self.started.elapsed().as_millis()
    }

    /// The bytes of its body counted against the queue's budget while it is read: what a
    /// transport may allocate for it at once.
    pub fn reserved(&self) -> usize {
        self.uploading.as_ref().map_or(0, Place::reserved)
    }

    /// The body is in: from here the call holds a place under the cap only while its pack
    /// code runs (see `StartGate`).
    pub fn body_received(&mut self) {
        self.uploading = None;
    }
}

/// What a finished invoke answers.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// A protocol message: 200, with the duration and artifact headers.
    Message(String),
    /// A transport-level answer (421 for a context naming another tenant).
    Reply(Reply),
}

pub struct ServiceOptions {
    pub catalog: Catalog,
    pub token: String,
    /// `KINDGI_PACK_TENANT_ID`: the one tenant this service serves.
    pub tenant: Option<String>,
    pub max_concurrency: usize,
    pub max_body_bytes: usize,
    pub default_timeout_ms: u64,
    pub env_check: PackEnvCheck,
    /// The index's required env names this process lacks, computed once at creation.
    pub missing_env: Vec<String>,
    /// `sha256:<hex>` of the index file, for `/v1/info`.
    pub index_hash: Option<String>,
    /// Where call records go: the service's logger (subsystem `pack`), or none.
    pub records: Option<Logger>,
    /// Whether the runner and the events get each call's log bindings (for a JS `ctx.log` or
    /// a JS logger).
    pub share_call_bindings: bool,
    /// The threads pack code runs on, each with its turns (see `js_threads`).
    pub js_threads: Arc<JsThreads>,
    /// `KINDGI_PACK_SERVICE_STALL_MS`: how long any of them may be unable to take a turn
    /// before `/healthz` answers 503; `None` never.
    pub stall_limit: Option<Duration>,
}

pub struct PackService {
    catalog: Catalog,
    token: Vec<u8>,
    tenant: Option<String>,
    max_body_bytes: usize,
    default_timeout_ms: u64,
    env_check: PackEnvCheck,
    missing_env: Vec<String>,
    info: String,
    admission: Arc<Admission>,
    large_bodies: LargeBodies,
    runner: Arc<dyn Runner>,
    reporter: Arc<Reporter>,
    share_call_bindings: bool,
    js_threads: Arc<JsThreads>,
    stall_limit: Option<Duration>,
}

/// A call waiting for its pack code. Dropped before an answer was taken (the transport dropped
/// the invoke because its caller went away), it cancels the call and reports it.
struct Waiting {
    start: Arc<StartGate>,
    abort: CallAbort,
    answered: bool,
    word: &'static str,
    id: String,
    started: Instant,
    bindings: Option<Arc<Map<String, Value>>>,
    reporter: Arc<Reporter>,
}

impl Drop for Waiting {
    fn drop(&mut self) {
        // Told first: pack code hears of its abort before its place goes to another call.
        if !self.answered {
            self.abort.abort(AbortReason::Cancelled);
        }
        // Answered or gone, the call's place under the cap goes (pack code may run on).
        self.start.end();
        if self.answered {
            return;
        }
        self.reporter.report(ServiceEvent::Call {
            target: self.word,
            id: self.id.clone(),
            duration_ms: self.started.elapsed().as_millis(),
            outcome: AbortReason::Cancelled.as_str(),
            bindings: self.bindings.take(),
        });
    }
}

impl PackService {
    /// A service whose calls run on `runner`; `events` hears of every call.
    pub fn new(
        options: ServiceOptions,
        runner: Arc<dyn Runner>,
        events: Option<EventSink>,
    ) -> Self {
        let info = options
            .catalog
            .info_json(options.index_hash.as_deref(), &options.missing_env);
        PackService {
            admission: Admission::new(options.max_concurrency),
            large_bodies: LargeBodies::default(),
            catalog: options.catalog,
            token: options.token.into_bytes(),
            tenant: options.tenant,
            max_body_bytes: options.max_body_bytes,
            default_timeout_ms: options.default_timeout_ms,
            env_check: options.env_check,
            missing_env: options.missing_env,
            info,
            runner,
            reporter: Arc::new(Reporter {
                events,
                records: options.records,
            }),
            share_call_bindings: options.share_call_bindings,
            js_threads: options.js_threads,
            stall_limit: options.stall_limit,
        }
    }

    pub fn js_threads(&self) -> &Arc<JsThreads> {
        &self.js_threads
    }

    /// Where the service writes its records, if anywhere.
    pub fn records(&self) -> Option<&crate::log::Logger> {
        self.reporter.records.as_ref()
    }

    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    pub fn admission(&self) -> &Arc<Admission> {
        &self.admission
    }

    pub fn max_body_bytes(&self) -> usize {
        self.max_body_bytes
    }

    /// Why the service takes no calls now, if it does not.
    pub fn not_ready(&self) -> Option<NotReady<'_>> {
        if self.admission.is_draining() {
            Some(NotReady::Draining)
        } else if self.env_check == PackEnvCheck::Strict && !self.missing_env.is_empty() {
            Some(NotReady::MissingEnv(&self.missing_env))
        } else if !self.admission.is_warm() {
            Some(NotReady::NotWarm)
        } else if self.js_threads.all_stalled_for() > READY_LIMIT {
            Some(NotReady::Stalled)
        } else {
            None
        }
    }

    /// `/healthz`: 503 once any of pack code's threads has been unable to take a turn for the
    /// stall limit, so that a liveness probe restarts the process.
    fn health(&self) -> Reply {
        match self.stall_limit {
            Some(limit) if self.js_threads.any_stalled_for() > limit => NotReady::Stalled.reply(),
            _ => Reply::healthy(),
        }
    }

    /// Routes a request and decides everything that comes before its body. A call that finds
    /// no room under the cap or the queue's budget is refused `overloaded` at once (for a
    /// transport whose bodies are read already; see [`PackService::begin_when_room`]).
    pub fn begin(&self, head: &RequestHead) -> Begin {
        self.begin_or_wait(head, None)
            .unwrap_or_else(|_| Begin::Reply(Reply::overloaded()))
    }

    /// [`PackService::begin`] for a transport that reads a body only when asked: a call that
    /// finds the service busy with other calls' bodies waits for room, its body unread, as a
    /// request waits in the kernel while the TypeScript service's thread is busy (the rules
    /// are in `admission.rs`). Each look at the room asks readiness first, so a wait ends in
    /// `draining` or `pack code stalled` as a new request would. Dropping the future (the
    /// caller hung up) leaves the wait. A large body's declared length counts against the
    /// queue's budget while it is read, so bodies are read no further ahead of the JS thread
    /// than the budget.
    pub async fn begin_when_room(&self, head: &RequestHead) -> Begin {
        let since = Instant::now();
        let mut look = Look::First;
        loop {
            match self.begin_or_wait(head, Some(look)) {
                Ok(begin) => return begin,
                Err(room) => {
                    room.made().await;
                    look = Look::Again(since.elapsed());
                }
            }
        }
    }

    /// `look`: for a transport that reads the body only once admitted, which look at the room
    /// this is (`None` for one whose body is read already).
    fn begin_or_wait(&self, head: &RequestHead, look: Option<Look>) -> Result<Begin, Room<'_>> {
        let route = match refuse_request(
            &head.method,
            &head.target,
            head.token.as_deref(),
            &self.token,
            head.tenant.as_deref(),
            self.tenant.as_deref(),
        ) {
            Ok(route) => route,
            Err(reply) => return Ok(Begin::Reply(reply)),
        };
        Ok(match route {
            Route::Healthz => Begin::Reply(self.health()),
            Route::Readyz => {
                Begin::Reply(self.not_ready().map_or_else(Reply::ready, |r| r.reply()))
            }
            Route::Info => Begin::Reply(Reply {
                status: 200,
                body: self.info.clone(),
                retry_after: false,
            }),
            Route::Invoke => return self.admit(head, look),
        })
    }

    fn admit(&self, head: &RequestHead, look: Option<Look>) -> Result<Begin, Room<'_>> {
        if let Some(reason) = self.not_ready() {
            return Ok(Begin::Reply(reason.reply()));
        }
        // A body declared past the limit is refused below; it reserves no more than the limit.
        let declared = match head.content_length {
            Some(n) if look.is_some() => usize::try_from(n)
                .unwrap_or(usize::MAX)
                .min(self.max_body_bytes),
            _ => 0,
        };
        let look = look.unwrap_or(Look::First);
        let (in_flight, uploading) = match self.admission.admit_on(declared, look) {
            Admit::Admitted(in_flight, upload) => (in_flight, upload),
            Admit::Refused => return Ok(Begin::Reply(Reply::overloaded())),
            Admit::Wait(room) => return Err(room),
        };
        if !is_json_content_type(head.content_type.as_deref()) {
            return Ok(Begin::Reply(Reply::not_json()));
        }
        if head
            .content_length
            .is_some_and(|n| n > self.max_body_bytes as u64)
        {
            return Ok(Begin::Reply(Reply::too_large()));
        }
        Ok(Begin::Invoke(Admitted {
            _in_flight: in_flight,
            uploading: Some(uploading),
            started: Instant::now(),
        }))
    }

    /// Runs one admitted call from its body (already decoded to text). Dropping the returned
    /// future before it resolves cancels the call: the handler's abort fires with `cancelled`.
    ///
    /// The body is taken, not borrowed: once it is parsed and checked, it moves on to the
    /// runner (a JavaScript runner hands it to V8 and drops it), so the service holds one copy
    /// of it at a time (docs/design.md, *Large bodies*).
    pub async fn invoke(
        &self,
        admitted: &mut Admitted,
        head: &RequestHead,
        body: String,
    ) -> Outcome {
        // Read, and not yet taken by the JS thread: counted against the queue's budget from
        // now (its turn and its parse included) until the JS thread reaches the call; counted
        // before its upload's reservation ends, so that no request slips in between.
        let queued = self
            .runner
            .queues_calls()
            .then(|| self.admission.queue(body.len()));
        admitted.body_received();
        let turn = self.large_bodies.turn(body.len()).await;
        // A string with a lone surrogate is JSON to JavaScript; it crosses as a stand-in.
        let protected = protect_lone_surrogates(&body);
        let read = ReadBody {
            lone_surrogates: matches!(protected, Cow::Owned(_)),
            protected: &protected,
            traceparent: head.traceparent.as_deref(),
        };
        // Checked: the parsed body is gone before pack code runs, and the next large body may
        // be parsed.
        let prepared = turn.run(|| self.prepare(&read));
        drop(turn);
        let lone_surrogates = read.lone_surrogates;
        // A body with lone surrogates was copied to be parsed: not kept while the call runs.
        drop(protected);
        let (word, id, bindings, started, next) = match prepared {
            Prepared::Unrecorded(outcome) => return outcome,
            Prepared::Call {
                word,
                id,
                bindings,
                started,
                next,
            } => (word, id, bindings, started, next),
        };
        let answer = match next {
            Next::Answered(answer) => answer,
            Next::Run {
                target,
                message,
                defaults_json,
                tool,
            } => {
                let timeout = Duration::from_millis(
                    parse_timeout_ms(head.timeout_ms.as_deref()).unwrap_or(self.default_timeout_ms),
                );
                let call = Call {
                    target,
                    message,
                    // Moved, not copied: the tree that borrowed it is gone.
                    body,
                    id: id.clone(),
                    bindings: bindings.clone().filter(|_| self.share_call_bindings),
                    defaults_json,
                    start: Arc::new(StartGate::new(Arc::clone(&self.admission))),
                };
                if let Some(queued) = queued {
                    call.start.queue(queued);
                }
                let answer = self.run(call, timeout, started, bindings.clone()).await;
                self.judged_output(answer, tool)
            }
        };
        // Refused before its pack code started, or failed where TypeScript's call throws: no
        // call to record, as in TypeScript.
        if let Answer::Transport(reply) = answer {
            return Outcome::Reply(reply);
        }
        self.reporter.report(ServiceEvent::Call {
            target: word,
            id,
            duration_ms: started.elapsed().as_millis(),
            outcome: answer.outcome(),
            bindings,
        });
        match answer {
            Answer::Message(json) | Answer::ErrorJson { json, .. } => Outcome::Message(json),
            // Its message may quote the request or the index (a version, an allowed value).
            Answer::Error(error) => Outcome::Message(restore_lone_surrogates_if(
                error.to_json(),
                lone_surrogates || self.catalog.lone_surrogates(),
            )),
            Answer::Failed { reason, .. } => Outcome::Reply(Reply::error(500, &reason)),
            // Only a tool's output is checked; a runner that answers a check with one is wrong.
            Answer::Output(_) => Outcome::Reply(Reply::error(
                500,
                "The runner answered a check with a tool's output",
            )),
            Answer::Transport(reply) => Outcome::Reply(reply),
        }
    }

    /// Parses, routes and checks a call's body on a stack that fits its nesting: the caller's,
    /// or, for a body nested deeper than it holds, a deep one, where it is read again.
    fn prepare(&self, read: &ReadBody<'_>) -> Prepared {
        if let Some(prepared) = self.prepare_on(read, Stack::Caller) {
            return prepared;
        }
        on_deep_stack(|| self.prepare_on(read, Stack::Deep))
            .flatten()
            // No thread could be started for it, or its work panicked.
            .unwrap_or_else(|| {
                Prepared::Unrecorded(Outcome::Reply(Reply::error(500, STACK_EXCEEDED)))
            })
    }

    /// [`PackService::prepare`] on `stack`: `None` when the body nests deeper than it holds.
    /// Everything read from the parsed body is taken out of it here, so the tree never leaves
    /// this stack.
    fn prepare_on(&self, read: &ReadBody<'_>, stack: Stack) -> Option<Prepared> {
        let json = match parse_borrowed_on(read.protected, stack) {
            Ok(json) => json,
            Err(BorrowedError::Syntax(ParseError::TooDeep)) if stack == Stack::Caller => {
                return None
            }
            Err(_) => {
                return Some(Prepared::Unrecorded(Outcome::Message(
                    PackErrorMessage::new(
                        PackErrorCode::MalformedMessage,
                        "Request body is not valid JSON",
                    )
                    .to_json(),
                )))
            }
        };
        let kind = match parse_pack_request(&json) {
            Ok(Ok(kind)) => kind,
            Ok(Err(error)) => {
                return Some(Prepared::Unrecorded(Outcome::Message(
                    restore_lone_surrogates_if(error.to_json(), read.lone_surrogates),
                )))
            }
            Err(never) => match never {},
        };
        if kind == RequestKind::Tool && !self.context_tenant_allowed(&json) {
            return Some(Prepared::Unrecorded(Outcome::Reply(
                Reply::tenant_mismatch(),
            )));
        }
        let started = Instant::now();
        let (word, id, found) = match kind {
            RequestKind::Tool => {
                let id = text_at(&json, "tool", "id").unwrap_or_default().to_owned();
                let version = text_at(&json, "tool", "version");
                let found = self
                    .catalog
                    .find_tool(&id, version)
                    .map(|tool| Target::Tool(Arc::clone(tool)));
                ("tool", id, found)
            }
            RequestKind::Check => {
                let id = text_at(&json, "check", "id").unwrap_or_default().to_owned();
                let found = self
                    .catalog
                    .find_check(&id)
                    .map(|check| Target::Check(Arc::clone(check)));
                ("check", id, found)
            }
        };
        let bindings = self
            .reporter
            .logs_calls(self.share_call_bindings)
            .then(|| Arc::new(call_bindings(kind, &json, &id, read.traceparent)));
        let next = match found {
            Err(refused) => Next::Answered(Answer::Error(*refused)),
            Ok(target) => self.checked_call(target, json, read, stack)?,
        };
        Some(Prepared::Call {
            word,
            id,
            bindings,
            started,
            next,
        })
    }

    /// A found tool or check, ready to run; a tool's input checked (and its defaults filled)
    /// first, as the TypeScript runner orders it. `None` when the input's check outgrew the
    /// caller's `stack`.
    fn checked_call(
        &self,
        target: Target,
        mut message: Borrowed<'_>,
        read: &ReadBody<'_>,
        stack: Stack,
    ) -> Option<Next> {
        let tool = match &target {
            Target::Tool(tool) => Some(Arc::clone(tool)),
            Target::Check(_) => None,
        };
        // Checked where it lies in the parsed message: the defaults are filled into it.
        let defaults_json = match &tool {
            None => None,
            Some(tool) => {
                let checked = match message.member_mut("input") {
                    Some(input) => check_input(&tool.input, input, &tool.id, stack),
                    None => check_input(
                        &tool.input,
                        &mut serde_json::json!({ MARKER_KEY: "undefined" }),
                        &tool.id,
                        stack,
                    ),
                };
                match checked {
                    // A default filled under a key holding a lone surrogate names it, and a
                    // default from the schema may hold one.
                    Ok(filled) => filled.map(|json| {
                        restore_lone_surrogates_if(
                            json,
                            read.lone_surrogates || self.catalog.lone_surrogates(),
                        )
                    }),
                    Err(Rejected::Message(refused)) => {
                        return Some(Next::Answered(Answer::Error(*refused)))
                    }
                    Err(Rejected::Threw(message)) => {
                        return Some(Next::Answered(Answer::Transport(Reply::error(
                            500, message,
                        ))))
                    }
                    Err(Rejected::OutgrewStack) => return None,
                }
            }
        };
        // A runner that reads the parsed message gets it as `serde_json` values; the JavaScript
        // runner parses the body itself.
        let message = if self.runner.reads_message() {
            message.to_value()
        } else {
            Value::Null
        };
        Some(Next::Run {
            target,
            message,
            defaults_json,
            tool,
        })
    }

    /// A tool's output checked against its schema, after its handler ran, as the TypeScript
    /// runner checks it; any other answer as it is.
    fn judged_output(&self, answer: Answer, tool: Option<Arc<Tool>>) -> Answer {
        let (output, tool) = match (answer, tool) {
            (Answer::Output(output), Some(tool)) => (output, tool),
            (answer, _) => return answer,
        };
        match check_output(&tool.output, &output.marked, &tool.id) {
            // Its issues may name what the output or the schema held: written back as
            // they were.
            Err(Rejected::Threw(message)) => Answer::Transport(Reply::error(500, message)),
            Err(Rejected::Message(refused))
                if has_lone_surrogates(&output.marked) || self.catalog.lone_surrogates() =>
            {
                Answer::ErrorJson {
                    code: refused.code,
                    json: restore_lone_surrogates(&refused.to_json()).into_owned(),
                }
            }
            Err(Rejected::Message(refused)) => Answer::Error(*refused),
            // `check_output` moves to a deep stack itself; this is one it could not start.
            Err(Rejected::OutgrewStack) => Answer::Transport(Reply::error(500, STACK_EXCEEDED)),
            Ok(()) => match output {
                ToolOutput {
                    unwritable: Some(reason),
                    ..
                } => Answer::failed(reason),
                ToolOutput {
                    response: Some(response),
                    ..
                } => Answer::Message(response),
                ToolOutput { marked, .. } => Answer::Message(result_message(&marked)),
            },
        }
    }

    /// A tool call's `ctx.tenantId` must name the pinned tenant, when there is one.
    fn context_tenant_allowed(&self, json: &Borrowed<'_>) -> bool {
        match &self.tenant {
            None => true,
            Some(tenant) => text_at(json, "ctx", "tenantId") == Some(tenant.as_str()),
        }
    }

    /// Runs pack code against the call's deadline and its caller's patience. The handler is
    /// never killed: after an abort it runs on, and is reported if it settles without having
    /// honoured the abort.
    async fn run(
        &self,
        call: Call,
        timeout: Duration,
        started: Instant,
        bindings: Option<Arc<Map<String, Value>>>,
    ) -> Answer {
        if !self.runner.queues_calls() && call.start.start() == Start::Overloaded {
            return Answer::Transport(Reply::overloaded());
        }
        let abort = CallAbort::new();
        let word = call.target.word();
        let mut waiting = Waiting {
            start: Arc::clone(&call.start),
            abort: abort.clone(),
            answered: false,
            word,
            id: call.id.clone(),
            started,
            bindings: bindings.clone(),
            reporter: Arc::clone(&self.reporter),
        };
        let work = self.runner.run(call, abort.clone());
        let (settle, settled) = oneshot::channel();
        let (reporter, id) = (Arc::clone(&self.reporter), waiting.id.clone());
        // Pack code runs in a task of its own, which outlives this request when the request
        // stops waiting first. (Polling it inside the request instead, and spawning only the
        // rest when the request stops waiting, was slower: docs/design.md, *Measured and not
        // kept*.)
        tokio::spawn(async move {
            let settled = work.await;
            if abort.reason().is_some() && !settled.honoured_abort {
                reporter.report(ServiceEvent::FinishedLate {
                    target: word,
                    id,
                    after_ms: started.elapsed().as_millis(),
                    bindings,
                });
            }
            // Nobody waits any more when the call was answered by its abort.
            let _ = settle.send(settled);
        });
        let answer = tokio::select! {
            settled = settled => match settled {
                Ok(settled) => settled.answer,
                // The runner's task panicked.
                Err(_) => Answer::Error(runner_failed(word, &waiting.id)),
            },
            // The deadline counts from the call's start, input validation included, as the
            // TypeScript runner validates inside the deadline.
            () = tokio::time::sleep_until(tokio::time::Instant::from_std(started) + timeout) => {
                waiting.abort.abort(AbortReason::DeadlineExceeded);
                Answer::Error(deadline_passed(word, &waiting.id))
            }
        };
        waiting.answered = true;
        answer
    }
}

/// A call's body as received, and what the service read from its head.
struct ReadBody<'a> {
    /// The text with lone surrogates as stand-ins: what Rust parses.
    protected: &'a str,
    /// Whether the text held lone surrogates (stand-ins in what is parsed).
    lone_surrogates: bool,
    traceparent: Option<&'a str>,
}

/// What a call's body comes to before its pack code runs. (Made and taken apart once a call,
/// never stored: boxing the larger variant would cost an allocation a call for nothing.)
#[allow(clippy::large_enum_variant)]
enum Prepared {
    /// Answered, with no call to record (a body that is no request, a tenant refused).
    Unrecorded(Outcome),
    /// A call to record.
    Call {
        word: &'static str,
        id: String,
        bindings: Option<Arc<Map<String, Value>>>,
        started: Instant,
        next: Next,
    },
}

/// What becomes of a call to record.
enum Next {
    /// Answered before its pack code (not found, its input refused).
    Answered(Answer),
    /// Its pack code runs (with the body, which the tree borrowed); a tool's output is checked
    /// after.
    Run {
        target: Target,
        message: Value,
        defaults_json: Option<String>,
        tool: Option<Arc<Tool>>,
    },
}

/// The answer of a call whose deadline passed first.
fn deadline_passed(word: &str, id: &str) -> PackErrorMessage {
    with_id(
        PackErrorMessage::new(
            PackErrorCode::DeadlineExceeded,
            format!("{id} passed its deadline"),
        ),
        word,
        id,
    )
}

/// A runner task that panicked: the handler's outcome is unknown, reported as a throw.
fn runner_failed(word: &str, id: &str) -> PackErrorMessage {
    with_id(
        PackErrorMessage::new(
            PackErrorCode::HandlerThrow,
            format!("The {word} {id} stopped without an answer"),
        ),
        word,
        id,
    )
}

fn with_id(mut error: PackErrorMessage, word: &str, id: &str) -> PackErrorMessage {
    if word == "tool" {
        error.tool_id = Some(id.to_owned());
    } else {
        error.check_id = Some(id.to_owned());
    }
    error
}

/// The string at `object.key` of a request, if it is one.
fn text_at<'m>(json: &'m Borrowed<'_>, object: &str, key: &str) -> Option<&'m str> {
    json.member(object)?.member(key)?.as_str()
}

#[cfg(test)]
#[path = "core_tests.rs"]
mod tests;

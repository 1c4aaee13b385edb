//! The pack service for JavaScript: the Rust service with pack code called through
//! threadsafe functions.
//!
//! One `dispatch` function starts every call in JS and JS answers with `settle(id, …)`
//! (a returned Promise would cost napi closures and GC pauses per call); the same function,
//! in the same queue, takes aborts to the call's `AbortController`; a second delivers service
//! events. Neither holds the process; `stop()` releases both.

use crate::binding::callback::JsCallback;
use crate::binding::errors::{JsError, NativeError, NativeErrorCode};
use crate::binding::native_logs::NativeLogs;
use crate::binding::owned_future::promise;
use crate::binding::pack_service_threads;
use crate::env::{parse_pack_env_check, PackEnvCheck};
use crate::json::write_members;
use crate::log::Logger;
use crate::protocol::PackErrorCode;
use crate::service::call::{
    AbortReason, Answer, Call, CallAbort, RunFuture, Runner, Settled, Target, ToolOutput,
};
use crate::service::catalog::Catalog;
use crate::service::config::{parse_pinned_tenant, MAX_WORKERS};
use crate::service::core::{
    Admitted, Begin, EventSink, Outcome, PackService, RequestHead, ServiceEvent, ServiceOptions,
    DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_CONCURRENCY, DEFAULT_TIMEOUT_MS,
};
use crate::service::event_json::event_json;
use crate::service::http::Reply;
use crate::service::js_options::{concurrency_cap, default_deadline_ms};
use crate::service::js_pulse::{self, JsPulse, DEFAULT_STALL_MS};
use crate::service::js_threads::JsThreads;
use crate::service::listen::{listen, ListenError};
use crate::service::node_answer::{content_length, NodeAnswer};
use crate::service::pending_calls::{
    ended_before_start, stopped, unsettled, PendingCalls, WARM_UP_ID,
};
use crate::service::server::{serve, SharedListening};
use crate::service::start_gate::{Start, StartGate};
use crate::service::tickets::{Ticket, Tickets};
use crate::service::timer_floor::{self, TimerFloor};
use napi::bindgen_prelude::{FnArgs, PromiseRaw, ToNapiValue};
use napi::threadsafe_function::ThreadsafeFunctionCallMode;
use napi::{Env, Status};
use napi_derive::napi;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// `(callId, position in the index list, request JSON, the tool's input with its defaults
/// filled as JSON or "" (use the request's), the call's log bindings as JSON or "", "tool" |
/// "check" | "skip")`. The target is made last: it decides the start, which must not happen
/// for a call whose other arguments could not be made (a body past V8's longest string).
type DispatchArgs = FnArgs<(u32, u32, String, String, String, DispatchTarget)>;

/// The dispatch's `target`: `tool` or `check`, or `skip` for a call whose pack code does not
/// start: it ended before the JS thread reached it, or the cap is reached (it is answered
/// `overloaded` here). Decided on the JS thread, as the argument is made (see `StartGate`).
pub struct DispatchTarget {
    word: &'static str,
    /// Counts the JS thread's turn as it takes this from the queue.
    pulse: Arc<JsPulse>,
    /// The call's gate, its id and its runner; none for the warm-up, which always runs.
    call: Option<(Arc<StartGate>, u32, Arc<JsRunner>)>,
    /// An aborted call's gate: its place under the cap is given back as the JS thread takes
    /// the abort.
    aborted: Option<Arc<StartGate>>,
}

impl ToNapiValue for DispatchTarget {
    unsafe fn to_napi_value(
        env: napi::sys::napi_env,
        target: Self,
    ) -> napi::Result<napi::sys::napi_value> {
        target.pulse.turn();
        // Given back here, on the JS thread, just before JS hears of the abort.
        if let Some(gate) = &target.aborted {
            drop(gate.take_place());
        }
        let word = match &target.call {
            None => target.word,
            Some((start, id, runner)) => match start.start() {
                Start::Run => target.word,
                Start::Ended => "skip",
                Start::Overloaded => {
                    runner.finish(
                        *id,
                        Settled {
                            answer: Answer::Transport(Reply::overloaded()),
                            honoured_abort: true,
                        },
                    );
                    "skip"
                }
            },
        };
        // SAFETY: called by napi with a valid env, on the JS thread.
        unsafe { <&str as ToNapiValue>::to_napi_value(env, word) }
    }
}
pub(crate) type Dispatch = JsCallback<DispatchArgs>;

struct JsFunctions {
    /// Each JS thread's dispatcher, at its index in `JsThreads` (the main thread's first).
    dispatch: Vec<Arc<Dispatch>>,
    events: Arc<JsCallback<String>>,
}

/// Runs calls in JavaScript; holds the threadsafe functions until released.
pub(crate) struct JsRunner {
    functions: Mutex<Option<Arc<JsFunctions>>>,
    calls: PendingCalls,
    threads: Arc<JsThreads>,
}

impl JsRunner {
    /// Thread `index`'s dispatcher, until released.
    fn dispatcher(&self, index: usize) -> Option<Arc<Dispatch>> {
        self.functions()
            .and_then(|functions| functions.dispatch.get(index).cloned())
    }

    /// Adds a worker thread's dispatcher; its thread index, or `None` once released.
    pub(crate) fn join(&self, dispatch: Dispatch) -> Option<usize> {
        let mut functions = self.functions.lock().ok()?;
        let current = functions.as_ref()?;
        let mut dispatchers = current.dispatch.clone();
        dispatchers.push(Arc::new(dispatch));
        // The dispatcher is in place before the thread can be picked.
        *functions = Some(Arc::new(JsFunctions {
            dispatch: dispatchers,
            events: Arc::clone(&current.events),
        }));
        Some(self.threads.join().0)
    }

    /// Ends call `id` with `settled`; false when it is gone.
    fn finish(&self, id: u32, settled: Settled) -> bool {
        self.calls.finish(id, settled)
    }

    fn functions(&self) -> Option<Arc<JsFunctions>> {
        self.functions.lock().ok().and_then(|f| f.clone())
    }

    /// Asks JS thread `index` for a turn (a `skip` it ignores); false when it cannot be queued.
    fn ping(&self, index: usize) -> bool {
        self.dispatcher(index).is_some_and(|dispatch| {
            dispatch.call(
                (
                    0,
                    0,
                    String::new(),
                    String::new(),
                    String::new(),
                    self.target(index, "skip"),
                )
                    .into(),
                ThreadsafeFunctionCallMode::NonBlocking,
            ) == Status::Ok
        })
    }

    /// A dispatch target on thread `index` that starts no call.
    fn target(&self, index: usize, word: &'static str) -> DispatchTarget {
        DispatchTarget {
            word,
            pulse: self
                .threads
                .get(index)
                .map_or_else(Arc::default, |thread| Arc::clone(&thread.pulse)),
            call: None,
            aborted: None,
        }
    }

    fn release(&self) {
        if let Ok(mut functions) = self.functions.lock() {
            functions.take();
        }
    }

    /// Tells JS that call `id` is aborted (`dispatch` with the target `abort`); the place the
    /// call holds under the cap, if any, goes back as the JS thread takes it.
    fn send_abort(&self, thread: usize, id: u32, reason: AbortReason, gate: Arc<StartGate>) {
        if let Some(dispatch) = self.dispatcher(thread) {
            dispatch.call(
                (
                    id,
                    0,
                    reason.as_str().to_owned(),
                    String::new(),
                    String::new(),
                    DispatchTarget {
                        aborted: Some(gate),
                        ..self.target(thread, "abort")
                    },
                )
                    .into(),
                ThreadsafeFunctionCallMode::NonBlocking,
            );
        }
    }

    fn event(&self, event: ServiceEvent) {
        if let Some(functions) = self.functions() {
            functions
                .events
                .call(event_json(&event), ThreadsafeFunctionCallMode::NonBlocking);
        }
    }
}

impl Runner for Arc<JsRunner> {
    fn queues_calls(&self) -> bool {
        true
    }

    fn reads_message(&self) -> bool {
        false
    }

    fn run(&self, call: Call, abort: CallAbort) -> RunFuture {
        let runner = Arc::clone(self);
        Box::pin(async move {
            let Call {
                target,
                body,
                id: call_id,
                bindings,
                defaults_json,
                start,
                message,
            } = call;
            // JS parses the body itself (the service left the message out).
            drop(message);
            let word = target.word();
            let (id, settled) = runner.calls.register(Arc::clone(&start));
            // Its slot goes when this future ends, answered or not.
            let _slot = runner.calls.forget_on_drop(id);
            // The call stays on this thread, its abort included; counted there until it ends.
            let (on, dispatch) = loop {
                let on = runner.threads.pick();
                match runner.dispatcher(on.index) {
                    Some(dispatch) => break (on, dispatch),
                    None if on.index > 0 => on.thread.mark_gone(),
                    None => return stopped(),
                }
            };
            let thread = on.index;
            let position = match &target {
                Target::Tool(tool) => tool.position,
                Target::Check(check) => check.position,
            };
            // Its abort is hooked only once it is queued (below): until then, a deadline that
            // passes must leave the place to that abort.
            start.place_goes_with_abort();
            let dispatched = DispatchTarget {
                word,
                pulse: Arc::clone(&on.thread.pulse),
                call: Some((Arc::clone(&start), id, Arc::clone(&runner))),
                aborted: None,
            };
            let status = dispatch.call(
                (
                    id,
                    u32::try_from(position).unwrap_or(u32::MAX),
                    body,
                    defaults_json.unwrap_or_default(),
                    bindings.map_or_else(String::new, |b| {
                        let mut json = String::new();
                        write_members(&mut json, b.iter().map(|(k, v)| (k.as_str(), v)));
                        json
                    }),
                    dispatched,
                )
                    .into(),
                ThreadsafeFunctionCallMode::NonBlocking,
            );
            // Not needed while the call runs: its abort reaches JS through `send_abort`.
            drop(dispatch);
            if status != Status::Ok {
                // A worker thread that ended takes no more calls; this one provably did not run.
                if thread > 0 {
                    on.thread.mark_gone();
                }
                return stopped();
            }
            // The abort goes through the dispatcher's own queue, from the thread that aborts
            // and before the call's place goes: the JS thread takes it before any call
            // admitted after it, as TypeScript runs the abort's listeners before its place goes.
            let (aborts, gate) = (Arc::clone(&runner), Arc::clone(&start));
            abort.on_abort(move |reason| aborts.send_abort(thread, id, reason, gate));
            tokio::pin!(settled);
            tokio::select! {
                settled = &mut settled => return settled.unwrap_or_else(|_| unsettled(word, &call_id)),
                _ = abort.aborted() => {
                    // Still queued behind a busy JS thread: it never starts, and holds its
                    // place until the queue reaches it.
                    if start.end() {
                        return ended_before_start(word, &call_id);
                    }
                }
            }
            // The handler runs on after its abort; its settle still ends the call.
            settled.await.unwrap_or_else(|_| unsettled(word, &call_id))
        })
    }
}

/// A pinned tenant as `parse_pinned_tenant` reads it: `tenant` when one is pinned, `refusal`
/// (the rule, after the name JS puts first) when no header can carry it.
#[napi(object)]
pub struct PinnedTenantJs {
    pub tenant: Option<String>,
    pub refusal: Option<String>,
}

#[napi(js_name = "pinnedTenant")]
pub fn pinned_tenant(raw: String) -> PinnedTenantJs {
    match parse_pinned_tenant(&raw) {
        Ok(tenant) => PinnedTenantJs {
            tenant,
            refusal: None,
        },
        Err(rule) => PinnedTenantJs {
            tenant: None,
            refusal: Some(rule.into()),
        },
    }
}

/// The service's defaults, which `lib/pack-service/service.js` and `lib/supervisor.js` read from here.
#[napi(object)]
pub struct ServiceDefaultsJs {
    pub max_concurrency: u32,
    pub max_body_bytes: u32,
    pub default_timeout_ms: u32,
    /// `KINDGI_PACK_SERVICE_STALL_MS`'s default.
    pub stall_ms: u32,
    /// The most JS threads `KINDGI_PACK_SERVICE_WORKERS` may ask for.
    pub max_workers: u32,
}

#[napi(js_name = "serviceDefaults")]
pub fn service_defaults() -> ServiceDefaultsJs {
    // Each is a small constant; saturating only guards a future edit past u32.
    let small = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
    ServiceDefaultsJs {
        max_concurrency: small(DEFAULT_MAX_CONCURRENCY as u64),
        max_body_bytes: small(DEFAULT_MAX_BODY_BYTES as u64),
        default_timeout_ms: small(DEFAULT_TIMEOUT_MS),
        stall_ms: small(DEFAULT_STALL_MS),
        max_workers: small(MAX_WORKERS as u64),
    }
}

#[napi(object)]
pub struct NativePackServiceOptions {
    /// The index, as JSON text.
    pub index_json: String,
    pub token: String,
    pub tenant: Option<String>,
    /// Any number from 0 up: a fraction admits as `inFlight >= n` does, Infinity has no cap.
    pub max_concurrency: f64,
    pub max_body_bytes: f64,
    pub default_timeout_ms: f64,
    pub env_check: String,
    pub missing_env: Vec<String>,
    pub index_hash: Option<String>,
    /// Whether JS hears of every call (a `logger` function or a JS `log`).
    pub report_events: bool,
    /// Whether dispatches and events carry each call's log bindings (for `ctx.log`).
    pub share_call_bindings: bool,
    /// With `logs`: the bindings of the service's logger, as JSON text.
    pub log_bindings: Option<String>,
    /// How long the JS thread may take no turn before `/healthz` answers 503 (0: never;
    /// absent: `DEFAULT_STALL_MS`).
    pub stall_ms: Option<f64>,
}

/// One module prewarm imports: the catalog's distinct tools, then its distinct checks.
#[napi(object)]
pub struct PrewarmTargetJs {
    /// `tool` or `check`.
    pub target: String,
    /// The tool id, or the check id a `check-invoke` names.
    pub id: String,
    /// Where the entry stands in the index's `tools` or `guardrails`.
    pub position: u32,
}

/// Where a listener was opened, or why not (the fields of Node's error).
#[napi(object)]
pub struct ListenOutcome {
    pub port: Option<u32>,
    pub error: Option<ListenErrorJs>,
}

#[napi(object)]
pub struct ListenErrorJs {
    pub code: String,
    pub errno: Option<i32>,
    pub syscall: String,
    pub address: String,
    pub port: u32,
    pub message: String,
}

impl ListenOutcome {
    pub fn bound(port: u16) -> Self {
        ListenOutcome {
            port: Some(u32::from(port)),
            error: None,
        }
    }

    pub fn refused(error: ListenError) -> Self {
        ListenOutcome {
            port: None,
            error: Some(ListenErrorJs {
                code: error.code,
                errno: error.errno,
                syscall: error.syscall.into(),
                address: error.address,
                port: u32::from(error.port),
                message: error.message,
            }),
        }
    }

    /// A failure under our own code, `listen-failed`: a misuse, or the pack service's refusal
    /// (which, unlike the supervisor's front, does not pass Node's error on).
    pub fn failed(message: String, port: u32) -> Self {
        ListenOutcome {
            port: None,
            error: Some(ListenErrorJs {
                code: NativeErrorCode::ListenFailed.as_str().into(),
                errno: None,
                syscall: "listen".into(),
                address: String::new(),
                port,
                message,
            }),
        }
    }
}

/// A request's head as node:http shows it (`req.headers`, values already joined and trimmed).
#[napi(object)]
pub struct RequestHeadJs {
    pub method: String,
    pub target: String,
    pub token: Option<String>,
    pub tenant: Option<String>,
    pub content_type: Option<String>,
    /// As node:http shows it: read here (see `content_length`).
    pub content_length: Option<String>,
    pub timeout_ms: Option<String>,
    pub traceparent: Option<String>,
}

impl From<RequestHeadJs> for RequestHead {
    fn from(head: RequestHeadJs) -> Self {
        RequestHead {
            method: head.method,
            target: head.target,
            token: head.token,
            tenant: head.tenant,
            content_type: head.content_type,
            content_length: content_length(head.content_length.as_deref()),
            timeout_ms: head.timeout_ms,
            traceparent: head.traceparent,
        }
    }
}

/// What to answer a node:http request (a [`NodeAnswer`], written as given), or (with `ticket`)
/// an admitted call whose body the JS glue reads and hands to `invoke`. `status` 0 means write
/// nothing: the caller hung up.
#[napi(object)]
pub struct ReplyJs {
    pub status: u32,
    /// `[name, value, …]`, in writing order.
    pub headers: Vec<String>,
    pub body: String,
    pub ticket: Option<u32>,
    /// With `ticket`: the most body bytes the call takes; past it, `refuseBody`.
    pub body_limit: Option<f64>,
}

impl ReplyJs {
    /// Not an answer: an admitted call's ticket, or (status 0) nothing to write.
    fn empty(status: u32, ticket: Option<u32>, body_limit: Option<f64>) -> ReplyJs {
        ReplyJs {
            status,
            headers: Vec::new(),
            body: String::new(),
            ticket,
            body_limit,
        }
    }
}

impl From<NodeAnswer> for ReplyJs {
    fn from(answer: NodeAnswer) -> Self {
        ReplyJs {
            status: u32::from(answer.status),
            headers: answer.flat_headers(),
            body: answer.body,
            ticket: None,
            body_limit: None,
        }
    }
}

impl From<Reply> for ReplyJs {
    fn from(reply: Reply) -> Self {
        NodeAnswer::reply(reply).into()
    }
}

/// A 500 whose JSON body the JS glue made (its own failure: a request stream that failed).
#[napi(js_name = "nodeFailureAnswer")]
pub fn node_failure_answer(body: String) -> ReplyJs {
    NodeAnswer::json(500, body).into()
}

/// The pack service as JavaScript holds it: its async methods run on a clone of `parts`, which
/// outlives the object when an ending worker thread frees it mid-call (see `owned_future`);
/// the other methods reach the parts through `Deref`.
#[napi]
pub struct NativePackService {
    parts: Arc<ServiceParts>,
}

impl std::ops::Deref for NativePackService {
    type Target = ServiceParts;

    fn deref(&self) -> &ServiceParts {
        &self.parts
    }
}

/// What the pack service's methods work on, shared with the futures of its promises.
pub struct ServiceParts {
    service: Arc<PackService>,
    runner: Arc<JsRunner>,
    listening: SharedListening,
    /// The JS thread's watch, while listening.
    watching: Mutex<Option<tokio::task::AbortHandle>>,
    /// Admitted node:http calls waiting for their bodies.
    tickets: Tickets<Admitted>,
    /// The native logs' root the service was made with, shared with its worker threads.
    logs: Option<Logger>,
    /// Calls through `handle` run on napi's runtime without an accept loop's floor: held until
    /// `stop()` (or until the service is collected).
    timer_floor: Mutex<Option<TimerFloor>>,
}

fn invalid(message: impl Into<String>) -> JsError {
    NativeError::new(NativeErrorCode::InvalidArgument, message).into()
}

#[napi(
    js_name = "createNativePackService",
    ts_args_type = "options: NativePackServiceOptions, dispatch: (id: number, position: number, request: string, defaults: string, bindings: string, target: string) => void, events: (event: string) => void, logs?: NativeLogs | undefined | null"
)]
pub fn create_native_pack_service(
    options: NativePackServiceOptions,
    dispatch: JsCallback<DispatchArgs>,
    events: JsCallback<String>,
    logs: Option<&NativeLogs>,
) -> Result<NativePackService, JsError> {
    let catalog = Catalog::from_index_json(&options.index_json)
        .map_err(|problems| invalid(problems.join("\n")))?;
    let env_check: PackEnvCheck =
        parse_pack_env_check(Some(&options.env_check)).map_err(invalid)?;
    let threads = Arc::new(JsThreads::default());
    let runner = Arc::new(JsRunner {
        functions: Mutex::new(Some(Arc::new(JsFunctions {
            dispatch: vec![Arc::new(dispatch)],
            events: Arc::new(events),
        }))),
        calls: PendingCalls::default(),
        threads: Arc::clone(&threads),
    });
    let sink = Arc::clone(&runner);
    let service = PackService::new(
        ServiceOptions {
            catalog,
            token: options.token,
            tenant: options.tenant,
            max_concurrency: concurrency_cap(options.max_concurrency),
            max_body_bytes: options.max_body_bytes as usize,
            default_timeout_ms: default_deadline_ms(options.default_timeout_ms),
            env_check,
            missing_env: options.missing_env,
            index_hash: options.index_hash,
            records: logs.map(|logs| logs.logger(options.log_bindings.as_deref().unwrap_or("{}"))),
            share_call_bindings: options.share_call_bindings,
            js_threads: threads,
            stall_limit: stall_limit(options.stall_ms),
        },
        Arc::new(Arc::clone(&runner)),
        options
            .report_events
            .then(|| -> EventSink { Arc::new(move |event| sink.event(event)) }),
    );
    Ok(NativePackService {
        parts: Arc::new(ServiceParts {
            service: Arc::new(service),
            runner,
            listening: SharedListening::default(),
            watching: Mutex::new(None),
            tickets: Tickets::default(),
            logs: logs.map(NativeLogs::root),
            timer_floor: Mutex::new(napi::bindgen_prelude::within_runtime_if_available(|| {
                let runtime = tokio::runtime::Handle::try_current().ok()?;
                Some(TimerFloor::hold(runtime.spawn(timer_floor::tick())))
            })),
        }),
    })
}

impl ServiceParts {
    /// Hands call `id` its outcome; false when the call is gone.
    fn finish(&self, id: u32, settled: Settled) -> bool {
        self.runner.finish(id, settled)
    }

    /// Ends call `id` with its response JSON and outcome (`ok` or an error code), or, with
    /// `failure`, a 500 whose `error` is that text. Returns false when the call is gone.
    pub(crate) fn settle(
        &self,
        id: u32,
        response: String,
        outcome: String,
        honoured_abort: bool,
        failure: Option<String>,
    ) -> bool {
        let answer = match (failure, PackErrorCode::parse(&outcome)) {
            (Some(reason), code) => Answer::Failed { reason, code },
            (None, Some(code)) => Answer::ErrorJson {
                code,
                json: response,
            },
            (None, None) => Answer::Message(response),
        };
        self.finish(
            id,
            Settled {
                answer,
                honoured_abort,
            },
        )
    }

    /// Ends call `id` as TypeScript's service ends a call whose runner threw (a getter Ajv
    /// reads, a schema that recurses forever, a Zod schema or a module getter that throws):
    /// the throw escapes the call, which is answered
    /// 500 with `message` and not recorded. Returns false when the call is gone.
    pub(crate) fn escape(&self, id: u32, message: String) -> bool {
        self.finish(
            id,
            Settled {
                answer: Answer::Transport(Reply::error(500, &message)),
                honoured_abort: false,
            },
        )
    }

    /// Ends tool call `id` with its handler's output, which Rust checks against the output
    /// schema: `marked` is the output as the schema judges it, `response` the whole message
    /// when JSON writes it differently, `unwritable` why JSON cannot write it at all.
    pub(crate) fn settle_output(
        &self,
        id: u32,
        marked: String,
        response: Option<String>,
        unwritable: Option<String>,
    ) -> bool {
        self.finish(
            id,
            Settled {
                answer: Answer::Output(ToolOutput {
                    marked,
                    response,
                    unwritable,
                }),
                honoured_abort: false,
            },
        )
    }

    pub(crate) fn prewarm_targets(&self) -> Vec<PrewarmTargetJs> {
        let catalog = self.service.catalog();
        let position = |at: usize| u32::try_from(at).unwrap_or(u32::MAX);
        let tools = catalog.tools().iter().map(|tool| PrewarmTargetJs {
            target: "tool".into(),
            id: tool.id.clone(),
            position: position(tool.position),
        });
        let checks = catalog.checks().iter().map(|check| PrewarmTargetJs {
            target: "check".into(),
            id: check.id.clone(),
            position: position(check.position),
        });
        tools.chain(checks).collect()
    }

    /// Sends one warm-up call through thread `thread`'s dispatcher (id 0, target `warm`), so the first real
    /// call does not pay for the cold path: the threadsafe function's first delivery and the JS
    /// functions V8 has not compiled yet. No pack code runs; JS settles it with id 0, which no
    /// call has.
    pub(crate) fn warm_up(&self, thread: usize, request: String) -> bool {
        let Some(dispatch) = self.runner.dispatcher(thread) else {
            return false;
        };
        let status = dispatch.call(
            (
                WARM_UP_ID,
                0,
                request,
                String::new(),
                String::new(),
                self.runner.target(thread, "warm"),
            )
                .into(),
            ThreadsafeFunctionCallMode::NonBlocking,
        );
        status == Status::Ok
    }

    /// Forgets call `id` (see `NativePackService::forget`).
    pub(crate) fn forget(&self, id: u32) {
        self.runner.calls.forget(id);
    }

    /// Adds a worker thread that runs pack code; its index, or `None` once stopped.
    pub(crate) fn join_thread(&self, dispatch: Dispatch) -> Option<usize> {
        self.runner.join(dispatch)
    }

    /// The root of the service's native logs, for a worker thread's `ctx.log`.
    pub(crate) fn logs(&self) -> Option<&Logger> {
        self.logs.as_ref()
    }

    /// Starts watching the JS thread (called in the runtime, as the service starts listening).
    fn watch_js(&self) {
        let runner = Arc::downgrade(&self.runner);
        let admission = Arc::clone(self.service.admission());
        let watch = js_pulse::watch(
            Arc::clone(self.service.js_threads()),
            self.service.records().cloned(),
            move |index| runner.upgrade().is_some_and(|runner| runner.ping(index)),
            move || admission.wake_waiting(),
        );
        let handle = tokio::spawn(watch).abort_handle();
        if let Ok(mut watching) = self.watching.lock() {
            if let Some(earlier) = watching.replace(handle) {
                earlier.abort();
            }
        }
    }

    pub(crate) fn core(&self) -> &Arc<PackService> {
        &self.service
    }

    pub(crate) fn listening(&self) -> &SharedListening {
        &self.listening
    }

    /// Runs an admitted call from its body text.
    async fn invoke(&self, ticket: u32, head: RequestHeadJs, body: String) -> ReplyJs {
        let Some(Ticket {
            call: mut admitted,
            hung_up,
        }) = self.tickets.take(ticket)
        else {
            return Reply::error(500, "This call was already answered").into();
        };
        let head = RequestHead::from(head);
        let outcome = tokio::select! {
            outcome = self.service.invoke(&mut admitted, &head, body) => Some(outcome),
            // Dropping the invoke cancels the call, as a hyper connection's hang-up does.
            Ok(()) = hung_up => None,
        };
        self.tickets.end(ticket);
        match outcome {
            None => ReplyJs::empty(0, None, None),
            Some(Outcome::Reply(reply)) => reply.into(),
            Some(Outcome::Message(json)) => NodeAnswer::message(
                json,
                admitted.elapsed_ms(),
                self.service.catalog().artifact_version.as_deref(),
            )
            .into(),
        }
    }

    /// Listens on `host:port` (port 0 picks one). A failure comes back as data: a rejected
    /// promise from an async binding cannot carry a stable `code`.
    async fn listen(&self, host: Option<String>, port: u32) -> ListenOutcome {
        let mut listening = self.listening.lock().await;
        if listening.is_some() {
            return ListenOutcome::failed("The pack service is already listening".into(), port);
        }
        let Ok(port) = u16::try_from(port) else {
            return ListenOutcome::failed(format!("{port} is not a port number"), port);
        };
        let listener = match listen(host.as_deref(), port).await {
            Ok(listener) => listener,
            Err(error) => return ListenOutcome::failed(error.message, port.into()),
        };
        match serve(Arc::clone(&self.service), listener) {
            Ok(started) => {
                let port = started.local_addr().port();
                *listening = Some(started);
                self.watch_js();
                ListenOutcome::bound(port)
            }
            Err(error) => {
                ListenOutcome::failed(format!("Cannot serve on port {port}: {error}"), port.into())
            }
        }
    }

    /// Stops taking calls and waits up to `graceMs` for the ones in flight.
    async fn drain(&self, grace_ms: f64) {
        self.service
            .admission()
            .drain(Duration::from_millis(grace_ms.max(0.0) as u64))
            .await;
    }

    /// Drains, closes every connection and releases the JS functions, so the process can exit.
    async fn stop(&self, grace_ms: f64) {
        let grace = Duration::from_millis(grace_ms.max(0.0) as u64);
        match self.listening.lock().await.take() {
            Some(listening) => listening.stop(grace).await,
            None => {
                self.service.admission().drain(grace).await;
            }
        }
        if let Ok(mut floor) = self.timer_floor.lock() {
            floor.take();
        }
        if let Some(watching) = self.watching.lock().ok().and_then(|mut w| w.take()) {
            watching.abort();
        }
        self.runner.release();
    }
}

/// The stall limit from the JS option: absent is the default, 0 (or less) never.
fn stall_limit(ms: Option<f64>) -> Option<Duration> {
    let ms = ms.unwrap_or(DEFAULT_STALL_MS as f64);
    (ms > 0.0).then(|| Duration::from_millis(ms as u64))
}

#[napi]
impl NativePackService {
    /// Ends call `id` with its response JSON and outcome (`ok` or an error code), or, with
    /// `failure`, a 500 whose `error` is that text. Returns false when the call is gone.
    #[napi]
    pub fn settle(
        &self,
        id: u32,
        response: String,
        outcome: String,
        honoured_abort: bool,
        failure: Option<String>,
    ) -> bool {
        self.parts
            .settle(id, response, outcome, honoured_abort, failure)
    }

    /// Ends call `id` as TypeScript's service ends a call whose runner threw (a getter Ajv
    /// reads, a schema that recurses forever, a Zod schema or a module getter that throws):
    /// the throw escapes the call, which is answered
    /// 500 with `message` and not recorded. Returns false when the call is gone.
    #[napi]
    pub fn escape(&self, id: u32, message: String) -> bool {
        self.parts.escape(id, message)
    }

    /// Forgets call `id`, answered already (its deadline passed, or its caller left), once JS
    /// found that nothing can settle it any more (its call state was collected: pack code
    /// that never settles, such as a promise nobody resolves). What Rust kept for that settle
    /// goes, with the task waiting on it.
    #[napi]
    pub fn forget(&self, id: u32) {
        self.runner.calls.forget(id);
    }

    /// Calls handed to pack code and not settled yet, answered or not (a handler that ignored
    /// its abort runs on), and calls queued for the JS thread.
    #[napi]
    pub fn unsettled_calls(&self) -> u32 {
        u32::try_from(self.runner.calls.len()).unwrap_or(u32::MAX)
    }

    /// Ends tool call `id` with its handler's output, which Rust checks against the output
    /// schema: `marked` is the output as the schema judges it, `response` the whole message
    /// when JSON writes it differently, `unwritable` why JSON cannot write it at all.
    #[napi]
    pub fn settle_output(
        &self,
        id: u32,
        marked: String,
        response: Option<String>,
        unwritable: Option<String>,
    ) -> bool {
        self.parts.settle_output(id, marked, response, unwritable)
    }

    /// Routes a node:http request and decides everything before its body.
    #[napi]
    pub fn begin(&self, head: RequestHeadJs) -> ReplyJs {
        match self.service.begin(&RequestHead::from(head)) {
            Begin::Reply(reply) => reply.into(),
            Begin::Invoke(admitted) => {
                let limit = self.service.max_body_bytes() as f64;
                ReplyJs::empty(0, Some(self.tickets.issue(admitted)), Some(limit))
            }
        }
    }

    /// Ends an admitted call that will not be invoked (its body failed).
    #[napi]
    pub fn release(&self, ticket: u32) {
        // Dropping the admitted call ends its count.
        self.tickets.end(ticket);
    }

    /// Ends an admitted call whose body went past its `bodyLimit`, with the answer to write.
    #[napi]
    pub fn refuse_body(&self, ticket: u32) -> ReplyJs {
        self.tickets.end(ticket);
        Reply::too_large().into()
    }

    /// The caller of an admitted call went away: its handler's abort fires with `cancelled`.
    #[napi]
    pub fn hang_up(&self, ticket: u32) {
        self.tickets.hang_up(ticket);
    }

    /// The body of admitted call `ticket` is in. Said at once, on the JS thread, because
    /// `invoke` starts on another thread later, while calls read meanwhile count its upload.
    #[napi]
    pub fn body_received(&self, ticket: u32) {
        self.tickets.update(ticket, Admitted::body_received);
    }

    #[napi]
    pub fn prewarm_targets(&self) -> Vec<PrewarmTargetJs> {
        self.parts.prewarm_targets()
    }

    /// Sends one warm-up call through the main thread's dispatcher (see `ServiceParts::warm_up`).
    #[napi]
    pub fn warm_up(&self, request: String) -> bool {
        self.parts.warm_up(0, request)
    }

    /// Lets worker threads attach to this service (`attachPackServiceThread`): the number
    /// they attach with.
    #[napi]
    pub fn share_with_threads(&self) -> u32 {
        pack_service_threads::share(&self.parts)
    }

    #[napi]
    pub fn set_warm(&self, warm: bool) {
        self.service.admission().set_warm(warm);
    }

    #[napi]
    pub fn in_flight(&self) -> u32 {
        u32::try_from(self.service.admission().in_flight()).unwrap_or(u32::MAX)
    }

    #[napi]
    pub fn ready(&self) -> bool {
        self.service.not_ready().is_none()
    }

    /// Stops taking calls now, before any promise is awaited: `drain` and `stop` set the flag
    /// on the runtime's threads, after the JS call has returned.
    #[napi]
    pub fn stop_taking_calls(&self) {
        self.service.admission().stop_taking_calls();
    }

    /// Runs an admitted call from its body text.
    #[napi(ts_return_type = "Promise<ReplyJs>")]
    pub fn invoke<'env>(
        &self,
        env: &'env Env,
        ticket: u32,
        head: RequestHeadJs,
        body: String,
    ) -> napi::Result<PromiseRaw<'env, ReplyJs>> {
        let parts = Arc::clone(&self.parts);
        promise(env, async move { parts.invoke(ticket, head, body).await })
    }

    /// Listens on `host:port` (port 0 picks one). A failure comes back as data: a rejected
    /// promise from an async binding cannot carry a stable `code`.
    #[napi(ts_return_type = "Promise<ListenOutcome>")]
    pub fn listen<'env>(
        &self,
        env: &'env Env,
        host: Option<String>,
        port: u32,
    ) -> napi::Result<PromiseRaw<'env, ListenOutcome>> {
        let parts = Arc::clone(&self.parts);
        promise(env, async move { parts.listen(host, port).await })
    }

    /// Stops taking calls and waits up to `graceMs` for the ones in flight.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn drain<'env>(&self, env: &'env Env, grace_ms: f64) -> napi::Result<PromiseRaw<'env, ()>> {
        let parts = Arc::clone(&self.parts);
        promise(env, async move { parts.drain(grace_ms).await })
    }

    /// Drains, closes every connection and releases the JS functions, so the process can exit.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn stop<'env>(&self, env: &'env Env, grace_ms: f64) -> napi::Result<PromiseRaw<'env, ()>> {
        let parts = Arc::clone(&self.parts);
        promise(env, async move { parts.stop(grace_ms).await })
    }
}

//! The supervisor for JavaScript: the Rust lifecycle, front and relay, with the two things that
//! must stay JavaScript called through threadsafe functions — making a child's command and
//! environment (the owner's `command` and `env()`, read at every start) and hearing events.
//! Neither keeps the process alive, and `close()` releases both.

use crate::binding::callback::JsCallback;
use crate::binding::owned_future::promise;
use crate::binding::pack_service::ListenOutcome;
use crate::json::{has_lone_surrogates, restore_lone_surrogates_if, to_js_json};
use crate::service::listen::listen;
use crate::service::server::{serve_handler, Served, HEADERS_WITHIN};
use crate::supervisor::backlog::{Backlog, Batch, Outbox};
use crate::supervisor::child::{ChildSpec, HOLD_VAR};
use crate::supervisor::event_text::{
    event_text, INTERRUPTED, SERVICE_LINE, STDERR_LINE, STDOUT_LINE,
};
use crate::supervisor::front::Front;
use crate::supervisor::lifecycle::{
    EventSink, InterruptWait, Launch, Lifecycle, LifecycleOptions, SupervisorEvent, INTERRUPT_GRACE,
};
use crate::supervisor::lines::service_event;
use crate::supervisor::relay::{RelayCall, RelayOutcome, RelayRoute};
use napi::bindgen_prelude::{Promise, PromiseRaw};
use napi::threadsafe_function::ThreadsafeFunctionCallMode;
use napi::Env;
use napi::Status;
use napi_derive::napi;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::oneshot;

/// `serviceEvent(line)`: the event as JSON text, or `null` for the pack's own output.
#[napi(js_name = "serviceEventJson")]
pub fn service_event_json(line: String) -> Option<String> {
    service_event(&line).map(|event| {
        restore_lone_surrogates_if(
            to_js_json(&Value::Object(event)),
            has_lone_surrogates(&line),
        )
    })
}

/// The variable that holds a spare pack service until its release (`lib/pack-service-main.js`
/// reads it here).
#[napi(js_name = "PACK_SERVICE_HOLD_VAR")]
pub const PACK_SERVICE_HOLD_VAR: &str = HOLD_VAR;

/// The tags that start the texts of `heard` that are not an event's JSON (see
/// `supervisor::event_text`).
#[napi(object)]
pub struct SupervisorTextTagsJs {
    pub stdout: String,
    pub stderr: String,
    pub service_line: String,
    pub interrupted: String,
}

#[napi(js_name = "supervisorTextTags")]
pub fn supervisor_text_tags() -> SupervisorTextTagsJs {
    SupervisorTextTagsJs {
        stdout: STDOUT_LINE.into(),
        stderr: STDERR_LINE.into(),
        service_line: SERVICE_LINE.into(),
        interrupted: INTERRUPTED.into(),
    }
}

/// What JS makes for a start: the child's argv, whole environment and folder.
#[napi(object)]
pub struct LaunchSpecJs {
    pub program: String,
    pub args: Vec<String>,
    pub env: HashMap<String, String>,
    pub cwd: Option<String>,
}

#[napi(object)]
pub struct NativeSupervisorOptions {
    pub token: String,
    pub boot_timeout_ms: f64,
    pub stop_grace_ms: f64,
    pub max_restarts: u32,
    pub restart_delay_ms: f64,
    pub max_body_bytes: f64,
    /// `onLog` was given: the child's output lines cross to JavaScript.
    pub hears_output: bool,
    /// `onEvent` was given: the events cross to JavaScript.
    pub hears_events: bool,
    /// `nextTurn` was given: a SIGINT or SIGHUP exit waits for JavaScript to step it and
    /// call `judgeInterrupt`, instead of for [`INTERRUPT_GRACE`].
    pub steps_turns: bool,
    /// `spare: true`: the next child is spawned ahead and held.
    pub spare: bool,
}

#[napi(object)]
pub struct StartOutcomeJs {
    pub port: Option<u32>,
    pub problems: Option<Vec<String>>,
}

#[napi(object)]
pub struct RelayCallJs {
    /// `invoke`, `info`, or the path of any other route (`/v1/…`, as fetch writes it).
    pub route: String,
    pub body: Option<String>,
    /// The `kindgi-timeout-ms` text, `String()` of what the caller gave, as fetch sends it.
    pub timeout_ms: Option<String>,
    pub run_id: Option<String>,
    pub request_id: Option<String>,
    pub protocol: Option<String>,
    pub traceparent: Option<String>,
    pub tenant_id: Option<String>,
}

#[napi(object)]
pub struct RelayOutcomeJs {
    /// `answer`, `unavailable`, `failed` or `cancelled`.
    pub kind: String,
    pub status: Option<u32>,
    /// `[name, value, …]` of the headers passed on.
    pub headers: Option<Vec<String>>,
    pub body: Option<String>,
    pub reason: Option<String>,
}

/// Makes a child's launch for an index path (the owner's `command` and `env()`).
type LaunchFn = JsCallback<String, Promise<LaunchSpecJs>>;
/// Takes a batch of texts (`event_text`), one a line.
type EventFn = JsCallback<String>;

/// The JS functions, until `close()` releases them.
#[derive(Default)]
struct JsSide {
    launch: Mutex<Option<Arc<LaunchFn>>>,
    events: Mutex<Option<Arc<EventFn>>>,
}

impl JsSide {
    fn launch(&self) -> Option<Arc<LaunchFn>> {
        self.launch.lock().ok().and_then(|f| f.clone())
    }

    fn events(&self) -> Option<Arc<EventFn>> {
        self.events.lock().ok().and_then(|f| f.clone())
    }

    fn release(&self) {
        if let Ok(mut launch) = self.launch.lock() {
            launch.take();
        }
        if let Ok(mut events) = self.events.lock() {
            events.take();
        }
    }
}

/// Sends `batch` to `heard`; once JavaScript has run it, the texts queued meanwhile go in the
/// next call.
fn send_batch(events: Arc<EventFn>, outbox: Arc<Outbox>, batch: Batch) {
    let Batch { texts, deliveries } = batch;
    let (next_events, next_outbox) = (Arc::clone(&events), Arc::clone(&outbox));
    let status = events.call_with_return_value(
        texts,
        ThreadsafeFunctionCallMode::NonBlocking,
        move |_, _| {
            drop(deliveries);
            if let Some(next) = next_outbox.next() {
                send_batch(next_events, next_outbox, next);
            }
            Ok(())
        },
    );
    // Released (the supervisor closes): nothing queued will be delivered, nor held.
    if status != Status::Ok {
        while outbox.next().is_some() {}
    }
}

/// A relay call's cancel: the side `cancel` fires and the side `forward` waits on, each taken
/// once.
type CancelPair = (Option<oneshot::Sender<()>>, Option<oneshot::Receiver<()>>);

/// The supervisor as JavaScript holds it: its async methods run on a clone of `core`, which
/// outlives the object when an ending worker thread frees it mid-call (see `owned_future`).
#[napi]
pub struct NativeSupervisor {
    core: Arc<SupervisorCore>,
}

/// What the supervisor's methods work on, shared with the futures of its promises.
struct SupervisorCore {
    lifecycle: Arc<Lifecycle>,
    front: Arc<Front>,
    listening: tokio::sync::Mutex<Option<Served>>,
    js: Arc<JsSide>,
    /// Each relay call's cancel, made with its ticket (on the JS thread, before the call's
    /// future runs), so a cancel that comes at once is not lost.
    cancels: Mutex<HashMap<u32, CancelPair>>,
    next_cancel: AtomicU32,
}

fn millis(ms: f64) -> Duration {
    Duration::from_millis(if ms.is_finite() {
        ms.max(0.0) as u64
    } else {
        u64::MAX
    })
}

#[napi(
    js_name = "createNativeSupervisor",
    ts_args_type = "options: NativeSupervisorOptions, launch: (indexPath: string) => Promise<LaunchSpecJs>, events: (event: string) => void"
)]
pub fn create_native_supervisor(
    options: NativeSupervisorOptions,
    launch: LaunchFn,
    events: EventFn,
) -> NativeSupervisor {
    let js = Arc::new(JsSide {
        launch: Mutex::new(Some(Arc::new(launch))),
        events: Mutex::new(Some(Arc::new(events))),
    });
    let launch_js = Arc::clone(&js);
    let launcher: Launch = Arc::new(move |index_path| {
        let launch = launch_js.launch();
        Box::pin(async move {
            let Some(launch) = launch else {
                return Err("The pack service is closing".to_owned());
            };
            let spec = launch
                .call_async_catch(index_path)
                .await
                .map_err(|e| e.reason.clone())?
                .await
                .map_err(|e| e.reason.clone())?;
            Ok(ChildSpec {
                program: spec.program,
                args: spec.args,
                env: spec.env.into_iter().collect(),
                cwd: spec.cwd.map(Into::into),
            })
        })
    });
    let events_js = Arc::clone(&js);
    let backlog = Arc::new(Backlog::default());
    let entering = Arc::clone(&backlog);
    let (hears_output, hears_events) = (options.hears_output, options.hears_events);
    let outbox = Arc::new(Outbox::default());
    let sink: EventSink = Arc::new(move |event| {
        // A line or an event nobody listens for is not made into text nor carried across (a
        // call record per call, while a child serves under load).
        let heard = match event {
            SupervisorEvent::Output { .. } => hears_output,
            // Needed whoever listens: the exit is judged only once JavaScript has it.
            SupervisorEvent::Interrupted { .. } => true,
            _ => hears_events,
        };
        if !heard {
            return;
        }
        if let Some(events) = events_js.events() {
            let json = event_text(event);
            // Left once JavaScript has run `heard` on its batch (or never will); its text is
            // what waits meanwhile.
            let delivery = entering.enter(json.len());
            if let Some(batch) = outbox.push(&json, delivery) {
                send_batch(events, Arc::clone(&outbox), batch);
            }
        }
    });
    let lifecycle = Lifecycle::new(
        LifecycleOptions {
            boot_timeout: millis(options.boot_timeout_ms),
            stop_grace: millis(options.stop_grace_ms),
            max_restarts: options.max_restarts,
            restart_delay: millis(options.restart_delay_ms),
            interrupt_wait: if options.steps_turns {
                InterruptWait::Owner
            } else {
                InterruptWait::Grace(INTERRUPT_GRACE)
            },
            backlog,
            spare: options.spare,
        },
        launcher,
        sink,
    );
    let serving = Arc::downgrade(&lifecycle);
    let front = Arc::new(Front::new(
        options.token,
        lifecycle.serving(),
        lifecycle.calls(),
        options.max_body_bytes as usize,
        Box::new(move || serving.upgrade().is_some_and(|l| l.serving_is_stalled())),
    ));
    NativeSupervisor {
        core: Arc::new(SupervisorCore {
            lifecycle,
            front,
            listening: tokio::sync::Mutex::new(None),
            js,
            cancels: Mutex::new(HashMap::new()),
            next_cancel: AtomicU32::new(1),
        }),
    }
}

#[napi]
impl NativeSupervisor {
    /// Opens the front on `host:port`; a failure comes back as data.
    #[napi(ts_return_type = "Promise<ListenOutcome>")]
    pub fn listen<'env>(
        &self,
        env: &'env Env,
        host: String,
        port: u32,
    ) -> napi::Result<PromiseRaw<'env, ListenOutcome>> {
        let core = Arc::clone(&self.core);
        promise(env, async move { core.listen(host, port).await })
    }

    /// `fresh`: a new process even when a spare is held.
    #[napi(ts_return_type = "Promise<StartOutcomeJs>")]
    pub fn start<'env>(
        &self,
        env: &'env Env,
        index_path: String,
        fresh: bool,
    ) -> napi::Result<PromiseRaw<'env, StartOutcomeJs>> {
        let core = Arc::clone(&self.core);
        promise(env, async move { core.start(index_path, fresh).await })
    }

    #[napi(ts_return_type = "Promise<void>")]
    pub fn stop<'env>(&self, env: &'env Env) -> napi::Result<PromiseRaw<'env, ()>> {
        let core = Arc::clone(&self.core);
        promise(env, async move { core.stop().await })
    }

    #[napi]
    pub fn begin_close(&self) {
        self.core.lifecycle.begin_close();
    }

    /// Retires the child, closes the front and releases the JS functions.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn close<'env>(&self, env: &'env Env) -> napi::Result<PromiseRaw<'env, ()>> {
        let core = Arc::clone(&self.core);
        promise(env, async move { core.close().await })
    }

    /// Judges the SIGINT or SIGHUP exit JavaScript was told of (its id after the `INTERRUPTED`
    /// tag), once the owner's `nextTurn` has stepped it: the events that raises now, as a batch
    /// for `heard`, or `null`.
    #[napi]
    pub fn judge_interrupt(&self, id: u32) -> Option<String> {
        self.core.judge_interrupt(id)
    }

    #[napi]
    pub fn serving(&self) -> bool {
        self.core.lifecycle.serving().borrow().is_some()
    }

    /// A ticket for a relay call that JS may cancel.
    #[napi]
    pub fn cancel_ticket(&self) -> u32 {
        self.core.cancel_ticket()
    }

    #[napi]
    pub fn cancel(&self, ticket: u32) {
        self.core.cancel(ticket);
    }

    /// Forwards one call to the serving child; `ticket` lets `cancel` drop it.
    #[napi(ts_return_type = "Promise<RelayOutcomeJs>")]
    pub fn forward<'env>(
        &self,
        env: &'env Env,
        call: RelayCallJs,
        ticket: u32,
    ) -> napi::Result<PromiseRaw<'env, RelayOutcomeJs>> {
        let core = Arc::clone(&self.core);
        promise(env, async move { core.forward(call, ticket).await })
    }
}

impl SupervisorCore {
    /// Opens the front on `host:port`; a failure comes back as data.
    async fn listen(&self, host: String, port: u32) -> ListenOutcome {
        let mut listening = self.listening.lock().await;
        if let Some(served) = listening.as_ref() {
            return ListenOutcome::bound(served.local_addr().port());
        }
        let Ok(port) = u16::try_from(port) else {
            return ListenOutcome::failed(format!("{port} is not a port number"), port);
        };
        let listener = match listen(Some(&host), port).await {
            Ok(listener) => listener,
            Err(error) => return ListenOutcome::refused(error),
        };
        match serve_handler(Arc::clone(&self.front), listener, HEADERS_WITHIN) {
            Ok(served) => {
                let port = served.local_addr().port();
                self.lifecycle.set_front_port(port);
                *listening = Some(served);
                ListenOutcome::bound(port)
            }
            Err(error) => {
                ListenOutcome::failed(format!("Cannot serve on port {port}: {error}"), port.into())
            }
        }
    }

    /// `fresh`: a new process even when a spare is held.
    async fn start(&self, index_path: String, fresh: bool) -> StartOutcomeJs {
        let started = if fresh {
            self.lifecycle.start_fresh(&index_path).await
        } else {
            self.lifecycle.start(&index_path).await
        };
        match started {
            Ok(port) => StartOutcomeJs {
                port: Some(u32::from(port)),
                problems: None,
            },
            Err(problems) => StartOutcomeJs {
                port: None,
                problems: Some(problems),
            },
        }
    }

    async fn stop(&self) {
        self.lifecycle.stop().await;
        self.front.drop_idle_connections();
    }

    /// Retires the child, closes the front and releases the JS functions.
    async fn close(&self) {
        self.lifecycle.close().await;
        self.front.drop_idle_connections();
        if let Some(served) = self.listening.lock().await.take() {
            served.close().await;
        }
        self.js.release();
    }

    /// Judges the SIGINT or SIGHUP exit JavaScript was told of (its id after the `INTERRUPTED`
    /// tag), once the owner's `nextTurn` has stepped it: the events that raises now, as a batch
    /// for `heard`, or `null`.
    fn judge_interrupt(&self, id: u32) -> Option<String> {
        let raised = self.lifecycle.judge_interrupt(id);
        (!raised.is_empty()).then(|| {
            raised
                .into_iter()
                .map(event_text)
                .collect::<Vec<_>>()
                .join("\n")
        })
    }

    /// A ticket for a relay call that JS may cancel.
    fn cancel_ticket(&self) -> u32 {
        let ticket = self.next_cancel.fetch_add(1, Ordering::Relaxed);
        let (cancel, cancelled) = oneshot::channel();
        if let Ok(mut cancels) = self.cancels.lock() {
            cancels.insert(ticket, (Some(cancel), Some(cancelled)));
        }
        ticket
    }

    fn cancel(&self, ticket: u32) {
        let cancel = self
            .cancels
            .lock()
            .ok()
            .and_then(|mut c| c.get_mut(&ticket).and_then(|(cancel, _)| cancel.take()));
        if let Some(cancel) = cancel {
            let _ = cancel.send(());
        }
    }

    /// Forwards one call to the serving child; `ticket` lets `cancel` drop it.
    async fn forward(&self, call: RelayCallJs, ticket: u32) -> RelayOutcomeJs {
        let cancelled = self.cancels.lock().ok().and_then(|mut c| {
            c.get_mut(&ticket)
                .and_then(|(_, cancelled)| cancelled.take())
        });
        // Without a ticket (never made, or used twice) the call cannot be cancelled.
        let cancelled = async move {
            match cancelled {
                Some(cancelled) => cancelled.await.is_ok(),
                None => std::future::pending().await,
            }
        };
        let call = RelayCall {
            route: RelayRoute::from_name(call.route),
            body: call.body,
            timeout_ms: call.timeout_ms,
            run_id: call.run_id,
            request_id: call.request_id,
            protocol: call.protocol,
            traceparent: call.traceparent,
            tenant_id: call.tenant_id,
        };
        let outcome = tokio::select! {
            outcome = self.front.forward(&call) => Some(outcome),
            true = cancelled => None,
        };
        if let Ok(mut cancels) = self.cancels.lock() {
            cancels.remove(&ticket);
        }
        let empty = |kind: &str, reason: Option<String>| RelayOutcomeJs {
            kind: kind.into(),
            status: None,
            headers: None,
            body: None,
            reason,
        };
        match outcome {
            None => empty("cancelled", None),
            Some(RelayOutcome::Unavailable(reason)) => empty("unavailable", Some(reason)),
            Some(RelayOutcome::Failed(reason)) => empty("failed", Some(reason)),
            Some(RelayOutcome::Answer {
                status,
                headers,
                body,
            }) => RelayOutcomeJs {
                kind: "answer".into(),
                status: Some(u32::from(status)),
                headers: Some(
                    headers
                        .into_iter()
                        .flat_map(|(n, v)| [n.as_str().to_owned(), v])
                        .collect(),
                ),
                body: Some(body),
                reason: None,
            },
        }
    }
}

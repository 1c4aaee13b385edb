//! The hyper pack service over real HTTP on loopback, with Rust-side fake handlers: routing,
//! refusals, admission, bodies, deadlines, cancellation, tenant pinning and drain.

mod common;

use common::random::Rng;
use common::{exchange, read_response, wait_until};
use kindgi_handler_runtime_native::env::PackEnvCheck;
use kindgi_handler_runtime_native::json::protect_lone_surrogates;
use kindgi_handler_runtime_native::log::{LogSettings, Logger, Sink};
use kindgi_handler_runtime_native::service::admission::QUEUE_BUDGET;
use kindgi_handler_runtime_native::service::call::{
    AbortReason, Answer, Call, CallAbort, RunFuture, Runner, Settled, Target, ToolOutput,
};
use kindgi_handler_runtime_native::service::catalog::Catalog;
use kindgi_handler_runtime_native::service::core::{
    PackService, ServiceEvent, ServiceOptions, DEFAULT_MAX_BODY_BYTES,
};
use kindgi_handler_runtime_native::service::server::{serve_with, Listening, ReadLimits};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};

const TOKEN: &str = "test-token";

/// Fake pack code, by tool id: `echo` answers its input (its schemas give `n` a default and cap
/// `text` at 5 characters on the way out), `wait` waits for its abort and
/// honours it, `stubborn` ignores its abort for 150 ms, `panics` panics; the check `c` passes.
struct FakeRunner {
    aborts: Arc<Mutex<Vec<(String, AbortReason)>>>,
}

impl Runner for FakeRunner {
    fn run(&self, call: Call, abort: CallAbort) -> RunFuture {
        let aborts = Arc::clone(&self.aborts);
        Box::pin(async move {
            let message = |text: String| Settled {
                answer: Answer::Message(text),
                honoured_abort: false,
            };
            match &call.target {
                Target::Check(_) => {
                    message(r#"{"v":2,"kind":"check-result","result":{"passed":true}}"#.into())
                }
                Target::Tool(tool) => match tool.id.as_str() {
                    // Answers its input with the defaults filled, as the JS runner would.
                    "echo" => Settled {
                        answer: Answer::Output(ToolOutput {
                            marked: call.input_json(),
                            response: None,
                            unwritable: None,
                        }),
                        honoured_abort: false,
                    },
                    "wait" => {
                        let reason = abort.aborted().await;
                        aborts
                            .lock()
                            .map(|mut a| a.push((call.id.clone(), reason)))
                            .ok();
                        Settled {
                            answer: Answer::Message(
                                r#"{"v":2,"kind":"result","output":{}}"#.into(),
                            ),
                            honoured_abort: true,
                        }
                    }
                    "panics" => panic!("the fake pack code panics"),
                    _ => {
                        tokio::time::sleep(Duration::from_millis(150)).await;
                        message(r#"{"v":2,"kind":"result","output":{}}"#.into())
                    }
                },
            }
        })
    }
}

struct Harness {
    listening: Listening,
    events: Arc<Mutex<Vec<ServiceEvent>>>,
    /// The call records, one JSON line each.
    records: Arc<Mutex<Vec<String>>>,
    aborts: Arc<Mutex<Vec<(String, AbortReason)>>>,
}

impl Harness {
    async fn start(max_concurrency: usize, tenant: Option<&str>, missing_env: &[&str]) -> Harness {
        Harness::start_with(max_concurrency, tenant, missing_env, ReadLimits::default()).await
    }

    async fn start_with(
        max_concurrency: usize,
        tenant: Option<&str>,
        missing_env: &[&str],
        limits: ReadLimits,
    ) -> Harness {
        let index = json!({
            "v": 1, "packId": "fake", "packVersion": "1.0.0", "artifactVersion": "20260101.1",
            "tools": [
                {"id": "echo", "modulePath": "echo.mjs",
                 "input": {"type": "object", "properties": {
                     "text": {"type": "string"}, "n": {"type": "integer", "default": 1}}},
                 "output": {"type": "object", "properties": {"text": {"type": "string", "maxLength": 5}}}},
                {"id": "wait", "modulePath": "wait.mjs", "version": "1.0.0", "input": {}, "output": {}},
                {"id": "stubborn", "modulePath": "stubborn.mjs", "input": {}, "output": true},
                {"id": "panics", "modulePath": "panics.mjs", "input": {}, "output": {}}
            ],
            "guardrails": [{"id": "g", "checkId": "c", "checkModulePath": "c.mjs"}],
            "agents": [], "flows": []
        });
        let catalog = Catalog::from_index(&index).expect("the fake index is valid");
        let events = Arc::new(Mutex::new(Vec::new()));
        let aborts = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&events);
        let records = Arc::new(Mutex::new(Vec::new()));
        let service = PackService::new(
            ServiceOptions {
                catalog,
                token: TOKEN.into(),
                tenant: tenant.map(str::to_owned),
                max_concurrency,
                max_body_bytes: DEFAULT_MAX_BODY_BYTES,
                default_timeout_ms: 120_000,
                env_check: PackEnvCheck::Strict,
                missing_env: missing_env.iter().map(|s| s.to_string()).collect(),
                index_hash: Some("sha256:00".into()),
                records: Some(records_logger(Arc::clone(&records))),
                share_call_bindings: false,
                js_threads: Default::default(),
                stall_limit: None,
            },
            Arc::new(FakeRunner {
                aborts: Arc::clone(&aborts),
            }),
            Some(Arc::new(move |event| {
                sink.lock().map(|mut e| e.push(event)).ok();
            })),
        );
        service.admission().set_warm(true);
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind loopback");
        let listening = serve_with(Arc::new(service), listener, limits).expect("serve");
        Harness {
            listening,
            events,
            aborts,
            records,
        }
    }

    fn addr(&self) -> SocketAddr {
        self.listening.local_addr()
    }

    /// Sends `request` on a new connection and waits until its call runs; the connection,
    /// left open.
    async fn running(&self, request: &[u8]) -> TcpStream {
        let mut stream = TcpStream::connect(self.addr()).await.expect("connect");
        stream.write_all(request).await.expect("send");
        let service = Arc::clone(self.listening.service());
        wait_until(|| service.admission().in_flight() == 1).await;
        stream
    }

    fn events(&self) -> Vec<ServiceEvent> {
        self.events.lock().map(|e| e.clone()).unwrap_or_default()
    }

    fn records(&self) -> Vec<Value> {
        self.records
            .lock()
            .map(|lines| {
                lines
                    .iter()
                    .map(|line| serde_json::from_str(line).expect("a record is JSON"))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// The service's records logger as `startPackService` makes it, writing into `lines`.
fn records_logger(lines: Arc<Mutex<Vec<String>>>) -> Logger {
    let sink: Sink = Arc::new(move |line: &str| {
        lines.lock().map(|mut l| l.push(line.to_owned())).ok();
    });
    let Value::Object(bindings) =
        json!({"subsystem": "pack", "packId": "fake", "artifactVersion": "1"})
    else {
        unreachable!("an object literal")
    };
    Logger::new(LogSettings::default(), sink).child(bindings)
}

fn get(path: &str, extra: &str) -> Vec<u8> {
    format!("GET {path} HTTP/1.1\r\nhost: x\r\n{extra}\r\n").into_bytes()
}

/// An invoke's head declaring `content_length`, with `extra` header lines before its end.
fn invoke_head(content_length: usize, extra: &str) -> String {
    format!(
        "POST /v1/invoke HTTP/1.1\r\nhost: x\r\nkindgi-pack-token: {TOKEN}\r\ncontent-type: application/json\r\ncontent-length: {content_length}\r\n{extra}\r\n"
    )
}

fn invoke_request(body: &str, extra: &str) -> Vec<u8> {
    format!("{}{body}", invoke_head(body.len(), extra)).into_bytes()
}

fn tool_call(id: &str) -> String {
    json!({"v": 2, "kind": "invoke", "tool": {"id": id}, "input": {"text": "hi"},
        "ctx": {"tenantId": "t1", "runId": "r1"}})
    .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn probes_info_and_refusals() {
    let h = Harness::start(4, None, &[]).await;
    let health = exchange(h.addr(), &get("/healthz", "")).await;
    assert_eq!(
        (health.status, health.body.as_str()),
        (200, r#"{"status":"ok"}"#)
    );
    assert_eq!(
        health.header("content-type"),
        Some("application/json; charset=utf-8")
    );
    let ready = exchange(h.addr(), &get("/readyz", "")).await;
    assert_eq!(
        (ready.status, ready.body.as_str()),
        (200, r#"{"status":"ready"}"#)
    );

    let missing = exchange(h.addr(), &get("/nope?q=1", "")).await;
    assert_eq!(
        (missing.status, missing.body.as_str()),
        (404, r#"{"error":"No route /nope?q=1"}"#)
    );
    let method = exchange(h.addr(), &get("/v1/invoke", "")).await;
    assert_eq!(
        (method.status, method.body.as_str()),
        (405, r#"{"error":"Use POST"}"#)
    );
    assert_eq!(method.header("allow"), None);
    let token = exchange(h.addr(), &get("/v1/info", "kindgi-pack-token: wrong\r\n")).await;
    assert_eq!(
        (token.status, token.body.as_str()),
        (401, r#"{"error":"Bad pack token"}"#)
    );
    let twice = exchange(
        h.addr(),
        &get(
            "/v1/info",
            &format!("kindgi-pack-token: {TOKEN}\r\nkindgi-pack-token: {TOKEN}\r\n"),
        ),
    )
    .await;
    assert_eq!(twice.status, 401);

    let info = exchange(
        h.addr(),
        &get("/v1/info", &format!("kindgi-pack-token:  {TOKEN} \r\n")),
    )
    .await;
    assert_eq!(info.status, 200);
    assert_eq!(
        info.body,
        r#"{"protocol":2,"packId":"fake","packVersion":"1.0.0","artifactVersion":"20260101.1","indexHash":"sha256:00","tools":[{"id":"echo"},{"id":"wait","version":"1.0.0"},{"id":"stubborn"},{"id":"panics"}],"checks":["c"],"missingEnv":[]}"#
    );
    h.listening.stop(Duration::from_millis(100)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invokes_answer_messages_with_their_headers() {
    let h = Harness::start(4, None, &[]).await;
    let echoed = exchange(h.addr(), &invoke_request(&tool_call("echo"), "")).await;
    assert_eq!(echoed.status, 200);
    assert_eq!(
        echoed.body,
        r#"{"v":2,"kind":"result","output":{"text":"hi","n":1}}"#
    );
    assert_eq!(echoed.header("kindgi-artifact-version"), Some("20260101.1"));
    // Input and output are checked in Rust, around the handler.
    let with_input = |input: Value| {
        json!({"v": 2, "kind": "invoke", "tool": {"id": "echo"}, "input": input,
            "ctx": {"tenantId": "t1", "runId": "r1"}})
        .to_string()
    };
    let bad_input = exchange(
        h.addr(),
        &invoke_request(&with_input(json!({"text": 5})), ""),
    )
    .await;
    assert_eq!(
        bad_input.body,
        r##"{"v":2,"kind":"error","code":"input-validation-failed","message":"Tool \"echo\" input failed validation","toolId":"echo","issues":[{"instancePath":"/text","schemaPath":"#/properties/text/type","keyword":"type","params":{"type":"string"},"message":"must be string"}]}"##
    );
    let bad_output = exchange(
        h.addr(),
        &invoke_request(&with_input(json!({"text": "too long"})), ""),
    )
    .await;
    assert!(bad_output.body.starts_with(
        r#"{"v":2,"kind":"error","code":"output-validation-failed","message":"Tool \"echo\" handler produced output that failed validation","toolId":"echo","issues":[{"instancePath":"/text","#
    ));
    assert!(echoed
        .header("kindgi-duration-ms")
        .is_some_and(|v| v.parse::<u64>().is_ok()));

    let check =
        json!({"v": 2, "kind": "check-invoke", "check": {"id": "c"}, "config": {}, "trace": {}});
    let checked = exchange(h.addr(), &invoke_request(&check.to_string(), "")).await;
    assert_eq!(
        checked.body,
        r#"{"v":2,"kind":"check-result","result":{"passed":true}}"#
    );

    let not_json = exchange(h.addr(), &invoke_request("{nope", "")).await;
    assert_eq!(
        (not_json.status, not_json.body.as_str()),
        (
            200,
            r#"{"v":2,"kind":"error","code":"malformed-message","message":"Request body is not valid JSON"}"#
        )
    );
    let bom = exchange(h.addr(), &invoke_request("\u{feff}{}", "")).await;
    assert!(bom.body.contains("malformed-message"));
    let not_utf8 = exchange(
        h.addr(),
        b"POST /v1/invoke HTTP/1.1\r\nhost: x\r\nkindgi-pack-token: test-token\r\ncontent-type: application/json\r\ncontent-length: 9\r\n\r\n{\"v\":\"\xff\"}",
    )
    .await;
    assert_eq!(
        (not_utf8.status, not_utf8.body.as_str()),
        (200, "{\"v\":2,\"kind\":\"error\",\"code\":\"unknown-protocol-version\",\"message\":\"Expected protocol v2, got \\\"\u{fffd}\\\"\"}")
    );

    let unknown = exchange(h.addr(), &invoke_request(&tool_call("nope"), "")).await;
    assert_eq!(
        unknown.body,
        r#"{"v":2,"kind":"error","code":"tool-not-in-pack","message":"This pack has no tool \"nope\"","toolId":"nope"}"#
    );
    let wrong_type = exchange(
        h.addr(),
        format!(
            "POST /v1/invoke HTTP/1.1\r\nhost: x\r\nkindgi-pack-token: {TOKEN}\r\ncontent-type: text/plain\r\ncontent-length: 2\r\n\r\n{{}}"
        )
        .as_bytes(),
    )
    .await;
    assert_eq!(
        (wrong_type.status, wrong_type.body.as_str()),
        (415, r#"{"error":"Content-Type must be application/json"}"#)
    );
    assert_eq!(wrong_type.header("retry-after"), None);

    // Over the cap by its declared length: refused before the body is sent.
    let declared = exchange(
        h.addr(),
        invoke_head(DEFAULT_MAX_BODY_BYTES + 1, "").as_bytes(),
    )
    .await;
    assert_eq!(
        (declared.status, declared.body.as_str()),
        (413, r#"{"error":"Request body too large"}"#)
    );
    // Over the cap in chunks: read to the end, then refused.
    let mut chunked = format!(
        "POST /v1/invoke HTTP/1.1\r\nhost: x\r\nkindgi-pack-token: {TOKEN}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n"
    )
    .into_bytes();
    let piece = vec![b' '; 1 << 20];
    for _ in 0..11 {
        chunked.extend_from_slice(format!("{:x}\r\n", piece.len()).as_bytes());
        chunked.extend_from_slice(&piece);
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let streamed = exchange(h.addr(), &chunked).await;
    assert_eq!(streamed.status, 413);

    let calls: Vec<_> = h
        .events()
        .into_iter()
        .filter_map(|e| match e {
            ServiceEvent::Call { id, outcome, .. } => Some((id, outcome)),
            ServiceEvent::FinishedLate { .. } => None,
        })
        .collect();
    // Parse failures are not calls.
    assert_eq!(
        calls,
        vec![
            ("echo".to_owned(), "ok"),
            ("echo".to_owned(), "input-validation-failed"),
            ("echo".to_owned(), "output-validation-failed"),
            ("c".to_owned(), "ok"),
            ("nope".to_owned(), "tool-not-in-pack")
        ]
    );
    h.listening.stop(Duration::from_millis(100)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deadlines_and_late_handlers() {
    let h = Harness::start(4, None, &[]).await;
    let waited = exchange(
        h.addr(),
        &invoke_request(&tool_call("wait"), "kindgi-timeout-ms: 40\r\n"),
    )
    .await;
    assert_eq!(
        waited.body,
        r#"{"v":2,"kind":"error","code":"deadline-exceeded","message":"wait passed its deadline","toolId":"wait"}"#
    );
    let stubborn = exchange(
        h.addr(),
        &invoke_request(&tool_call("stubborn"), "kindgi-timeout-ms: 20\r\n"),
    )
    .await;
    assert!(stubborn.body.contains("\"stubborn passed its deadline\""));
    let late_events = || -> Vec<_> {
        h.events()
            .into_iter()
            .filter_map(|e| match e {
                ServiceEvent::FinishedLate { id, after_ms, .. } => Some((id, after_ms)),
                ServiceEvent::Call { .. } => None,
            })
            .collect()
    };
    wait_until(|| !late_events().is_empty()).await;
    // Long enough for a wrongly reported `wait` to show up too.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let late = late_events();
    // Only the handler that ignored its abort is reported.
    assert_eq!(late.len(), 1, "{late:?}");
    assert_eq!(late[0].0, "stubborn");
    assert!(late[0].1 >= 100, "{late:?}");
    let aborts = h.aborts.lock().map(|a| a.clone()).unwrap_or_default();
    assert_eq!(
        aborts,
        vec![("wait".to_owned(), AbortReason::DeadlineExceeded)]
    );
    h.listening.stop(Duration::from_millis(100)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pack_code_that_panics_is_answered_and_the_service_goes_on() {
    let h = Harness::start(4, None, &[]).await;
    let panicked = exchange(h.addr(), &invoke_request(&tool_call("panics"), "")).await;
    assert_eq!(panicked.status, 200);
    assert_eq!(
        panicked.body,
        r#"{"v":2,"kind":"error","code":"handler-throw","message":"The tool panics stopped without an answer","toolId":"panics"}"#
    );
    let echoed = exchange(h.addr(), &invoke_request(&tool_call("echo"), "")).await;
    assert_eq!(echoed.status, 200);
    h.listening.stop(Duration::from_millis(100)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_caller_that_hangs_up_cancels_its_call() {
    let h = Harness::start(4, None, &[]).await;
    // Wait until the call runs, then hang up.
    let stream = h.running(&invoke_request(&tool_call("wait"), "")).await;
    drop(stream);
    let aborts = || h.aborts.lock().map(|a| a.clone()).unwrap_or_default();
    wait_until(|| !aborts().is_empty()).await;
    assert_eq!(aborts(), vec![("wait".to_owned(), AbortReason::Cancelled)]);
    assert!(h.events().iter().any(|e| matches!(
        e,
        ServiceEvent::Call {
            outcome: "cancelled",
            ..
        }
    )));
    assert_eq!(h.listening.service().admission().in_flight(), 0);
    h.listening.stop(Duration::from_millis(100)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cap_and_drain_answer_503() {
    let h = Harness::start(1, None, &[]).await;
    let addr = h.addr();
    let first =
        tokio::spawn(
            async move { exchange(addr, &invoke_request(&tool_call("stubborn"), "")).await },
        );
    let service = Arc::clone(h.listening.service());
    wait_until(|| service.admission().in_flight() == 1).await;
    let refused = exchange(addr, &invoke_request(&tool_call("echo"), "")).await;
    assert_eq!(
        (refused.status, refused.body.as_str()),
        (503, r#"{"error":"overloaded"}"#)
    );
    assert_eq!(refused.header("retry-after"), Some("1"));

    let stopping = tokio::spawn(h.listening.stop(Duration::from_secs(5)));
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert!(service.admission().is_draining());
    // The call in flight finishes and is answered.
    let answered = first.await.expect("the first call completes");
    assert_eq!(answered.body, r#"{"v":2,"kind":"result","output":{}}"#);
    stopping.await.expect("stop completes");
    assert!(
        TcpStream::connect(addr).await.is_err(),
        "still accepting after stop"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_during_a_drain_close_their_connection_and_say_so() {
    let h = Harness::start(4, None, &[]).await;
    // A slow call and a quick one pipelined behind it on one connection.
    let mut pipelined = invoke_request(&tool_call("stubborn"), "");
    pipelined.extend(invoke_request(&tool_call("echo"), ""));
    let mut stream = h.running(&pipelined).await;
    let stopping = tokio::spawn(h.listening.stop(Duration::from_secs(5)));
    let answered = read_response(&mut stream).await;
    assert_eq!(answered.status, 200);
    // Not `keep-alive` (nor `keep-alive, close`): the pipelined call was not read, and the
    // client can tell.
    assert_eq!(answered.header("connection"), Some("close"));
    assert_eq!(answered.header("keep-alive"), None);
    stopping.await.expect("stop completes");
    let mut rest = Vec::new();
    let _ = tokio::io::AsyncReadExt::read_to_end(&mut stream, &mut rest).await;
    assert!(rest.is_empty(), "nothing after the closing answer");
    // Outside a drain, answers keep their connection as Node's do.
    let h = Harness::start(4, None, &[]).await;
    let kept = exchange(h.addr(), &invoke_request(&tool_call("echo"), "")).await;
    assert_eq!(kept.header("connection"), Some("keep-alive"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_that_stop_cuts_is_reported_before_stop_returns() {
    let h = Harness::start(4, None, &[]).await;
    let _stream = h.running(&invoke_request(&tool_call("wait"), "")).await;
    // No grace, and pack code that waits for its abort: the call is cut when the connections
    // close.
    h.listening.stop(Duration::ZERO).await;
    let reported = h
        .events
        .lock()
        .map(|e| {
            e.iter()
                .filter(|e| {
                    matches!(
                        e,
                        ServiceEvent::Call {
                            outcome: "cancelled",
                            ..
                        }
                    )
                })
                .count()
        })
        .unwrap_or_default();
    assert_eq!(
        reported, 1,
        "the cut call's event came before stop returned"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn draining_and_missing_env_are_not_ready() {
    let h = Harness::start(4, None, &["B", "A\""]).await;
    let ready = exchange(h.addr(), &get("/readyz", "")).await;
    assert_eq!(
        (ready.status, ready.body.as_str()),
        (503, r#"{"error":"missing env","missingEnv":["B","A\""]}"#)
    );
    let call = exchange(h.addr(), &invoke_request(&tool_call("echo"), "")).await;
    assert_eq!(call.status, 503);
    let info = exchange(
        h.addr(),
        &get("/v1/info", &format!("kindgi-pack-token: {TOKEN}\r\n")),
    )
    .await;
    assert!(info.body.ends_with(r#""missingEnv":["B","A\""]}"#));
    let admission = Arc::clone(h.listening.service().admission());
    admission.drain(Duration::ZERO).await;
    let draining = exchange(h.addr(), &get("/readyz", "")).await;
    assert_eq!(draining.body, r#"{"error":"draining"}"#);
    h.listening.stop(Duration::from_millis(100)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pinned_service_refuses_other_tenants() {
    let h = Harness::start(4, Some("t1"), &[]).await;
    let no_header = exchange(h.addr(), &invoke_request(&tool_call("echo"), "")).await;
    assert_eq!(
        (no_header.status, no_header.body.as_str()),
        (421, r#"{"code":"pack-tenant-mismatch"}"#)
    );
    let other = exchange(
        h.addr(),
        &get(
            "/v1/info",
            &format!("kindgi-pack-token: {TOKEN}\r\nkindgi-tenant-id: t2\r\n"),
        ),
    )
    .await;
    assert_eq!(other.status, 421);
    let ok = exchange(
        h.addr(),
        &invoke_request(&tool_call("echo"), "kindgi-tenant-id: t1\r\n"),
    )
    .await;
    assert_eq!(ok.status, 200);
    let mut foreign: Value = serde_json::from_str(&tool_call("echo")).expect("json");
    foreign["ctx"]["tenantId"] = json!("t2");
    let context = exchange(
        h.addr(),
        &invoke_request(&foreign.to_string(), "kindgi-tenant-id: t1\r\n"),
    )
    .await;
    assert_eq!(
        (context.status, context.body.as_str()),
        (421, r#"{"code":"pack-tenant-mismatch"}"#)
    );
    // Probes stay open to the platform.
    assert_eq!(exchange(h.addr(), &get("/healthz", "")).await.status, 200);
    h.listening.stop(Duration::from_millis(100)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_call_writes_one_record_with_its_ids_and_trace() {
    let h = Harness::start(4, None, &[]).await;
    let parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    exchange(
        h.addr(),
        &invoke_request(&tool_call("echo"), &format!("traceparent: {parent}\r\n")),
    )
    .await;
    exchange(h.addr(), &invoke_request(&tool_call("nope"), "")).await;
    exchange(h.addr(), &invoke_request("{", "")).await;
    wait_until(|| h.records().len() >= 2).await;
    let records = h.records();
    assert_eq!(
        records.len(),
        2,
        "a parse failure writes no record: {records:?}"
    );
    let ok = &records[0];
    let keys: Vec<&str> = ok
        .as_object()
        .map_or(vec![], |o| o.keys().map(String::as_str).collect());
    assert_eq!(
        keys,
        [
            "time",
            "level",
            "severity",
            "subsystem",
            "message",
            "traceId",
            "spanId",
            "tenantId",
            "runId",
            "toolId",
            "packId",
            "artifactVersion",
            "target",
            "event",
            "kind",
            "id",
            "outcome",
            "durationMs",
            "inMessage"
        ]
    );
    assert_eq!(ok["level"], "info");
    assert_eq!(ok["traceId"], "0af7651916cd43dd8448eb211c80319c");
    let span = ok["spanId"].as_str().unwrap_or_default();
    assert!(span.len() == 16 && span != "b7ad6b7169203331", "{span}");
    assert!(ok["message"]
        .as_str()
        .is_some_and(|m| m.starts_with("tool echo ok ")));
    let missing = &records[1];
    assert_eq!(missing["level"], "warn");
    assert_eq!(missing["outcome"], "tool-not-in-pack");
    assert!(missing.get("traceId").is_none());
    h.listening.stop(Duration::from_millis(100)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_stalls_is_cut_off_and_gives_its_slot_back() {
    // Long enough that the request below is answered while the stalled body holds its slot:
    // a request waits `ARRIVING` for the place of an upload whose bytes just came, then sees
    // it stalled.
    let limits = ReadLimits {
        headers: Duration::from_secs(30),
        body: Duration::from_secs(5),
    };
    let h = Harness::start_with(1, None, &[], limits).await;
    // Headers and the first bytes of a 100-byte body, then nothing.
    let mut stalled = TcpStream::connect(h.addr()).await.expect("connect");
    let head = format!("{}{{\"v\":2,", invoke_head(100, ""));
    stalled.write_all(head.as_bytes()).await.expect("write");
    // The only slot is taken meanwhile.
    wait_until(|| h.listening.service().admission().in_flight() == 1).await;
    let refused = exchange(h.addr(), &invoke_request(&tool_call("echo"), "")).await;
    assert_eq!(refused.status, 503);
    let cut = read_response(&mut stalled).await;
    assert_eq!(cut.status, 408);
    assert_eq!(cut.header("connection"), Some("close"));
    wait_until(|| h.listening.service().admission().in_flight() == 0).await;
    let answered = exchange(h.addr(), &invoke_request(&tool_call("echo"), "")).await;
    assert_eq!(answered.status, 200);
    h.listening.stop(Duration::from_millis(100)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_uploads_in_flight_are_read_within_the_queue_budget() {
    let h = Harness::start(1000, None, &[]).await;
    let in_flight = || h.listening.service().admission().in_flight();
    // Heads declaring the largest body (10 MiB), and the first byte of each: three fit the
    // 32 MiB budget and are read; two more wait at their heads, unread, as TypeScript leaves
    // requests in the kernel while its thread is busy, and are neither refused nor admitted.
    let head = format!("{}{{", invoke_head(DEFAULT_MAX_BODY_BYTES, ""));
    let read = QUEUE_BUDGET / DEFAULT_MAX_BODY_BYTES;
    let mut uploads = Vec::new();
    for admitted in 1..=read + 2 {
        let mut upload = TcpStream::connect(h.addr()).await.expect("connect");
        upload.write_all(head.as_bytes()).await.expect("write");
        if admitted <= read {
            wait_until(|| in_flight() == admitted).await;
        }
        uploads.push(upload);
    }
    // Past the second a waiting request looks again: still no room.
    tokio::time::sleep(Duration::from_millis(1300)).await;
    assert_eq!(in_flight(), read, "the last two wait at their heads");
    // A small body reserves nothing: it is served meanwhile.
    let answered = exchange(h.addr(), &invoke_request(&tool_call("echo"), "")).await;
    assert_eq!(answered.status, 200);
    // The ones read closed mid-body: their reservations go, and the two waiting are read.
    let waiting = uploads.split_off(read);
    drop(uploads);
    wait_until(|| in_flight() <= 2).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(in_flight(), 2, "the two that waited are read");
    drop(waiting);
    h.listening.stop(Duration::from_millis(100)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_cannot_be_parsed_is_answered_400_and_gives_its_slot_back() {
    let h = Harness::start(1, None, &[]).await;
    let broken = exchange(
        h.addr(),
        format!("POST /v1/invoke HTTP/1.1\r\nhost: x\r\nkindgi-pack-token: {TOKEN}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n{{}}\r\n0\r\n\r\n").as_bytes(),
    )
    .await;
    assert_eq!((broken.status, broken.body.as_str()), (400, ""));
    assert_eq!(broken.header("connection"), Some("close"));
    wait_until(|| h.listening.service().admission().in_flight() == 0).await;
    let answered = exchange(h.addr(), &invoke_request(&tool_call("echo"), "")).await;
    assert_eq!(answered.status, 200);
    h.listening.stop(Duration::from_millis(100)).await;
}

/// A random request for [`random_requests_get_http_answers_and_lose_no_call`]: mostly a
/// well-formed call with one thing wrong or odd, sometimes bytes changed at random.
fn random_request(rng: &mut Rng) -> Vec<u8> {
    let method = if rng.one_in(6) {
        *rng.pick(&["GET", "PUT", "DELETE", "PO ST", "\u{e9}"])
    } else {
        "POST"
    };
    let path = if rng.one_in(5) {
        *rng.pick(&[
            "/v1/info",
            "/healthz",
            "/readyz",
            "/v1/invoke?x=1",
            "//v1/invoke",
            "/v1/%00",
            "*",
            "/v1/invoke#f",
        ])
    } else {
        "/v1/invoke"
    };
    let tool = *rng.pick(&["echo", "echo", "panics", "stubborn", "nope", "wait"]);
    let body = match rng.below(16) {
        0 => "[".repeat(rng.below(20_000)),
        1 => json!({"v": 2, "kind": "invoke", "tool": {"id": tool}, "input": {"text": "hi", "n": 1e300},
            "ctx": {"tenantId": "t1", "runId": "r1"}}).to_string().replace("1e300", "1e400"),
        2 => r#"{"v":2,"kind":"invoke","tool":{"id":"echo"},"input":{"text":"\ud800"},"ctx":{"tenantId":"t","runId":"r"}}"#.to_owned(),
        3 => r#"{"v":2,"kind":"check","checkId":"c","payload":{"n":123456789012345678901234567890}}"#.to_owned(),
        4 => json!({"v": 2, "kind": *rng.pick(&["invoke", "check", "nope", ""]), "tool": rng.below(3)}).to_string(),
        _ => json!({"v": 2, "kind": "invoke", "tool": {"id": tool, "version": *rng.pick(&["1.0.0", "2"])},
            "input": {"text": *rng.pick(&["hi", "longer than five", ""])},
            "ctx": {"tenantId": "t1", "runId": "r1"}}).to_string(),
    };
    let mut body = body.into_bytes();
    let mut headers = vec![format!("host: x")];
    if !rng.one_in(16) {
        headers.push(format!(
            "kindgi-pack-token: {}",
            if rng.one_in(8) { "wrong" } else { TOKEN }
        ));
    }
    if !rng.one_in(16) {
        headers.push(format!(
            "content-type: {}",
            if rng.one_in(6) {
                *rng.pick(&[
                    "text/plain",
                    "APPLICATION/JSON",
                    "",
                    "text/plain;x=application/json",
                ])
            } else {
                *rng.pick(&["application/json", "application/json; charset=utf-8"])
            }
        ));
    }
    // `wait` waits for its abort, so it gets a short deadline; the others get odd ones now
    // and then (the service reads those as 120 s, or clamps them).
    let timeout = if tool == "wait" {
        "50"
    } else if rng.one_in(8) {
        *rng.pick(&["0", "-1", "abc", "99999999999999999999", "1e3", "1.5"])
    } else {
        "2000"
    };
    headers.push(format!("kindgi-timeout-ms: {timeout}"));
    if rng.one_in(4) {
        headers.push(format!(
            "traceparent: 00-{:032x}-{:016x}-01",
            rng.next_u64(),
            rng.next_u64()
        ));
    }
    if rng.one_in(10) {
        headers.extend(
            (0..rng.below(300)).map(|i| format!("x-flood-{i}: {}", "v".repeat(rng.below(200)))),
        );
    }
    let chunked = rng.one_in(10);
    if chunked {
        headers.push("transfer-encoding: chunked".to_owned());
        let mut framed = format!("{:x}\r\n", body.len()).into_bytes();
        framed.extend_from_slice(&body);
        framed.extend_from_slice(b"\r\n0\r\n\r\n");
        body = framed;
    } else {
        let length = match rng.below(30) {
            0 => body.len().saturating_sub(rng.below(5)).to_string(),
            1 => "-1".to_owned(),
            2 => "abc".to_owned(),
            3 => "99999999999999999999".to_owned(),
            4 => format!("{0}\r\ncontent-length: {0}", body.len() + 1),
            _ => body.len().to_string(),
        };
        if !rng.one_in(20) {
            headers.push(format!("content-length: {length}"));
        }
    }
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\n{}\r\n\r\n",
        headers.join("\r\n")
    )
    .into_bytes();
    request.extend_from_slice(&body);
    // Now and then a few bytes anywhere are changed, including into bytes that are not UTF-8
    // (not for `wait`: a changed deadline would leave it waiting 120 s).
    if tool != "wait" && rng.one_in(8) {
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(request.len());
            request[at] = rng.below(256) as u8;
        }
    }
    if rng.one_in(12) {
        request.truncate(rng.below(request.len()));
    }
    request
}

/// Sends `request` and reads until one whole response has arrived or the service closes.
async fn send_raw(addr: SocketAddr, request: &[u8]) -> Result<Vec<u8>, String> {
    use tokio::io::AsyncReadExt;
    let mut stream = TcpStream::connect(addr).await.map_err(|e| e.to_string())?;
    // The service may answer and close before it has read everything (413, 400): a failed
    // write is not a failure of the service.
    let _ = stream.write_all(request).await;
    let mut raw = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        if let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&raw[..end]).to_ascii_lowercase();
            let length = head
                .split("\r\n")
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok());
            if length.is_some_and(|n| raw.len() >= end + 4 + n) {
                return Ok(raw);
            }
        }
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return Ok(raw),
            Ok(n) => raw.extend_from_slice(&chunk[..n]),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_requests_get_http_answers_and_lose_no_call() {
    let limits = ReadLimits {
        headers: Duration::from_millis(300),
        body: Duration::from_millis(300),
    };
    let h = Harness::start_with(16, None, &[], limits).await;
    let cases = common::random::cases(1500);
    let mut statuses = std::collections::BTreeMap::<u16, usize>::new();
    let mut rng = Rng::new(0x6b696e6467690001);
    for batch in (0..cases).collect::<Vec<_>>().chunks(48) {
        let mut tasks = tokio::task::JoinSet::new();
        for &case in batch {
            let request = random_request(&mut rng);
            let addr = h.addr();
            tasks.spawn(async move {
                let raw = tokio::time::timeout(Duration::from_secs(10), send_raw(addr, &request))
                    .await
                    .map_err(|_| {
                        format!(
                            "case {case}: no answer and no close within 10 s: {:?}",
                            String::from_utf8_lossy(&request)
                        )
                    })??;
                Ok::<_, String>((case, request, raw))
            });
        }
        while let Some(joined) = tasks.join_next().await {
            let (case, request, raw) = joined.expect("the client task").expect("an answer");
            if raw.is_empty() {
                // Closed without an answer: only for bytes hyper could not read as a request.
                *statuses.entry(0).or_default() += 1;
                continue;
            }
            let text = String::from_utf8_lossy(&raw);
            let status: u16 = text
                .strip_prefix("HTTP/1.1 ")
                .and_then(|rest| rest.get(..3))
                .and_then(|s| s.parse().ok())
                .unwrap_or_else(|| panic!("case {case}: not an HTTP answer: {text:?}"));
            assert!(
                [200, 400, 401, 404, 405, 408, 413, 415, 431, 501, 503, 505].contains(&status),
                "case {case}: status {status} for {:?}\n{text}",
                String::from_utf8_lossy(&request)
            );
            if status == 200 && text.contains("content-type: application/json") {
                // Only the first answer: bytes after a short body are read as a second request.
                let start = text.find("\r\n\r\n").map_or(0, |i| i + 4);
                let length = text[..start]
                    .to_ascii_lowercase()
                    .split("\r\n")
                    .find_map(|l| {
                        l.strip_prefix("content-length:")
                            .map(|v| v.trim().parse::<usize>())
                    })
                    .and_then(Result::ok)
                    .unwrap_or_else(|| panic!("case {case}: a 200 without a content-length"));
                let body = text
                    .get(start..start + length)
                    .unwrap_or_else(|| panic!("case {case}: a short body"));
                // JSON as JavaScript reads it: lone surrogates included.
                let message: Value = serde_json::from_str(&protect_lone_surrogates(body))
                    .unwrap_or_else(|e| {
                        panic!("case {case}: a 200 body that is not JSON ({e}): {body}")
                    });
                assert!(
                    message.get("kind").is_none() || message["v"] == 2,
                    "case {case}: {body}"
                );
            }
            if std::env::var("SHOW400").is_ok_and(|s| s == status.to_string()) {
                eprintln!(
                    "R400 {:?} => {:?}",
                    String::from_utf8_lossy(&request)
                        .chars()
                        .take(300)
                        .collect::<String>(),
                    text.chars().take(200).collect::<String>()
                );
            }
            *statuses.entry(status).or_default() += 1;
        }
    }
    eprintln!("{cases} random requests, answers by status (0: closed): {statuses:?}");
    // Every call the service took has given its slot back, and the service still answers.
    wait_until(|| h.listening.service().admission().in_flight() == 0).await;
    let answered = exchange(h.addr(), &invoke_request(&tool_call("echo"), "")).await;
    assert_eq!(answered.status, 200);
    assert_eq!(
        answered.body,
        r#"{"v":2,"kind":"result","output":{"text":"hi","n":1}}"#
    );
    assert!(
        statuses.get(&200).is_some_and(|&n| n > cases / 10),
        "{statuses:?}"
    );
    h.listening.stop(Duration::from_millis(100)).await;
}

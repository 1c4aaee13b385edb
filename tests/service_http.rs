//! The hyper pack service over real HTTP on loopback, with Rust-side fake handlers: routing,
//! refusals, admission, bodies, deadlines, cancellation, tenant pinning and drain.

mod common;

use common::{exchange, read_response, wait_until};
use kindgi_handler_runtime_native::env::PackEnvCheck;
use kindgi_handler_runtime_native::log::{LogSettings, Logger, Sink};
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
                            marked: call.input_json.clone().unwrap_or_else(|| {
                                call.message
                                    .get("input")
                                    .cloned()
                                    .unwrap_or_default()
                                    .to_string()
                            }),
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

fn invoke_request(body: &str, extra: &str) -> Vec<u8> {
    format!(
        "POST /v1/invoke HTTP/1.1\r\nhost: x\r\nkindgi-pack-token: {TOKEN}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n{extra}\r\n{body}",
        body.len()
    )
    .into_bytes()
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
        format!(
            "POST /v1/invoke HTTP/1.1\r\nhost: x\r\nkindgi-pack-token: {TOKEN}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
            DEFAULT_MAX_BODY_BYTES + 1
        )
        .as_bytes(),
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
    let mut stream = TcpStream::connect(h.addr()).await.expect("connect");
    stream
        .write_all(&invoke_request(&tool_call("wait"), ""))
        .await
        .expect("send");
    // Wait until the call runs, then hang up.
    let service = Arc::clone(h.listening.service());
    wait_until(|| service.admission().in_flight() == 1).await;
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
    let limits = ReadLimits {
        headers: Duration::from_secs(30),
        body: Duration::from_millis(200),
    };
    let h = Harness::start_with(1, None, &[], limits).await;
    // Headers and the first bytes of a 100-byte body, then nothing.
    let mut stalled = TcpStream::connect(h.addr()).await.expect("connect");
    let head = format!(
        "POST /v1/invoke HTTP/1.1\r\nhost: x\r\nkindgi-pack-token: {TOKEN}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{{\"v\":2,"
    );
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

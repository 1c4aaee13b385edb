//! The supervisor's relay and front against a real pack service core on loopback (Rust fake
//! handlers): answers with the headers the front passes on, the caller's headers passed
//! through, the outcomes for no child, a refused connection, a child that dies mid-call and a
//! cancel, connections kept alive between calls and a kept connection the child closed, and the
//! front's own answers.

mod common;

use common::{exchange, wait_until};
use kindgi_handler_runtime_native::env::PackEnvCheck;
use kindgi_handler_runtime_native::service::call::{
    Answer, Call, CallAbort, RunFuture, Runner, Settled,
};
use kindgi_handler_runtime_native::service::catalog::Catalog;
use kindgi_handler_runtime_native::service::core::{
    PackService, ServiceEvent, ServiceOptions, DEFAULT_MAX_BODY_BYTES,
};
use kindgi_handler_runtime_native::service::server::serve;
use kindgi_handler_runtime_native::service::server::serve_handler;
use kindgi_handler_runtime_native::supervisor::front::Front;
use kindgi_handler_runtime_native::supervisor::relay::{
    AnswerLimit, Relay, RelayCall, RelayOutcome, RelayRoute,
};
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

const TOKEN: &str = "relay-token-0123456789abcdefghijklmnop";

/// `headers` answers the call's message and headers it can see; `wait` waits for its abort.
struct Fake;

impl Runner for Fake {
    fn run(&self, call: Call, abort: CallAbort) -> RunFuture {
        Box::pin(async move {
            if call.id == "wait" {
                abort.aborted().await;
            }
            let output = json!({"run": call.message.get("ctx").cloned()});
            Settled {
                answer: Answer::Message(format!(r#"{{"v":2,"kind":"result","output":{output}}}"#)),
                honoured_abort: true,
            }
        })
    }
}

async fn child(
    events: Arc<Mutex<Vec<ServiceEvent>>>,
    tenant: Option<&str>,
) -> (
    u16,
    kindgi_handler_runtime_native::service::server::Listening,
) {
    let index = json!({"v": 1, "packId": "fake", "packVersion": "1", "artifactVersion": "7",
        "tools": [{"id": "headers", "modulePath": "h.mjs", "input": {}, "output": {}},
                  {"id": "wait", "modulePath": "w.mjs", "input": {}, "output": {}}],
        "guardrails": [], "agents": [], "flows": []});
    let service = PackService::new(
        ServiceOptions {
            catalog: Catalog::from_index(&index).expect("index"),
            token: TOKEN.into(),
            tenant: tenant.map(str::to_owned),
            max_concurrency: 8,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            default_timeout_ms: 120_000,
            env_check: PackEnvCheck::Strict,
            missing_env: vec![],
            index_hash: None,
            records: None,
            share_call_bindings: false,
            js_threads: Default::default(),
            stall_limit: None,
        },
        Arc::new(Fake),
        Some(Arc::new(move |e| {
            events.lock().map(|mut list| list.push(e)).ok();
        })),
    );
    service.admission().set_warm(true);
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    (port, serve(Arc::new(service), listener).expect("serve"))
}

fn invoke(tool: &str) -> RelayCall {
    RelayCall {
        route: RelayRoute::Invoke,
        body: Some(
            json!({"v": 2, "kind": "invoke", "tool": {"id": tool}, "input": {},
                   "ctx": {"tenantId": "t", "runId": "r"}})
            .to_string(),
        ),
        timeout_ms: Some("5000".into()),
        run_id: Some("r".into()),
        request_id: Some("q".into()),
        protocol: Some("2".into()),
        traceparent: Some("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01".into()),
        tenant_id: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_pass_through_with_the_front_headers() {
    let events = Arc::new(Mutex::new(Vec::new()));
    let (port, listening) = child(Arc::clone(&events), None).await;
    let relay = Relay::new(TOKEN.into());
    let RelayOutcome::Answer {
        status,
        headers,
        body,
    } = relay.forward(Some(port), &invoke("headers")).await
    else {
        panic!("an answer");
    };
    assert_eq!(status, 200);
    assert_eq!(
        body,
        r#"{"v":2,"kind":"result","output":{"run":{"tenantId":"t","runId":"r"}}}"#
    );
    let names: Vec<&str> = headers.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "content-type",
            "kindgi-artifact-version",
            "kindgi-duration-ms"
        ]
    );
    let info = RelayCall {
        route: RelayRoute::Info,
        ..RelayCall::default()
    };
    assert!(matches!(
        relay.forward(Some(port), &info).await,
        RelayOutcome::Answer { status: 200, .. }
    ));
    // A bad token is the child's answer, passed through.
    let stranger = Relay::new("another-token-0123456789abcdefghijklmn".into());
    assert!(matches!(
        stranger.forward(Some(port), &info).await,
        RelayOutcome::Answer { status: 401, .. }
    ));
    listening.stop(Duration::from_millis(100)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_child_refused_dead_and_cancelled() {
    let relay = Relay::new(TOKEN.into());
    assert_eq!(
        relay.forward(None, &invoke("headers")).await,
        RelayOutcome::Unavailable("no pack service".into())
    );
    // A port nobody listens on.
    let closed = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let closed_port = closed.local_addr().expect("addr").port();
    drop(closed);
    assert_eq!(
        relay.forward(Some(closed_port), &invoke("headers")).await,
        RelayOutcome::Unavailable("the pack service refused the connection".into())
    );
    // A child that reads the call and dies without answering: it may have run.
    let dying = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let dying_port = dying.local_addr().expect("addr").port();
    tokio::spawn(async move {
        if let Ok((mut stream, _)) = dying.accept().await {
            let mut buffer = [0u8; 4096];
            let _ = stream.read(&mut buffer).await;
        }
    });
    assert_eq!(
        relay.forward(Some(dying_port), &invoke("headers")).await,
        RelayOutcome::Failed("the pack service did not answer: fetch failed".into())
    );
    // A caller that gives up: dropping the forward closes the child's connection, and the
    // child reports the call cancelled.
    let events = Arc::new(Mutex::new(Vec::new()));
    let (port, listening) = child(Arc::clone(&events), None).await;
    let gave_up = tokio::time::timeout(
        Duration::from_millis(200),
        relay.forward(Some(port), &invoke("wait")),
    )
    .await;
    assert!(gave_up.is_err());
    wait_until(|| {
        events.lock().is_ok_and(|list| {
            list.iter().any(|e| {
                matches!(
                    e,
                    ServiceEvent::Call {
                        outcome: "cancelled",
                        ..
                    }
                )
            })
        })
    })
    .await;
    listening.stop(Duration::from_millis(100)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tenant_reaches_a_child_pinned_to_one() {
    let (port, listening) = child(Arc::new(Mutex::new(Vec::new())), Some("t")).await;
    // Through the relay: the call's tenant goes as `kindgi-tenant-id`.
    let relay = Relay::new(TOKEN.into());
    let status = |outcome: RelayOutcome| match outcome {
        RelayOutcome::Answer { status, body, .. } => (status, body),
        other => panic!("an answer: {other:?}"),
    };
    let pinned = RelayCall {
        tenant_id: Some("t".into()),
        ..invoke("headers")
    };
    assert_eq!(status(relay.forward(Some(port), &pinned).await).0, 200);
    assert_eq!(
        status(relay.forward(Some(port), &invoke("headers")).await),
        (421, r#"{"code":"pack-tenant-mismatch"}"#.into())
    );
    let info = RelayCall {
        route: RelayRoute::Info,
        tenant_id: Some("t".into()),
        ..RelayCall::default()
    };
    assert_eq!(status(relay.forward(Some(port), &info).await).0, 200);

    // Through the front: the caller's header is passed on.
    let (_, serving) = tokio::sync::watch::channel(Some(port));
    let front = Arc::new(Front::new(
        TOKEN.into(),
        serving,
        Arc::default(),
        1 << 20,
        Box::new(|| false),
    ));
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let served = serve_handler(front, listener, Duration::from_secs(30)).expect("serve");
    let body = invoke("headers").body.unwrap_or_default();
    let post = |tenant: &str| {
        format!(
            "POST /v1/invoke HTTP/1.1\r\nhost: x\r\nkindgi-pack-token: {TOKEN}\r\ncontent-type: application/json\r\n{tenant}content-length: {}\r\n\r\n{body}",
            body.len()
        )
        .into_bytes()
    };
    assert_eq!(
        exchange(addr, &post("kindgi-tenant-id: t\r\n"))
            .await
            .status,
        200
    );
    assert_eq!(
        exchange(addr, &post("kindgi-tenant-id: u\r\n"))
            .await
            .status,
        421
    );
    assert_eq!(exchange(addr, &post("")).await.status, 421);
    let info = |tenant: &str| {
        format!("GET /v1/info HTTP/1.1\r\nhost: x\r\nkindgi-pack-token: {TOKEN}\r\n{tenant}\r\n")
            .into_bytes()
    };
    assert_eq!(
        exchange(addr, &info("kindgi-tenant-id: t\r\n"))
            .await
            .status,
        200
    );
    assert_eq!(exchange(addr, &info("")).await.status, 421);
    served.close().await;
    listening.stop(Duration::from_millis(100)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_front_answers_probes_and_forwards_to_the_serving_child() {
    let (serve_port, serving) = tokio::sync::watch::channel(None);
    let front = Arc::new(Front::new(
        TOKEN.into(),
        serving,
        Arc::default(),
        1024,
        Box::new(|| false),
    ));
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let served = serve_handler(front, listener, Duration::from_secs(30)).expect("serve");
    let get = |path: &str, extra: &str| {
        format!("GET {path} HTTP/1.1\r\nhost: x\r\n{extra}\r\n").into_bytes()
    };
    let post = |body: &str, content_type: &str| {
        format!(
            "POST /v1/invoke HTTP/1.1\r\nhost: x\r\nkindgi-pack-token: {TOKEN}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        )
        .into_bytes()
    };
    let call = invoke("headers").body.unwrap_or_default();

    let health = exchange(addr, &get("/healthz", "")).await;
    assert_eq!(
        (health.status, health.body.as_str()),
        (200, r#"{"status":"ok"}"#)
    );
    let ready = exchange(addr, &get("/readyz", "")).await;
    assert_eq!(
        (ready.status, ready.body.as_str()),
        (503, r#"{"error":"no pack service"}"#)
    );
    assert_eq!(ready.header("retry-after"), Some("1"));
    let nobody = exchange(addr, &post(&call, "application/json")).await;
    assert_eq!(
        (nobody.status, nobody.body.as_str()),
        (503, r#"{"error":"no pack service"}"#)
    );
    assert_eq!(exchange(addr, &get("/v1/info", "")).await.status, 401);
    assert_eq!(exchange(addr, &get("/v1/invoke", "")).await.status, 405);
    assert_eq!(exchange(addr, &get("/nope", "")).await.status, 404);
    assert_eq!(exchange(addr, &post(&call, "text/plain")).await.status, 415);
    assert_eq!(
        exchange(addr, &post(&"x".repeat(2048), "application/json"))
            .await
            .status,
        413
    );

    let events = Arc::new(Mutex::new(Vec::new()));
    let (port, listening) = child(events, None).await;
    serve_port.send_replace(Some(port));
    assert_eq!(exchange(addr, &get("/readyz", "")).await.status, 200);
    let through = exchange(addr, &post(&call, "application/json")).await;
    assert_eq!(through.status, 200);
    assert_eq!(
        through.body,
        r#"{"v":2,"kind":"result","output":{"run":{"tenantId":"t","runId":"r"}}}"#
    );
    assert_eq!(through.header("kindgi-artifact-version"), Some("7"));
    let info = exchange(
        addr,
        &get("/v1/info", &format!("kindgi-pack-token: {TOKEN}\r\n")),
    )
    .await;
    assert_eq!(info.status, 200);
    assert!(info.body.contains(r#""packId":"fake""#));
    // A body whose chunk framing breaks is the caller's fault: 400 and the connection closed.
    let broken = exchange(
        addr,
        format!("POST /v1/invoke HTTP/1.1\r\nhost: x\r\nkindgi-pack-token: {TOKEN}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n{{}}\r\n0\r\n\r\n").as_bytes(),
    )
    .await;
    assert_eq!(
        (broken.status, broken.header("connection")),
        (400, Some("close"))
    );

    // The child goes: the front answers 503 again, with the connection refused.
    listening.stop(Duration::from_millis(100)).await;
    let refused = exchange(addr, &post(&call, "application/json")).await;
    assert_eq!(refused.status, 503);
    assert_eq!(
        refused.body,
        r#"{"error":"the pack service refused the connection"}"#
    );
    served.close().await;
}

/// A raw child on loopback: `serve` makes the work for each connection it accepts, which runs
/// as a task of its own. Gives the child's port.
async fn raw_server<F, W>(serve: F) -> u16
where
    F: Fn(tokio::net::TcpStream) -> W + Send + 'static,
    W: std::future::Future<Output = ()> + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(serve(stream));
        }
    });
    port
}

/// A raw HTTP/1.1 child answering every `GET` with `{}` on a keep-alive connection, counting the
/// connections it accepts; with `close_after`, it closes each connection that long after its
/// first answer, without saying so in the answer (as an idle timeout does).
async fn raw_child(close_after: Option<Duration>) -> (u16, Arc<AtomicUsize>) {
    let (port, accepted, _) = raw_child_counting_closes(close_after, Duration::ZERO).await;
    (port, accepted)
}

/// [`raw_child`], answering `answer_after` a request came, and counting the connections the
/// caller closed.
async fn raw_child_counting_closes(
    close_after: Option<Duration>,
    answer_after: Duration,
) -> (u16, Arc<AtomicUsize>, Arc<AtomicUsize>) {
    let accepted = Arc::new(AtomicUsize::new(0));
    let closed = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&accepted);
    let closes = Arc::clone(&closed);
    let port = raw_server(move |mut stream| {
        counted.fetch_add(1, Ordering::SeqCst);
        let closes = Arc::clone(&closes);
        async move {
            let mut seen = Vec::new();
            let mut buffer = [0u8; 4096];
            loop {
                let Ok(read) = stream.read(&mut buffer).await else {
                    return;
                };
                if read == 0 {
                    closes.fetch_add(1, Ordering::SeqCst);
                    return;
                }
                seen.extend_from_slice(&buffer[..read]);
                while let Some(end) = seen.windows(4).position(|w| w == b"\r\n\r\n") {
                    seen.drain(..end + 4);
                    tokio::time::sleep(answer_after).await;
                    let answer = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}";
                    if stream.write_all(answer).await.is_err() {
                        return;
                    }
                    if let Some(after) = close_after {
                        tokio::time::sleep(after).await;
                        return;
                    }
                }
            }
        }
    })
    .await;
    (port, accepted, closed)
}

fn info() -> RelayCall {
    RelayCall {
        route: RelayRoute::Info,
        ..RelayCall::default()
    }
}

fn answered(outcome: &RelayOutcome) -> bool {
    matches!(outcome, RelayOutcome::Answer { status: 200, body, .. } if body == "{}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_are_kept_alive_and_a_closed_one_is_not_used() {
    let relay = Relay::new(TOKEN.into());
    // Calls one after another share one connection.
    let (port, accepted) = raw_child(None).await;
    for _ in 0..5 {
        assert!(answered(&relay.forward(Some(port), &info()).await));
    }
    assert_eq!(accepted.load(Ordering::SeqCst), 1);
    // A kept connection the child has closed since is noticed before a call goes on it: the
    // call is answered on a new connection, not failed.
    let (port, accepted) = raw_child(Some(Duration::from_millis(20))).await;
    for _ in 0..3 {
        assert!(answered(&relay.forward(Some(port), &info()).await));
        tokio::time::sleep(Duration::from_millis(150)).await;
    }
    assert_eq!(accepted.load(Ordering::SeqCst), 3);
    // Concurrent calls each get a connection, and are kept for the next ones.
    let (port, accepted) = raw_child(None).await;
    let call = info();
    let outcomes = tokio::join!(
        relay.forward(Some(port), &call),
        relay.forward(Some(port), &call),
        relay.forward(Some(port), &call),
        relay.forward(Some(port), &call)
    );
    assert!([outcomes.0, outcomes.1, outcomes.2, outcomes.3]
        .iter()
        .all(answered));
    let opened = accepted.load(Ordering::SeqCst);
    assert!((1..=4).contains(&opened));
    for _ in 0..4 {
        assert!(answered(&relay.forward(Some(port), &info()).await));
    }
    assert_eq!(accepted.load(Ordering::SeqCst), opened);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_kept_to_a_child_that_stops_serving_are_closed_without_waiting_for_a_call() {
    let (old, opened, closed) = raw_child_counting_closes(None, Duration::ZERO).await;
    let (new, _, _) = raw_child_counting_closes(None, Duration::ZERO).await;
    let (serve, serving) = tokio::sync::watch::channel(Some(old));
    let front = Front::new(
        TOKEN.into(),
        serving,
        Arc::default(),
        1024,
        Box::new(|| false),
    );
    let call = info();
    let outcomes = tokio::join!(
        front.forward(&call),
        front.forward(&call),
        front.forward(&call)
    );
    assert!([outcomes.0, outcomes.1, outcomes.2].iter().all(answered));
    let kept = opened.load(Ordering::SeqCst);
    assert!(kept >= 1);
    assert_eq!(closed.load(Ordering::SeqCst), 0, "kept for the next call");
    // A swap, and no call after it: the old child's connections are closed all the same.
    serve.send_replace(Some(new));
    wait_until(|| closed.load(Ordering::SeqCst) == kept).await;
    // A call that ends on a child that stopped serving while it was out does not keep its
    // connection either.
    let (slow, _, slow_closed) = raw_child_counting_closes(None, Duration::from_millis(200)).await;
    serve.send_replace(Some(slow));
    let front = Arc::new(front);
    let out = tokio::spawn({
        let front = Arc::clone(&front);
        async move { answered(&front.forward(&info()).await) }
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    serve.send_replace(Some(new));
    assert!(out.await.expect("the call ends"));
    wait_until(|| slow_closed.load(Ordering::SeqCst) == 1).await;
}

/// What the misbehaving child does with a request, by the first part of its `kindgi-request-id`.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Act {
    /// Answers 200 `{"id":…}` and keeps the connection.
    Answer,
    /// Answers, says `connection: close`, and closes.
    AnswerAndClose,
    /// Answers after 30 ms.
    Slow,
    /// Answers 500 with the id, chunked.
    Chunked500,
    /// Closes without a word.
    Close,
    /// Writes bytes that are not HTTP, then closes.
    Garbage,
    /// Promises 50 bytes of body, sends 3, then closes.
    ShortBody,
    /// Answers 600 ms later, after the caller has gone (the caller drops its call at 250 ms).
    Late,
}

const ACTS: [Act; 8] = [
    Act::Answer,
    Act::AnswerAndClose,
    Act::Slow,
    Act::Chunked500,
    Act::Close,
    Act::Garbage,
    Act::ShortBody,
    Act::Late,
];

/// A child that reads each request's head and acts as its request id says, answering with that
/// id so a caller can tell its own answer from another call's.
async fn misbehaving_child() -> u16 {
    let port = raw_server(move |mut stream| {
        async move {
            let mut seen = Vec::new();
            let mut buffer = [0u8; 4096];
            loop {
                let Some(end) = seen.windows(4).position(|w| w == b"\r\n\r\n") else {
                    match stream.read(&mut buffer).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => seen.extend_from_slice(&buffer[..n]),
                    }
                    continue;
                };
                let head = String::from_utf8_lossy(&seen[..end]).to_ascii_lowercase();
                seen.drain(..end + 4);
                let id = head
                    .split("\r\n")
                    .find_map(|l| l.strip_prefix("kindgi-request-id: "))
                    .unwrap_or("0-none")
                    .to_owned();
                let act = id
                    .split('-')
                    .next()
                    .and_then(|n| n.parse::<usize>().ok())
                    .map_or(Act::Answer, |n| ACTS[n % ACTS.len()]);
                let body = format!(r#"{{"id":"{id}"}}"#);
                let ok = |extra: &str| {
                    format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n{extra}content-length: {}\r\n\r\n{body}",
                        body.len()
                    )
                };
                let reply = match act {
                    Act::Answer => ok(""),
                    Act::AnswerAndClose => ok("connection: close\r\n"),
                    Act::Slow => {
                        tokio::time::sleep(Duration::from_millis(30)).await;
                        ok("")
                    }
                    Act::Chunked500 => format!(
                        "HTTP/1.1 500 Internal Server Error\r\ntransfer-encoding: chunked\r\n\r\n{:x}\r\n{body}\r\n0\r\n\r\n",
                        body.len()
                    ),
                    Act::Close => return,
                    Act::Garbage => "NOT HTTP AT ALL\r\n\r\n".to_owned(),
                    Act::ShortBody => "HTTP/1.1 200 OK\r\ncontent-length: 50\r\n\r\n{\"i".to_owned(),
                    Act::Late => {
                        tokio::time::sleep(Duration::from_millis(600)).await;
                        ok("")
                    }
                };
                if stream.write_all(reply.as_bytes()).await.is_err() {
                    return;
                }
                if matches!(act, Act::AnswerAndClose | Act::Garbage | Act::ShortBody) {
                    return;
                }
            }
        }
    })
    .await;
    port
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_misbehaving_child_gets_each_call_its_own_outcome() {
    let relay = Arc::new(Relay::new(TOKEN.into()));
    let port = misbehaving_child().await;
    let refused = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let dead_port = refused.local_addr().expect("addr").port();
    drop(refused);
    let mut rng = common::random::Rng::new(0x6b696e6467690003);
    let cases = common::random::cases(300);
    let mut seen = [0usize; ACTS.len()];
    for batch in (0..cases).collect::<Vec<_>>().chunks(8) {
        let mut calls = tokio::task::JoinSet::new();
        for &case in batch {
            let act = rng.below(ACTS.len() + 1);
            let relay = Arc::clone(&relay);
            calls.spawn(async move {
                // One call in nine goes to a port nobody listens on.
                if act == ACTS.len() {
                    let outcome = relay.forward(Some(dead_port), &info()).await;
                    assert!(
                        matches!(outcome, RelayOutcome::Unavailable(_)),
                        "case {case}: {outcome:?}"
                    );
                    return None;
                }
                let id = format!("{act}-{case}");
                let call = RelayCall {
                    request_id: Some(id.clone()),
                    ..info()
                };
                // The caller gives up at 250 ms, as a caller that hangs up does.
                let outcome = tokio::time::timeout(
                    Duration::from_millis(250),
                    relay.forward(Some(port), &call),
                )
                .await;
                let mine = format!(r#"{{"id":"{id}"}}"#);
                match (ACTS[act], outcome) {
                    (Act::Late, Err(_)) => {}
                    (
                        Act::Answer | Act::AnswerAndClose | Act::Slow,
                        Ok(RelayOutcome::Answer {
                            status: 200, body, ..
                        }),
                    )
                    | (
                        Act::Chunked500,
                        Ok(RelayOutcome::Answer {
                            status: 500, body, ..
                        }),
                    ) => {
                        assert_eq!(body, mine, "case {case}: another call's answer");
                    }
                    (Act::Close | Act::Garbage | Act::ShortBody, Ok(RelayOutcome::Failed(_))) => {}
                    (act, outcome) => panic!("case {case}: {act:?} gave {outcome:?}"),
                }
                Some(act)
            });
        }
        while let Some(joined) = calls.join_next().await {
            if let Some(act) = joined.expect("a call") {
                seen[act] += 1;
            }
        }
    }
    assert!(
        seen.iter().all(|&n| n > 0),
        "every behaviour was met: {seen:?}"
    );
    // Once the late answers have come and gone, kept connections still answer their own calls.
    tokio::time::sleep(Duration::from_millis(700)).await;
    for case in 0..8 {
        let id = format!("0-after{case}");
        let call = RelayCall {
            request_id: Some(id.clone()),
            ..info()
        };
        let outcome = relay.forward(Some(port), &call).await;
        assert!(
            matches!(&outcome, RelayOutcome::Answer { status: 200, body, .. } if *body == format!(r#"{{"id":"{id}"}}"#)),
            "{outcome:?}"
        );
    }
}

/// A child that reads requests and answers each `delay` later, or never.
async fn slow_child(delay: Option<Duration>) -> u16 {
    let port = raw_server(move |mut stream| async move {
        let mut buffer = [0u8; 4096];
        while let Ok(1..) = stream.read(&mut buffer).await {
            let Some(delay) = delay else { continue };
            tokio::time::sleep(delay).await;
            let answer = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}";
            if stream.write_all(answer).await.is_err() {
                return;
            }
        }
    })
    .await;
    port
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_child_that_never_answers_fails_the_call_after_its_limit() {
    let limit = AnswerLimit {
        default_deadline: Duration::from_millis(100),
        grace: Duration::from_millis(100),
    };
    let relay = Relay::with_answer_limit(TOKEN.into(), limit);
    let wedged = slow_child(None).await;
    let outcome = tokio::time::timeout(
        Duration::from_secs(10),
        relay.forward(Some(wedged), &info()),
    )
    .await
    .expect("the relay gives up by itself");
    assert_eq!(
        outcome,
        RelayOutcome::Failed("the pack service did not answer: fetch failed".into())
    );
    // A call whose deadline is longer waits for its answer past the default.
    let slow = slow_child(Some(Duration::from_millis(300))).await;
    let call = RelayCall {
        timeout_ms: Some("2000".into()),
        ..info()
    };
    assert!(answered(&relay.forward(Some(slow), &call).await));
    // A deadline no Duration holds waits as long as there is, without overflowing.
    let endless = RelayCall {
        timeout_ms: Some(f64::MAX.to_string()),
        ..info()
    };
    assert!(answered(&relay.forward(Some(slow), &endless).await));
}

/// A raw child answering each request's head with `answer` and keeping the connection open.
async fn answering_child(answer: String) -> u16 {
    let answer: Arc<str> = answer.into();
    let port = raw_server(move |mut stream| {
        let answer = Arc::clone(&answer);
        async move {
            let mut seen = Vec::new();
            let mut buffer = [0u8; 4096];
            // Open until the caller closes it.
            loop {
                match stream.read(&mut buffer).await {
                    Ok(0) | Err(_) => return,
                    Ok(n) => seen.extend_from_slice(&buffer[..n]),
                }
                while let Some(end) = seen.windows(4).position(|w| w == b"\r\n\r\n") {
                    seen.drain(..end + 4);
                    if stream.write_all(answer.as_bytes()).await.is_err() {
                        return;
                    }
                }
            }
        }
    })
    .await;
    port
}

/// Forwards `call` to a child answering `answer`, failing the test if no outcome comes within 5 s.
async fn outcome_of(answer: String, call: &RelayCall) -> RelayOutcome {
    let port = answering_child(answer).await;
    tokio::time::timeout(
        Duration::from_secs(5),
        Relay::new(TOKEN.into()).forward(Some(port), call),
    )
    .await
    .expect("an outcome within 5 s")
}

/// The outcomes of `calls` info calls in turn, through one relay, to a child answering `answer`.
async fn outcomes_in_turn(answer: &str, calls: usize) -> Vec<RelayOutcome> {
    let port = answering_child(answer.into()).await;
    let relay = Relay::new(TOKEN.into());
    let mut outcomes = Vec::new();
    for _ in 0..calls {
        outcomes.push(relay.forward(Some(port), &info()).await);
    }
    outcomes
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_with_a_length_and_a_transfer_coding_fails_at_once_as_fetch_fails_it() {
    // hyper reads `identity` (or any coding but chunked) to the close, which a child keeping
    // its connection never sends; fetch refuses a length with any coding at once.
    for (coding, body) in [
        ("identity", "{}"),
        ("gzip", "{}"),
        ("chunked", "2\r\n{}\r\n0\r\n\r\n"),
        ("gzip, chunked", "2\r\n{}\r\n0\r\n\r\n"),
    ] {
        let answer = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\ntransfer-encoding: {coding}\r\n\r\n{body}"
        );
        assert_eq!(
            outcome_of(answer, &info()).await,
            RelayOutcome::Failed("the pack service did not answer: fetch failed".into()),
            "{coding}"
        );
    }
    // Either alone is read.
    let chunked = "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n";
    assert!(answered(&outcome_of(chunked.into(), &info()).await));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_fetch_reads_are_read_as_fetch_reads_them_up_to_hyper_limits() {
    let ok = |extra: &str| {
        format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n{extra}content-length: 2\r\n\r\n{{}}")
    };
    // Up to hyper's 100 headers; more is a known difference (fetch counts only their bytes,
    // 16 KiB), no pack service answers with them.
    let many: String = (0..98).map(|i| format!("x-{i}: v\r\n")).collect();
    assert!(answered(&outcome_of(ok(&many), &info()).await));
    let many: String = (0..99).map(|i| format!("x-{i}: v\r\n")).collect();
    assert_eq!(
        outcome_of(ok(&many), &info()).await,
        RelayOutcome::Failed("the pack service did not answer: fetch failed".into())
    );
    // A folded (obs-fold) header line is unfolded.
    let folded = "HTTP/1.1 200 OK\r\ncontent-type: application/json;\r\n charset=utf-8\r\nx-folded: a\r\n\tb\r\ncontent-length: 2\r\n\r\n{}";
    let outcome = outcome_of(folded.into(), &info()).await;
    assert!(answered(&outcome), "{outcome:?}");
    let RelayOutcome::Answer { headers, .. } = outcome else {
        unreachable!()
    };
    assert_eq!(
        headers,
        [(
            hyper::header::CONTENT_TYPE,
            "application/json; charset=utf-8".to_owned()
        )]
    );
    // Known difference: HTTP/1.0 with a transfer coding, which hyper refuses in any case.
    let old = "HTTP/1.0 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n";
    assert_eq!(
        outcome_of(old.into(), &info()).await,
        RelayOutcome::Failed("the pack service did not answer: fetch failed".into())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_205_answer_has_no_body_as_fetch_reads_it() {
    let answer = "HTTP/1.1 205 Reset Content\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}";
    for outcome in outcomes_in_turn(answer, 2).await {
        assert!(matches!(
            outcome,
            RelayOutcome::Answer { status: 205, body, .. } if body.is_empty()
        ));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interim_answers_are_skipped_and_bytes_after_an_answer_end_its_connection() {
    // 1xx answers before the real one are read past, as fetch does.
    let interim = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}";
    for outcome in outcomes_in_turn(interim, 2).await {
        assert!(answered(&outcome), "{outcome:?}");
    }
    // Bytes past an answer's end belong to no call: the connection is not used again, so the
    // next call is not read from them.
    let trailing = "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}HTTP/1.1 500 Stray\r\n\r\n";
    for outcome in outcomes_in_turn(trailing, 3).await {
        assert!(answered(&outcome), "{outcome:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_that_comes_before_the_request_is_written_is_read() {
    // A child that answers a request's head at once and never reads its body (a refusal of
    // a body too large, say), keeping the connection open: the request cannot all be written,
    // and its answer is read all the same.
    let port = raw_server(move |mut stream| async move {
        let mut seen = Vec::new();
        let mut buffer = [0u8; 4096];
        while !seen.windows(4).any(|w| w == b"\r\n\r\n") {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => return,
                Ok(n) => seen.extend_from_slice(&buffer[..n]),
            }
        }
        let refusal = b"HTTP/1.1 413 Payload Too Large\r\ncontent-length: 2\r\n\r\n{}";
        if stream.write_all(refusal).await.is_ok() {
            tokio::time::sleep(Duration::from_secs(30)).await;
        }
    })
    .await;
    // Larger than the two sockets' buffers hold on loopback.
    let call = RelayCall {
        body: Some("x".repeat(64 << 20)),
        ..invoke("fixture.echo")
    };
    let outcome = tokio::time::timeout(
        Duration::from_secs(10),
        Relay::new(TOKEN.into()).forward(Some(port), &call),
    )
    .await
    .expect("an outcome within 10 s");
    assert!(
        matches!(&outcome, RelayOutcome::Answer { status: 413, body, .. } if body == "{}"),
        "{outcome:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_front_writes_the_reason_node_writes_for_a_status() {
    let (serve_port, serving) = tokio::sync::watch::channel(None);
    let front = Arc::new(Front::new(
        TOKEN.into(),
        serving,
        Arc::default(),
        1024,
        Box::new(|| false),
    ));
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let served = serve_handler(front, listener, Duration::from_secs(30)).expect("serve");
    // Node's words: its STATUS_CODES, `unknown` for a status it has none for.
    for (status, line) in [
        (200, "HTTP/1.1 200 OK"),
        (203, "HTTP/1.1 203 Non-Authoritative Information"),
        (418, "HTTP/1.1 418 I'm a Teapot"),
        (509, "HTTP/1.1 509 Bandwidth Limit Exceeded"),
        (599, "HTTP/1.1 599 unknown"),
        (999, "HTTP/1.1 999 unknown"),
    ] {
        let answer = format!("HTTP/1.1 {status} Odd\r\ncontent-length: 2\r\n\r\n{{}}");
        serve_port.send_replace(Some(answering_child(answer).await));
        let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
        let request = format!("GET /v1/info HTTP/1.1\r\nhost: x\r\nkindgi-pack-token: {TOKEN}\r\nconnection: close\r\n\r\n");
        stream.write_all(request.as_bytes()).await.expect("send");
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).await.expect("read");
        let text = String::from_utf8_lossy(&raw);
        assert_eq!(text.split("\r\n").next(), Some(line), "{text}");
    }
    served.close().await;
}

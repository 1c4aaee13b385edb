//! The relay: one call forwarded to the serving child over loopback, with the session token
//! and the caller's deadline, ids, protocol, trace and tenant, and what became of it — answered,
//! provably not run (`unavailable`), possibly run (`failed`), or cancelled by its caller
//! (dropping the future).
//!
//! Each call drives its own connection to the child inside the caller's task, taken from a
//! small pool of idle keep-alive connections and put back once its answer is read: no
//! connection task and no hand-over between tasks per call. A dropped call drops (closes)
//! its connection, which the child sees as its caller hanging up.

use crate::js::{js_number, utf8_text};
use crate::service::core::DEFAULT_TIMEOUT_MS;
use crate::service::http::{header_text, latin1_header_value, names};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::Incoming;
use hyper::client::conn::http1;
use hyper::header::{
    HeaderMap, HeaderName, HeaderValue, CONTENT_LENGTH, CONTENT_TYPE, HOST, RETRY_AFTER,
    TRANSFER_ENCODING,
};
use hyper::{Method, Request, Response, Uri};
use hyper_util::rt::TokioIo;
use std::future::{poll_fn, Future};
use std::pin::{pin, Pin};
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::{Duration, Instant};
use tokio::net::TcpStream;
use tokio::sync::watch;

/// Which route a call goes to.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum RelayRoute {
    #[default]
    Invoke,
    Info,
    /// Any other route `relay.forward` is given: the TypeScript relay's fetch sends a `GET` of
    /// `/v1/<route>`. Holds that path (and query) as the URL parser writes it, starting with `/`.
    Get(String),
}

impl RelayRoute {
    /// The route a `relay.forward` call names: `invoke`, `info`, or the path of any other.
    pub fn from_name(name: String) -> RelayRoute {
        match name.as_str() {
            "invoke" => RelayRoute::Invoke,
            "info" => RelayRoute::Info,
            _ => RelayRoute::Get(name),
        }
    }

    fn method(&self) -> Method {
        match self {
            RelayRoute::Invoke => Method::POST,
            RelayRoute::Info | RelayRoute::Get(_) => Method::GET,
        }
    }
}

/// One call to forward.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RelayCall {
    pub route: RelayRoute,
    /// The protocol v2 request for `invoke`.
    pub body: Option<String>,
    /// The caller's deadline as the `kindgi-timeout-ms` text sent: the TypeScript relay sends
    /// `String()` of whatever it is given (`null`, `NaN`, `true`), not a number.
    pub timeout_ms: Option<String>,
    pub run_id: Option<String>,
    pub request_id: Option<String>,
    pub protocol: Option<String>,
    pub traceparent: Option<String>,
    /// `kindgi-tenant-id` (protocol 2.7.0): a child pinned to a tenant refuses calls without it.
    pub tenant_id: Option<String>,
}

/// What became of a forwarded call.
#[derive(Debug, Clone, PartialEq)]
pub enum RelayOutcome {
    /// The child answered: its status, the headers the front passes on, its body.
    Answer {
        status: u16,
        headers: Vec<(HeaderName, String)>,
        body: String,
    },
    /// Not delivered: it provably did not run, and may be retried.
    Unavailable(String),
    /// Delivered, but no answer came back: it may have run, and must not be retried.
    Failed(String),
}

/// The headers of a child's answer the front passes on.
const ANSWER_HEADERS: [HeaderName; 4] = [
    CONTENT_TYPE,
    RETRY_AFTER,
    names::ARTIFACT_VERSION,
    names::DURATION_MS,
];

/// How long an idle connection is reused. Node's and uvicorn's servers close keep-alive
/// connections after 5 s idle; a call sent as one closes would fail without having run.
const IDLE_REUSE: Duration = Duration::from_secs(2);

/// Idle connections kept for reuse; more are closed when their call ends.
const MAX_IDLE: usize = 64;

type Connection = http1::Connection<TokioIo<TcpStream>, Full<Bytes>>;

/// A keep-alive connection to one child, driven by whichever call holds it.
struct ChildConnection {
    port: u16,
    sender: http1::SendRequest<Full<Bytes>>,
    connection: Pin<Box<Connection>>,
    idle_since: Instant,
}

/// The connection ended (the child closed it or it broke) before what was waited for came.
struct Ended;

/// Awaits `work` while driving `connection`'s reads and writes in this task.
async fn drive<C: Future, F: Future>(
    mut connection: Pin<&mut C>,
    work: F,
) -> Result<F::Output, Ended> {
    let mut work = pin!(work);
    poll_fn(|cx| {
        if let Poll::Ready(out) = work.as_mut().poll(cx) {
            return Poll::Ready(Ok(out));
        }
        let ended = connection.as_mut().poll(cx).is_ready();
        // The connection may just have delivered what `work` waits for (or, ended, dropped
        // its side of it): look again before sleeping.
        match work.as_mut().poll(cx) {
            Poll::Ready(out) => Poll::Ready(Ok(out)),
            Poll::Pending if ended => Poll::Ready(Err(Ended)),
            Poll::Pending => Poll::Pending,
        }
    })
    .await
}

/// How connections to a child read answers: hyper's defaults, but with folded (obs-fold)
/// header lines unfolded, as fetch takes them, rather than refused.
fn client() -> http1::Builder {
    let mut builder = http1::Builder::new();
    builder.allow_obsolete_multiline_headers_in_responses(true);
    builder
}

impl ChildConnection {
    async fn open(port: u16, client: &http1::Builder) -> std::io::Result<ChildConnection> {
        let stream = TcpStream::connect(("127.0.0.1", port)).await?;
        stream.set_nodelay(true)?;
        let (sender, connection) = client
            .handshake(TokioIo::new(stream))
            .await
            .map_err(std::io::Error::other)?;
        Ok(ChildConnection {
            port,
            sender,
            connection: Box::pin(connection),
            idle_since: Instant::now(),
        })
    }

    /// Awaits `work` while driving the connection's reads and writes in this task.
    async fn drive<F: Future>(&mut self, work: F) -> Result<F::Output, Ended> {
        drive(self.connection.as_mut(), work).await
    }

    /// Whether the connection can carry another request now. An idle connection has nothing
    /// in flight, so one look tells: the connection reads what the child sent meanwhile (its
    /// close), and the sender says whether a request may go.
    async fn ready(&mut self) -> bool {
        if self.idle_since.elapsed() > IDLE_REUSE {
            return false;
        }
        let (connection, sender) = (&mut self.connection, &mut self.sender);
        poll_fn(|cx| {
            if connection.as_mut().poll(cx).is_ready() {
                return Poll::Ready(false);
            }
            Poll::Ready(matches!(sender.poll_ready(cx), Poll::Ready(Ok(()))))
        })
        .await
    }
}

/// How long a forwarded call waits for its answer. A child answers every call by its deadline
/// (`deadline-exceeded` at the latest); one that has not answered `grace` after it is wedged
/// (a handler blocking its event loop, say), and the call fails instead of waiting forever.
/// The deadline counted is never under `default_deadline`, the services' own default, so no
/// child's reading of `kindgi-timeout-ms` can make the wait too short.
#[derive(Debug, Clone, Copy)]
pub struct AnswerLimit {
    pub default_deadline: Duration,
    pub grace: Duration,
}

impl Default for AnswerLimit {
    fn default() -> Self {
        AnswerLimit {
            default_deadline: Duration::from_millis(DEFAULT_TIMEOUT_MS),
            grace: Duration::from_secs(30),
        }
    }
}

impl AnswerLimit {
    /// The wait for a call whose `kindgi-timeout-ms` is `timeout_ms`. `Number()` of it is at
    /// least what any service reads there (the JS services take integers, Python digits only);
    /// a text that is no finite number above 0 (`null`, `Infinity`) leaves every child on its
    /// default.
    fn for_call(&self, timeout_ms: Option<&str>) -> Duration {
        let deadline = match timeout_ms.map(js_number) {
            // Longer than a Duration holds: as long as there is.
            Some(ms) if ms.is_finite() && ms > 0.0 => {
                Duration::try_from_secs_f64(ms / 1000.0).unwrap_or(Duration::MAX)
            }
            _ => Duration::ZERO,
        };
        deadline
            .max(self.default_deadline)
            .saturating_add(self.grace)
    }
}

/// Forwards calls to a child on loopback, keeping connections alive between calls.
pub struct Relay {
    idle: Arc<Mutex<Vec<ChildConnection>>>,
    token: String,
    answer_limit: AnswerLimit,
    client: http1::Builder,
}

fn drop_idle_except(idle: &Mutex<Vec<ChildConnection>>, port: Option<u16>) {
    if let Ok(mut idle) = idle.lock() {
        idle.retain(|c| Some(c.port) == port);
    }
}

impl Relay {
    pub fn new(token: String) -> Relay {
        Relay::with_answer_limit(token, AnswerLimit::default())
    }

    pub fn with_answer_limit(token: String, answer_limit: AnswerLimit) -> Relay {
        Relay {
            idle: Arc::default(),
            token,
            answer_limit,
            client: client(),
        }
    }

    /// An idle connection to `port` that can carry a request now. Connections to another port
    /// belong to a child that no longer serves and are closed.
    async fn idle_connection(&self, port: u16) -> Option<ChildConnection> {
        loop {
            let mut connection = {
                let mut idle = self.idle.lock().ok()?;
                idle.retain(|c| c.port == port);
                idle.pop()?
            };
            if connection.ready().await {
                return Some(connection);
            }
        }
    }

    /// Closes the kept connections (their child is stopped or the supervisor closes), which
    /// would otherwise stay half-closed until the next call.
    pub fn drop_idle(&self) {
        self.drop_idle_except(None);
    }

    /// Closes the kept connections to any child but the one on `port`.
    pub fn drop_idle_except(&self, port: Option<u16>) {
        drop_idle_except(&self.idle, port);
    }

    /// From now on, closes the kept connections to a child as soon as it stops serving (a
    /// swap, a crash, a stop), rather than at the next call, which may be long in coming.
    /// The watch ends with its sender. Must be called inside a tokio runtime.
    pub fn drop_idle_on_change(&self, mut serving: watch::Receiver<Option<u16>>) {
        let idle = Arc::clone(&self.idle);
        tokio::spawn(async move {
            while serving.changed().await.is_ok() {
                let port = *serving.borrow_and_update();
                drop_idle_except(&idle, port);
            }
        });
    }

    fn put_back(&self, mut connection: ChildConnection) {
        connection.idle_since = Instant::now();
        if let Ok(mut idle) = self.idle.lock() {
            if idle.len() < MAX_IDLE {
                idle.push(connection);
            }
        }
    }

    /// Forwards `call` to the child listening on `port`, or answers `unavailable` without one.
    pub async fn forward(&self, port: Option<u16>, call: &RelayCall) -> RelayOutcome {
        let Some(port) = port else {
            return RelayOutcome::Unavailable("no pack service".into());
        };
        // Past the limit the exchange is dropped, and its connection with it.
        let limit = self.answer_limit.for_call(call.timeout_ms.as_deref());
        tokio::time::timeout(limit, self.exchange(port, call))
            .await
            .unwrap_or_else(|_| did_not_answer())
    }

    async fn exchange(&self, port: u16, call: &RelayCall) -> RelayOutcome {
        let mut request = match self.request(port, call) {
            Ok(request) => request,
            Err(failed) => return failed,
        };
        // A kept connection that closed before the request left gives the request back unsent:
        // it did not run, and goes once more, on a new connection.
        let mut reused = self.idle_connection(port).await;
        loop {
            let retry_unsent = reused.is_some();
            let mut connection = match reused.take() {
                Some(connection) => connection,
                None => match ChildConnection::open(port, &self.client).await {
                    Ok(connection) => connection,
                    Err(error) if error.kind() == std::io::ErrorKind::ConnectionRefused => {
                        return RelayOutcome::Unavailable(
                            "the pack service refused the connection".into(),
                        )
                    }
                    Err(_) => return did_not_answer(),
                },
            };
            let sent = connection.sender.try_send_request(request);
            let response = match connection.drive(sent).await {
                Ok(Ok(response)) => response,
                Ok(Err(mut refused)) => match refused.take_message() {
                    Some(unsent) if retry_unsent => {
                        request = unsent;
                        continue;
                    }
                    _ => return did_not_answer(),
                },
                Err(Ended) => return did_not_answer(),
            };
            return match read_answer(connection.connection.as_mut(), response).await {
                Ok(answer) => {
                    self.put_back(connection);
                    answer
                }
                Err(failed) => failed,
            };
        }
    }

    fn request(&self, port: u16, call: &RelayCall) -> Result<Request<Full<Bytes>>, RelayOutcome> {
        let uri = match &call.route {
            RelayRoute::Info => Ok(Uri::from_static("/v1/info")),
            RelayRoute::Invoke => Ok(Uri::from_static("/v1/invoke")),
            // Only a path: anything else would be read as another form of request target.
            RelayRoute::Get(path) if path.starts_with('/') => {
                path.parse::<Uri>().map_err(|e| e.to_string())
            }
            RelayRoute::Get(path) => {
                return Err(RelayOutcome::Failed(format!(
                    "the request cannot be built: {path:?} is not a path"
                )))
            }
        };
        // Headers go into the map directly (a request builder moves the whole request at each
        // header). As a builder does, a part that is not valid is reported when the request is
        // made, after the caller's own headers are checked: the first such part.
        let mut invalid = uri.as_ref().err().cloned();
        let mut headers = HeaderMap::with_capacity(10);
        let ours = [
            (HOST, HeaderValue::try_from(format!("127.0.0.1:{port}"))),
            (names::TOKEN, HeaderValue::from_str(&self.token)),
        ];
        for (name, value) in ours {
            match value {
                Ok(value) => {
                    headers.insert(name, value);
                }
                Err(e) => {
                    invalid.get_or_insert(e.to_string());
                }
            }
        }
        if call.body.is_some() {
            headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        }
        let optional = [
            (names::TIMEOUT_MS, call.timeout_ms.as_deref()),
            (names::RUN_ID, call.run_id.as_deref()),
            (names::REQUEST_ID, call.request_id.as_deref()),
            (names::PROTOCOL, call.protocol.as_deref()),
            (names::TRACEPARENT, call.traceparent.as_deref()),
            (names::TENANT_ID, call.tenant_id.as_deref()),
        ];
        for (name, value) in optional {
            if let Some(value) = value {
                // Sent as fetch sends a string: one byte per character, so the caller's bytes
                // reach the child as they came. What undici will not write (a control character
                // but tab) fails its fetch as `fetch failed`, before any connection is made.
                let value = latin1_header_value(value).ok_or_else(did_not_answer)?;
                headers.append(name, value);
            }
        }
        let (Ok(uri), None) = (uri, invalid.as_ref()) else {
            let reason = invalid.unwrap_or_default();
            return Err(RelayOutcome::Failed(format!(
                "the request cannot be built: {reason}"
            )));
        };
        let body = call.body.clone().unwrap_or_default();
        if body.is_empty() && call.route == RelayRoute::Invoke {
            // fetch gives a POST its length even when it is 0; hyper would send none.
            headers.insert(CONTENT_LENGTH, HeaderValue::from_static("0"));
        }
        let mut request = Request::new(Full::new(Bytes::from(body)));
        *request.method_mut() = call.route.method();
        *request.uri_mut() = uri;
        *request.headers_mut() = headers;
        Ok(request)
    }
}

/// The largest answer passed on: it crosses to JavaScript as one string, whose length V8 caps
/// (about 512 Mi characters), and a child streaming more would fill the parent's memory.
const MAX_ANSWER: usize = 128 * 1024 * 1024;

/// Delivered, or possibly delivered, with no answer: the call may have run.
fn did_not_answer() -> RelayOutcome {
    // Node's fetch says only this; the cause is in its `cause`.
    RelayOutcome::Failed("the pack service did not answer: fetch failed".into())
}

/// Reads the answer whose head is `response`, driving `connection`: `Ok` once it is read whole
/// and the connection can carry another call, `Err` with the outcome otherwise.
async fn read_answer<C: Future>(
    mut connection: Pin<&mut C>,
    response: Response<Incoming>,
) -> Result<RelayOutcome, RelayOutcome> {
    let status = response.status().as_u16();
    // A protocol switch nobody asked for: fetch refuses it (`bad upgrade`).
    if status == 101 {
        return Err(did_not_answer());
    }
    // A length and a transfer coding: fetch refuses it at once, where hyper would read an
    // answer whose coding is not chunked until the child closes (a kept connection never does).
    let head = response.headers();
    if head.contains_key(TRANSFER_ENCODING) && head.contains_key(CONTENT_LENGTH) {
        return Err(did_not_answer());
    }
    let headers = ANSWER_HEADERS
        .iter()
        .filter_map(|name| {
            // As fetch reads them: Latin-1, repeats joined with `, `.
            Some((name.clone(), header_text(head, name)?))
        })
        .collect();
    let reading = Limited::new(response.into_body(), MAX_ANSWER).collect();
    let body = match drive(connection.as_mut(), reading).await {
        Ok(Ok(collected)) => collected.to_bytes(),
        Ok(Err(error)) if error.is::<LengthLimitError>() => {
            return Err(RelayOutcome::Failed(format!(
                "the pack service's answer is larger than {} MiB",
                MAX_ANSWER >> 20
            )))
        }
        Ok(Err(_)) | Err(Ended) => {
            return Err(RelayOutcome::Failed(
                "the pack service's answer broke off: terminated".into(),
            ))
        }
    };
    Ok(RelayOutcome::Answer {
        status,
        headers,
        // A 205 has no body for fetch (the bytes a child sends with one are read and dropped).
        body: if status == 205 {
            String::new()
        } else {
            utf8_text(&body).into_owned()
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A call of another route, `GET path`.
    fn get(path: &str) -> RelayCall {
        RelayCall {
            route: RelayRoute::Get(path.into()),
            ..RelayCall::default()
        }
    }

    #[test]
    fn requests_carry_the_call_as_fetch_sends_it() {
        let relay = Relay::new("t".repeat(32));
        let call = RelayCall {
            body: Some("{}".into()),
            timeout_ms: Some("5000".into()),
            tenant_id: Some("caf\u{e9}".into()),
            ..RelayCall::default()
        };
        let Ok(request) = relay.request(4100, &call) else {
            panic!("a request");
        };
        assert_eq!(request.method(), Method::POST);
        assert_eq!(request.uri(), "/v1/invoke");
        let headers: Vec<(&str, &[u8])> = request
            .headers()
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_bytes()))
            .collect();
        let token = "t".repeat(32);
        assert_eq!(
            headers,
            [
                ("host", &b"127.0.0.1:4100"[..]),
                ("kindgi-pack-token", token.as_bytes()),
                ("content-type", b"application/json"),
                ("kindgi-timeout-ms", b"5000"),
                ("kindgi-tenant-id", b"caf\xe9"),
            ]
        );
        // An invoke with no body still says its length.
        let Ok(empty) = relay.request(4100, &RelayCall::default()) else {
            panic!("a request");
        };
        assert_eq!(empty.headers()[CONTENT_LENGTH], "0");
        let Ok(other) = relay.request(4100, &get("/v1/x?y=1")) else {
            panic!("a request");
        };
        assert_eq!(
            (other.method(), other.uri().to_string()),
            (&Method::GET, "/v1/x?y=1".into())
        );
    }

    #[test]
    fn a_request_that_cannot_be_made_fails_after_the_callers_headers_are_checked() {
        let relay = Relay::new("t".repeat(32));
        let failed = |call: &RelayCall| match relay.request(4100, call) {
            Err(RelayOutcome::Failed(reason)) => reason,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            failed(&get("v1/x")),
            "the request cannot be built: \"v1/x\" is not a path"
        );
        assert_eq!(
            failed(&get("/a b")),
            "the request cannot be built: invalid uri character"
        );
        // A header fetch would not send fails first, as fetch failed.
        let both = RelayCall {
            run_id: Some("a\u{1}".into()),
            ..get("/a b")
        };
        assert_eq!(
            failed(&both),
            "the pack service did not answer: fetch failed"
        );
        let bad_token = Relay::new("a\nb".into());
        match bad_token.request(4100, &RelayCall::default()) {
            Err(RelayOutcome::Failed(reason)) => assert_eq!(
                reason,
                "the request cannot be built: failed to parse header value"
            ),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_call_waits_for_the_longer_of_its_deadline_and_the_default_plus_grace() {
        let limit = AnswerLimit::default();
        let secs = |s: u64| Duration::from_secs(s);
        assert_eq!(limit.for_call(None), secs(150));
        assert_eq!(limit.for_call(Some("5000")), secs(150));
        assert_eq!(limit.for_call(Some("600000")), secs(630));
        assert_eq!(limit.for_call(Some("1.5")), secs(150));
        // Read as `Number()` reads it, never under what a service reads there.
        assert_eq!(limit.for_call(Some(" 6e5 ")), secs(630));
        assert_eq!(limit.for_call(Some("0x927C0")), secs(630));
        // What no Duration holds waits as long as there is.
        assert_eq!(limit.for_call(Some("1e300")), Duration::MAX);
        // No service reads a deadline in these: each child keeps its default.
        for text in [
            "NaN",
            "null",
            "Infinity",
            "-Infinity",
            "-5",
            "0",
            "",
            "true",
            "[object Object]",
        ] {
            assert_eq!(limit.for_call(Some(text)), secs(150), "{text}");
        }
    }
}

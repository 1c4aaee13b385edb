//! The relay: one call forwarded to the serving child over loopback, with the session token
//! and the caller's deadline, ids, protocol, trace and tenant, and what became of it — answered,
//! provably not run (`unavailable`), possibly run (`failed`), or cancelled by its caller
//! (dropping the future).
//!
//! Each call speaks HTTP/1.1 itself on a connection to the child, inside the caller's task:
//! it writes the request's bytes and reads the answer with [`wire`](super::wire). Connections
//! come from a small pool of idle keep-alive ones and go back once their answer is read. A
//! dropped call drops (closes) its connection, which the child sees as its caller hanging up.

use crate::js::{js_number, utf8_string};
use crate::service::core::DEFAULT_TIMEOUT_MS;
use crate::service::http::{latin1_header_value, names};
use crate::supervisor::wire::{self, AnswerHead, Chunked, Framing};
use hyper::header::{HeaderName, HeaderValue, CONTENT_TYPE, RETRY_AFTER};
use hyper::Uri;
use std::borrow::Cow;
use std::future::{poll_fn, Future};
use std::io::ErrorKind;
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
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

    fn method(&self) -> &'static str {
        match self {
            RelayRoute::Invoke => "POST",
            RelayRoute::Info | RelayRoute::Get(_) => "GET",
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

/// How much room a read into a connection's buffer asks for at least.
const READ_ROOM: usize = 8 * 1024;

/// A keep-alive connection to one child, used by one call at a time.
struct ChildConnection {
    port: u16,
    stream: TcpStream,
    /// What the child sent that no answer has used yet: empty between calls.
    received: Vec<u8>,
    idle_since: Instant,
}

/// What became of one exchange on a connection that answered.
struct Exchanged {
    outcome: RelayOutcome,
    /// The request went out whole and the answer was read to its end with nothing after it:
    /// the connection can carry another call.
    reusable: bool,
}

impl ChildConnection {
    async fn open(port: u16) -> std::io::Result<ChildConnection> {
        let stream = TcpStream::connect(("127.0.0.1", port)).await?;
        stream.set_nodelay(true)?;
        Ok(ChildConnection {
            port,
            stream,
            received: Vec::new(),
            idle_since: Instant::now(),
        })
    }

    /// Whether an idle connection can carry a request now: it has not idled too long, and the
    /// child sent nothing meanwhile (neither its close nor bytes no request asked for). The
    /// look reads only when the runtime has seen the socket become readable.
    fn ready(&self) -> bool {
        let mut probe = [0u8; 1];
        self.idle_since.elapsed() <= IDLE_REUSE
            && matches!(self.stream.try_read(&mut probe), Err(e) if e.kind() == ErrorKind::WouldBlock)
    }

    /// Sends `request` and reads its answer. The answer is read while the request is still
    /// being written: a child may answer (a refusal, say) before it has read a large body.
    async fn exchange(&mut self, request: &[u8]) -> Result<Exchanged, RelayOutcome> {
        let mut sent = None;
        let (outcome, keep_alive) = {
            let (mut reader, mut writer) = self.stream.split();
            let mut write = pin!(writer.write_all(request));
            let mut read = pin!(read_answer(&mut reader, &mut self.received));
            poll_fn(|cx| {
                if sent.is_none() {
                    if let Poll::Ready(result) = write.as_mut().poll(cx) {
                        sent = Some(result.is_ok());
                    }
                }
                read.as_mut().poll(cx)
            })
            .await?
        };
        Ok(Exchanged {
            outcome,
            reusable: keep_alive && sent == Some(true) && self.received.is_empty(),
        })
    }
}

/// Reads more of the child's bytes into `received`: false at the connection's end or an error.
async fn read_more(
    reader: &mut (impl AsyncRead + Unpin),
    received: &mut Vec<u8>,
    room: usize,
) -> bool {
    received.reserve(room.max(READ_ROOM));
    matches!(reader.read_buf(received).await, Ok(1..))
}

/// Reads one answer: its outcome and whether its connection may stay open, or the outcome of
/// a call that got no (whole) answer. `received` holds what was read before and keeps what
/// follows the answer. Public for the fuzz harness, which reads from memory.
pub async fn read_answer(
    reader: &mut (impl AsyncRead + Unpin),
    received: &mut Vec<u8>,
) -> Result<(RelayOutcome, bool), RelayOutcome> {
    let head = loop {
        // Nothing to read a head from until the child sends something.
        if received.is_empty() && !read_more(reader, received, 0).await {
            return Err(did_not_answer());
        }
        match wire::parse_head(received, &ANSWER_HEADERS) {
            Ok(Some((length, head))) => {
                received.drain(..length);
                if !head.is_interim() {
                    break head;
                }
            }
            Ok(None) if received.len() < wire::MAX_HEAD => {
                if !read_more(reader, received, 0).await {
                    return Err(did_not_answer());
                }
            }
            Ok(None) | Err(wire::Malformed) => return Err(did_not_answer()),
        }
    };
    let AnswerHead {
        status,
        headers,
        framing,
        keep_alive,
    } = head;
    let body = read_body(reader, received, framing).await?;
    let outcome = RelayOutcome::Answer {
        status,
        headers,
        // A 205 has no body for fetch (the bytes a child sends with one are read and dropped).
        body: if status == 205 {
            String::new()
        } else {
            utf8_string(body)
        },
    };
    Ok((outcome, keep_alive && framing != Framing::UntilClose))
}

/// Reads the body that follows a head framed as `framing`, leaving in `received` any bytes
/// after it.
async fn read_body(
    reader: &mut (impl AsyncRead + Unpin),
    received: &mut Vec<u8>,
    framing: Framing,
) -> Result<Vec<u8>, RelayOutcome> {
    match framing {
        Framing::Empty => Ok(Vec::new()),
        Framing::Length(length) => {
            let length = usize::try_from(length)
                .ok()
                .filter(|&n| n <= MAX_ANSWER)
                .ok_or_else(too_large)?;
            while received.len() < length {
                if !read_more(reader, received, length - received.len()).await {
                    return Err(broke_off());
                }
            }
            // Copied out, so the buffer (and its room) stays with the connection.
            let body = received[..length].to_vec();
            received.drain(..length);
            Ok(body)
        }
        Framing::Chunked => {
            let mut chunked = Chunked::default();
            let mut body = Vec::new();
            loop {
                let used = chunked
                    .decode(received, &mut body)
                    .map_err(|_| broke_off())?;
                received.drain(..used);
                if body.len() > MAX_ANSWER {
                    return Err(too_large());
                }
                if chunked.is_done() {
                    return Ok(body);
                }
                if !read_more(reader, received, 0).await {
                    return Err(broke_off());
                }
            }
        }
        Framing::UntilClose => loop {
            if received.len() > MAX_ANSWER {
                return Err(too_large());
            }
            received.reserve(READ_ROOM);
            match reader.read_buf(received).await {
                Ok(0) => return Ok(std::mem::take(received)),
                Ok(_) => {}
                Err(_) => return Err(broke_off()),
            }
        },
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
    /// The session token, or why it cannot be a header value.
    token: Result<String, String>,
    answer_limit: AnswerLimit,
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
        let token = match HeaderValue::from_str(&token) {
            Ok(_) => Ok(token),
            Err(e) => Err(e.to_string()),
        };
        Relay {
            idle: Arc::default(),
            token,
            answer_limit,
        }
    }

    /// An idle connection to `port` that can carry a request now. Connections to another port
    /// belong to a child that no longer serves and are closed, as are ones the child closed.
    fn idle_connection(&self, port: u16) -> Option<ChildConnection> {
        let mut idle = self.idle.lock().ok()?;
        idle.retain(|c| c.port == port);
        while let Some(connection) = idle.pop() {
            if connection.ready() {
                return Some(connection);
            }
        }
        None
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
        let request = match self.request(port, call) {
            Ok(request) => request,
            Err(failed) => return failed,
        };
        // A kept connection the child has closed is never written to (see `ready`): a request
        // goes on a new connection rather than fail without having run.
        let mut connection = match self.idle_connection(port) {
            Some(connection) => connection,
            None => match ChildConnection::open(port).await {
                Ok(connection) => connection,
                Err(error) if error.kind() == ErrorKind::ConnectionRefused => {
                    return RelayOutcome::Unavailable(
                        "the pack service refused the connection".into(),
                    )
                }
                Err(_) => return did_not_answer(),
            },
        };
        match connection.exchange(&request).await {
            Ok(Exchanged { outcome, reusable }) => {
                if reusable {
                    self.put_back(connection);
                }
                outcome
            }
            Err(failed) => failed,
        }
    }

    /// The request's bytes, as fetch sends the call: its headers in the order hyper's client
    /// wrote them for the relay before.
    fn request(&self, port: u16, call: &RelayCall) -> Result<Vec<u8>, RelayOutcome> {
        let target: Result<Cow<'static, str>, String> = match &call.route {
            RelayRoute::Info => Ok("/v1/info".into()),
            RelayRoute::Invoke => Ok("/v1/invoke".into()),
            // Only a path: anything else would be read as another form of request target.
            RelayRoute::Get(path) if path.starts_with('/') => path
                .parse::<Uri>()
                .map(|uri| uri.to_string().into())
                .map_err(|e| e.to_string()),
            RelayRoute::Get(path) => return Err(cannot_build(&format!("{path:?} is not a path"))),
        };
        let optional = [
            (names::TIMEOUT_MS, call.timeout_ms.as_deref()),
            (names::RUN_ID, call.run_id.as_deref()),
            (names::REQUEST_ID, call.request_id.as_deref()),
            (names::PROTOCOL, call.protocol.as_deref()),
            (names::TRACEPARENT, call.traceparent.as_deref()),
            (names::TENANT_ID, call.tenant_id.as_deref()),
        ];
        let mut caller_headers = Vec::with_capacity(128);
        for (name, value) in optional {
            let Some(value) = value else { continue };
            // Sent as fetch sends a string: one byte per character, so the caller's bytes reach
            // the child as they came. What undici will not write (a control character but tab)
            // fails its fetch as `fetch failed`, before any connection is made; so it comes
            // before the request's own parts are found wanting.
            let value = latin1_header_value(value).ok_or_else(did_not_answer)?;
            push_header(&mut caller_headers, name.as_str(), value.as_bytes());
        }
        let (target, token) = match (target, self.token.as_deref()) {
            (Ok(target), Ok(token)) => (target, token),
            (Err(reason), _) => return Err(cannot_build(&reason)),
            (_, Err(reason)) => return Err(cannot_build(reason)),
        };
        let body = call.body.as_deref().unwrap_or_default();
        let mut request = Vec::with_capacity(160 + caller_headers.len() + body.len());
        for part in [
            call.route.method(),
            " ",
            &target,
            " HTTP/1.1\r\nhost: 127.0.0.1:",
        ] {
            request.extend_from_slice(part.as_bytes());
        }
        request.extend_from_slice(port.to_string().as_bytes());
        request.extend_from_slice(b"\r\n");
        push_header(&mut request, names::TOKEN.as_str(), token.as_bytes());
        if call.body.is_some() {
            push_header(&mut request, CONTENT_TYPE.as_str(), b"application/json");
        }
        request.extend_from_slice(&caller_headers);
        // fetch gives a POST its length even when it is 0; a GET with no body has none.
        if !body.is_empty() || call.route == RelayRoute::Invoke {
            push_header(
                &mut request,
                "content-length",
                body.len().to_string().as_bytes(),
            );
        }
        request.extend_from_slice(b"\r\n");
        request.extend_from_slice(body.as_bytes());
        Ok(request)
    }
}

/// A call whose request cannot be made: fetch throws before sending anything.
fn cannot_build(reason: &str) -> RelayOutcome {
    RelayOutcome::Failed(format!("the request cannot be built: {reason}"))
}

/// Writes one header line.
fn push_header(request: &mut Vec<u8>, name: &str, value: &[u8]) {
    request.extend_from_slice(name.as_bytes());
    request.extend_from_slice(b": ");
    request.extend_from_slice(value);
    request.extend_from_slice(b"\r\n");
}

/// The largest answer passed on: it crosses to JavaScript as one string, whose length V8 caps
/// (about 512 Mi characters), and a child streaming more would fill the parent's memory.
const MAX_ANSWER: usize = 128 * 1024 * 1024;

/// Delivered, or possibly delivered, with no answer: the call may have run.
fn did_not_answer() -> RelayOutcome {
    // Node's fetch says only this; the cause is in its `cause`.
    RelayOutcome::Failed("the pack service did not answer: fetch failed".into())
}

fn too_large() -> RelayOutcome {
    RelayOutcome::Failed(format!(
        "the pack service's answer is larger than {} MiB",
        MAX_ANSWER >> 20
    ))
}

fn broke_off() -> RelayOutcome {
    RelayOutcome::Failed("the pack service's answer broke off: terminated".into())
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

    /// The request's bytes as text, Latin-1 read.
    fn request_text(relay: &Relay, call: &RelayCall) -> String {
        match relay.request(4100, call) {
            Ok(bytes) => bytes.iter().map(|&b| char::from(b)).collect(),
            Err(outcome) => panic!("{outcome:?}"),
        }
    }

    #[test]
    fn requests_carry_the_call_as_fetch_sends_it() {
        let relay = Relay::new("t".repeat(32));
        let call = RelayCall {
            body: Some("{}".into()),
            timeout_ms: Some("5000".into()),
            request_id: Some("r-1".into()),
            tenant_id: Some("caf\u{e9}".into()),
            ..RelayCall::default()
        };
        let token = "t".repeat(32);
        assert_eq!(
            request_text(&relay, &call),
            format!(
                "POST /v1/invoke HTTP/1.1\r\nhost: 127.0.0.1:4100\r\nkindgi-pack-token: {token}\r\n\
                 content-type: application/json\r\nkindgi-timeout-ms: 5000\r\nkindgi-request-id: r-1\r\n\
                 kindgi-tenant-id: caf\u{e9}\r\ncontent-length: 2\r\n\r\n{{}}"
            )
        );
        // An invoke with no body still says its length; a GET with none says nothing of one.
        assert_eq!(
            request_text(&relay, &RelayCall::default()),
            format!("POST /v1/invoke HTTP/1.1\r\nhost: 127.0.0.1:4100\r\nkindgi-pack-token: {token}\r\ncontent-length: 0\r\n\r\n")
        );
        let info = RelayCall {
            route: RelayRoute::Info,
            ..RelayCall::default()
        };
        assert_eq!(
            request_text(&relay, &info),
            format!("GET /v1/info HTTP/1.1\r\nhost: 127.0.0.1:4100\r\nkindgi-pack-token: {token}\r\n\r\n")
        );
        assert!(request_text(&relay, &get("/v1/x?y=1")).starts_with("GET /v1/x?y=1 HTTP/1.1\r\n"));
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

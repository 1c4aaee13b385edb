//! The pack service over HTTP/1.1 with hyper: accept, describe each request as a
//! [`RequestHead`], read admitted bodies under the cap, and write JSON answers with the headers
//! the TypeScript service writes.

use crate::js::utf8_string;
use crate::service::core::{Begin, Outcome, PackService, RequestHead};
use crate::service::hangup::PeerWatch;
use crate::service::http::{names, node_header_value, request_target, PackHeaders, Reply};
use crate::service::node_parser::{
    node_refusal, NodeRefusal, MAX_HEADER_LINES, MAX_RAW_HEAD_BYTES,
};
use crate::service::read_body::read_body;
use crate::service::self_wake::RepollSelfWakes;
use crate::service::timer_floor::TimerFloor;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::{Body, Incoming};
use hyper::header::{
    HeaderName, HeaderValue, CONNECTION, CONTENT_LENGTH, CONTENT_TYPE, RETRY_AFTER,
};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode, Version};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::{JoinHandle, JoinSet};

/// How long a connection may wait for a request's headers: while it is idle between requests
/// this is Node's `keepAliveTimeout` (5 s), which every answer announces (`Keep-Alive:
/// timeout=5`), so a client stops reusing the connection before it is closed.
pub const HEADERS_WITHIN: Duration = Duration::from_secs(5);

/// Node's `requestTimeout`: a body still arriving this long after its request began is
/// answered 408 and its connection closed, so a stalled upload gives its slot back.
pub const BODY_WITHIN: Duration = Duration::from_secs(300);

/// How long clients may take to send a request: its headers, then an admitted call's body.
#[derive(Debug, Clone, Copy)]
pub struct ReadLimits {
    pub headers: Duration,
    pub body: Duration,
}

impl Default for ReadLimits {
    fn default() -> Self {
        ReadLimits {
            headers: HEADERS_WITHIN,
            body: BODY_WITHIN,
        }
    }
}

/// Node's `Keep-Alive` answer header, named once rather than parsed for every answer.
const KEEP_ALIVE: HeaderName = HeaderName::from_static("keep-alive");

/// How long the accept loop waits after an accept that failed for want of resources.
const ACCEPT_PAUSE: Duration = Duration::from_millis(50);

/// Whether an accept failed because of its peer (it reset first) rather than this process.
fn is_peers(error: &std::io::Error) -> bool {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionReset, Interrupted};
    matches!(
        error.kind(),
        ConnectionAborted | ConnectionReset | Interrupted
    )
}

/// After drain, how long open connections get to finish writing before they are closed.
const CLOSE_MARGIN: Duration = Duration::from_millis(250);

/// What an accept loop serves: one response per request. Dropping the returned future (the
/// client hung up) is how a request learns its caller went away.
pub trait Handler: Send + Sync + 'static {
    fn handle(
        &self,
        req: Request<Incoming>,
    ) -> impl std::future::Future<Output = Response<Full<Bytes>>> + Send;

    /// Whether connections are about to close (the service drains): answers then say
    /// `connection: close`, so a client that pipelined more requests behind one knows those
    /// were not read, rather than a `keep-alive` the closing connection belies.
    fn closing_connections(&self) -> bool {
        false
    }
}

/// An accept loop and its connections. [`Served::close`] stops accepting and closes them.
pub struct Served {
    local_addr: SocketAddr,
    shutdown: watch::Sender<bool>,
    accept: JoinHandle<()>,
}

impl Served {
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Stops accepting, lets open connections finish what they are writing, then closes them.
    pub async fn close(self) {
        // Ignored when the accept loop is already gone: there is nothing left to tell.
        let _ = self.shutdown.send(true);
        // The loop aborts its connections itself once the margin passes; should it still be
        // busy past twice the margin, it is left to the runtime's shutdown.
        let _ = tokio::time::timeout(CLOSE_MARGIN * 2, self.accept).await;
    }
}

/// Serves `handler` on `listener` (TCP_NODELAY, a limit on reading headers) until closed.
pub fn serve_handler<H: Handler>(
    handler: Arc<H>,
    listener: TcpListener,
    header_limit: Duration,
) -> std::io::Result<Served> {
    let local_addr = listener.local_addr()?;
    let (shutdown, watch_shutdown) = watch::channel(false);
    let accept = tokio::spawn(accept_loop(handler, listener, watch_shutdown, header_limit));
    Ok(Served {
        local_addr,
        shutdown,
        accept,
    })
}

/// A service's listener, once it listens: shared by the JS API's `stop` and the process's
/// SIGTERM (`service::termination`), whichever takes it first.
pub type SharedListening = Arc<tokio::sync::Mutex<Option<Listening>>>;

/// A listening service. [`Listening::stop`] drains it and closes every connection.
pub struct Listening {
    served: Served,
    service: Arc<PackService>,
}

impl Listening {
    pub fn local_addr(&self) -> SocketAddr {
        self.served.local_addr()
    }

    pub fn service(&self) -> &Arc<PackService> {
        &self.service
    }

    /// Drains calls in flight for up to `grace` (new invokes and `/readyz` answer 503
    /// meanwhile), then stops accepting and closes every connection.
    pub async fn stop(self, grace: Duration) {
        self.service.admission().drain(grace).await;
        self.served.close().await;
    }
}

/// The pack service as an accept loop's handler.
struct ServiceHandler {
    service: Arc<PackService>,
    body_limit: Duration,
}

impl Handler for ServiceHandler {
    fn handle(
        &self,
        req: Request<Incoming>,
    ) -> impl std::future::Future<Output = Response<Full<Bytes>>> + Send {
        handle(&self.service, req, self.body_limit)
    }

    fn closing_connections(&self) -> bool {
        self.service.admission().is_draining()
    }
}

/// Serves `service` on `listener` until [`Listening::stop`].
pub fn serve(service: Arc<PackService>, listener: TcpListener) -> std::io::Result<Listening> {
    serve_with(service, listener, ReadLimits::default())
}

/// [`serve`] with other read limits.
pub fn serve_with(
    service: Arc<PackService>,
    listener: TcpListener,
    limits: ReadLimits,
) -> std::io::Result<Listening> {
    let handler = Arc::new(ServiceHandler {
        service: Arc::clone(&service),
        body_limit: limits.body,
    });
    Ok(Listening {
        served: serve_handler(handler, listener, limits.headers)?,
        service,
    })
}

async fn accept_loop<H: Handler>(
    handler: Arc<H>,
    listener: TcpListener,
    mut shutdown: watch::Receiver<bool>,
    header_limit: Duration,
) {
    let mut connections = JoinSet::new();
    // No call's timer wakes tokio's time driver while the loop serves.
    let _floor = TimerFloor::start();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    // Answers are small and written whole: don't let Nagle hold them back.
                    let _ = stream.set_nodelay(true);
                    connections.spawn(RepollSelfWakes::new(connection(
                        Arc::clone(&handler),
                        stream,
                        shutdown.clone(),
                        header_limit,
                    )));
                }
                // A peer that reset before it was accepted ends that connection only.
                Err(e) if is_peers(&e) => {}
                // Out of descriptors or memory: accepting again at once would fail again at
                // once, a core spinning until something closes. Pending connections wait.
                Err(_) => tokio::select! {
                    () = tokio::time::sleep(ACCEPT_PAUSE) => {}
                    _ = shutdown.changed() => break,
                },
            },
            _ = shutdown.changed() => break,
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    drop(listener);
    let closing = async { while connections.join_next().await.is_some() {} };
    if tokio::time::timeout(CLOSE_MARGIN, closing).await.is_err() {
        connections.abort_all();
        // Each ends once its future is dropped: a call cut here has reported itself
        // (`cancelled`) before the close returns and the service lets its JS functions go.
        while connections.join_next().await.is_some() {}
    }
}

async fn connection<H: Handler>(
    handler: Arc<H>,
    stream: tokio::net::TcpStream,
    mut shutdown: watch::Receiver<bool>,
    header_limit: Duration,
) {
    let peer = Arc::new(PeerWatch::new(&stream));
    let service = service_fn(move |req: Request<Incoming>| {
        let handler = Arc::clone(&handler);
        let peer = Arc::clone(&peer);
        let keeps_alive = keeps_alive(&req);
        let version = req.version();
        async move {
            let mut response = match node_refusal(&req) {
                Some(refusal) => refused(refusal, req).await?,
                None => tokio::select! {
                    // An answer ready at once (probes, refusals) goes out even to a caller
                    // already gone, as Node writes it.
                    biased;
                    response = handler.handle(req) => response,
                    // The caller left mid-call: dropping the handler's future cancels the
                    // call, and the error closes the connection with no answer.
                    () = peer.hung_up() => return Err(Unanswered("the caller closed the connection")),
                },
            };
            // Read once answered: the drain may have begun while the call ran.
            let keeps_alive = keeps_alive && !handler.closing_connections();
            let headers = response.headers_mut();
            // Node's defaults, which the TypeScript answers carry.
            if !headers.contains_key(CONNECTION) {
                if keeps_alive {
                    headers.insert(CONNECTION, HeaderValue::from_static("keep-alive"));
                    headers.insert(KEEP_ALIVE, HeaderValue::from_static("timeout=5"));
                } else {
                    headers.insert(CONNECTION, HeaderValue::from_static("close"));
                }
            }
            // hyper answers an HTTP/1.0 request as HTTP/1.0, but first fixes its `Connection`
            // by the response's own version: left at 1.1, a `close` became `close, keep-alive`.
            if version == Version::HTTP_10 {
                *response.version_mut() = Version::HTTP_10;
            }
            Ok::<_, Unanswered>(response)
        }
    });
    let conn = http1::Builder::new()
        .timer(TokioTimer::new())
        // A caller that shuts its side once it has asked still gets the answer, as from Node
        // (`allowHalfOpen`): hyper would otherwise close the connection when it reads the end,
        // dropping an answer not yet written. Whether a call in progress is cancelled by it is
        // the hang-up watch's to say.
        .half_close(true)
        .header_read_timeout(header_limit)
        // Node refuses a head of 16 KiB (counted its way) with 431 once it is read, which
        // `node_refusal` does too; hyper's own caps hold every head Node accepts with up to
        // `MAX_HEADER_LINES` lines.
        .max_headers(MAX_HEADER_LINES)
        .max_header_size(MAX_RAW_HEAD_BYTES)
        .serve_connection(TokioIo::new(stream), service);
    tokio::pin!(conn);
    tokio::select! {
        // A connection error (a reset, a malformed request hyper answered itself) is the
        // client's; the service goes on.
        _ = conn.as_mut() => {}
        _ = shutdown.changed() => {
            conn.as_mut().graceful_shutdown();
            let _ = conn.await;
        }
    }
}

/// Why a request's connection is closed with no answer.
#[derive(Debug)]
struct Unanswered(&'static str);

impl std::fmt::Display for Unanswered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for Unanswered {}

/// Node's answer to a request it refuses before any handler runs.
async fn refused(
    refusal: NodeRefusal,
    req: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Unanswered> {
    Ok(match refusal {
        NodeRefusal::BadRequest => closing(StatusCode::BAD_REQUEST),
        NodeRefusal::HeadTooLarge => closing(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE),
        // The connection is kept, and with it the body to read.
        NodeRefusal::ExpectationFailed => {
            let mut response = Response::new(Full::new(Bytes::new()));
            *response.status_mut() = StatusCode::EXPECTATION_FAILED;
            answer_unread(req.into_body(), response, BODY_WITHIN).await
        }
        NodeRefusal::Drop => return Err(Unanswered("CONNECT is not served")),
    })
}

/// Whether the connection stays open after this request: HTTP/1.1 unless it asks to close,
/// HTTP/1.0 only when it asks to keep alive.
fn keeps_alive(req: &Request<Incoming>) -> bool {
    let asks = |word: &[u8]| {
        req.headers().get_all(CONNECTION).iter().any(|value| {
            value
                .as_bytes()
                .split(|&b| b == b',')
                .any(|token| token.trim_ascii().eq_ignore_ascii_case(word))
        })
    };
    match req.version() {
        hyper::Version::HTTP_11 => !asks(b"close"),
        hyper::Version::HTTP_10 => asks(b"keep-alive"),
        _ => false,
    }
}

/// A request's head as the core reads it.
fn head_of(req: &Request<Incoming>) -> RequestHead {
    let headers = PackHeaders::read(req.headers());
    RequestHead {
        method: req.method().as_str().to_owned(),
        target: request_target(req.uri()),
        token: headers.token,
        tenant: headers.tenant_id,
        content_type: headers.content_type,
        content_length: headers.content_length,
        timeout_ms: headers.timeout_ms,
        traceparent: headers.traceparent,
    }
}

async fn handle(
    service: &PackService,
    req: Request<Incoming>,
    body_limit: Duration,
) -> Response<Full<Bytes>> {
    let head = head_of(&req);
    let mut admitted = match service.begin_when_room(&head).await {
        Begin::Reply(reply) => {
            return answer_unread(req.into_body(), reply_response(reply), body_limit).await
        }
        Begin::Invoke(admitted) => admitted,
    };
    let admission = service.admission();
    let reading = read_body(
        req.into_body(),
        service.max_body_bytes(),
        admitted.reserved(),
        || admission.arrived(),
    );
    let body = match tokio::time::timeout(body_limit, reading).await {
        Ok(Ok(Some(body))) => body,
        Ok(Ok(None)) => return reply_response(Reply::too_large()),
        // A body hyper could not read (bad chunk framing, a close mid-body) is the client's
        // fault, and Node answers it as it answers any unreadable request.
        Ok(Err(_)) => return closing(StatusCode::BAD_REQUEST),
        Err(_) => return closing(StatusCode::REQUEST_TIMEOUT),
    };
    match service
        .invoke(&mut admitted, &head, utf8_string(body))
        .await
    {
        Outcome::Reply(reply) => reply_response(reply),
        Outcome::Message(json) => {
            let mut response = json_response(StatusCode::OK, json);
            let headers = response.headers_mut();
            headers.insert(
                names::DURATION_MS,
                HeaderValue::from(admitted.elapsed_ms() as u64),
            );
            // Left out when Node would refuse to write it (the TypeScript service answers 500).
            let version = service.catalog().artifact_version.as_deref();
            if let Some(version) = version.and_then(node_header_value) {
                headers.insert(names::ARTIFACT_VERSION, version);
            }
            response
        }
    }
}

/// `response` to a request whose body is not wanted, as Node gives it: the body is still read
/// to its end (within `limit`) and dropped, so the connection stays usable and a client still
/// uploading reads the answer instead of a reset; an `Expect: 100-continue` gets its `100`
/// first.
pub(crate) async fn answer_unread(
    mut body: Incoming,
    response: Response<Full<Bytes>>,
    limit: Duration,
) -> Response<Full<Bytes>> {
    if body.is_end_stream() {
        return response;
    }
    // Asking for the body, then letting hyper run once, has it write a `100 Continue` that the
    // request expects before the answer, as Node writes it.
    std::future::poll_fn(|cx| {
        let _ = Pin::new(&mut body).poll_frame(cx);
        Poll::Ready(())
    })
    .await;
    tokio::task::yield_now().await;
    tokio::spawn(tokio::time::timeout(limit, async move {
        while let Some(Ok(_)) = body.frame().await {}
    }));
    response
}

/// What Node answers a request it gives up on, with no body and the connection closed: 408
/// for a body still arriving at its `requestTimeout`, 400 for one it cannot parse.
pub(crate) fn closing(status: StatusCode) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONNECTION, HeaderValue::from_static("close"));
    response
}

pub(crate) fn reply_response(reply: Reply) -> Response<Full<Bytes>> {
    let status = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = json_response(status, reply.body);
    if reply.retry_after {
        response
            .headers_mut()
            .insert(RETRY_AFTER, HeaderValue::from_static("1"));
    }
    response
}

fn json_response(status: StatusCode, body: String) -> Response<Full<Bytes>> {
    let length = body.len();
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        CONTENT_TYPE,
        HeaderValue::from_static("application/json; charset=utf-8"),
    );
    headers.insert(CONTENT_LENGTH, HeaderValue::from(length));
    response
}

//! The supervisor's front: one HTTP listener for its whole life, on a fixed address and token,
//! that answers the probes itself and forwards `POST /v1/invoke` and `GET /v1/info` to
//! whichever child serves (the relay), so a caller keeps one URL however often the child is
//! swapped.

use crate::js::{js_number, utf8_string};
use crate::json::write_js_number;
use crate::service::http::{
    is_json_content_type, node_header_value, refuse_request, request_target, NotReady, PackHeaders,
    Reply, Route,
};
use crate::service::read_body::read_body;
use crate::service::server::{answer_unread, closing, reply_response, Handler, BODY_WITHIN};
use crate::supervisor::calls::CallsToChildren;
use crate::supervisor::relay::{Relay, RelayCall, RelayOutcome, RelayRoute};
use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::ext::ReasonPhrase;
use hyper::header::{HeaderName, HeaderValue, CONTENT_LENGTH};
use hyper::{Request, Response, StatusCode};
use std::sync::Arc;
use tokio::sync::watch;

/// The front's state: the session token, the relay, and the serving child's port (set by the
/// child lifecycle; `None` while no child serves).
pub struct Front {
    token: Vec<u8>,
    relay: Relay,
    serving: watch::Receiver<Option<u16>>,
    calls: Arc<CallsToChildren>,
    max_body_bytes: usize,
    /// Set up on the first call (inside the runtime): see [`Relay::drop_idle_on_change`].
    dropping_idle: std::sync::Once,
    /// Whether the serving child says its pack code holds its JS thread.
    serving_stalled: ServingStalled,
}

/// Asks whether the serving child is stalled (`Lifecycle::serving_is_stalled`).
pub type ServingStalled = Box<dyn Fn() -> bool + Send + Sync>;

impl Front {
    pub fn new(
        token: String,
        serving: watch::Receiver<Option<u16>>,
        calls: Arc<CallsToChildren>,
        max_body_bytes: usize,
        serving_stalled: ServingStalled,
    ) -> Front {
        Front {
            token: token.as_bytes().to_vec(),
            relay: Relay::new(token),
            serving,
            calls,
            max_body_bytes,
            dropping_idle: std::sync::Once::new(),
            serving_stalled,
        }
    }

    /// See [`Relay::drop_idle`].
    pub fn drop_idle_connections(&self) {
        self.relay.drop_idle();
    }

    fn serving_port(&self) -> Option<u16> {
        *self.serving.borrow()
    }

    /// Forwards `call` to whichever child serves now: the front's own routes, and
    /// `relay.forward` from JS, share this and the relay's kept connections.
    pub async fn forward(&self, call: &RelayCall) -> RelayOutcome {
        // Counted against the child it goes to before it goes, and sent elsewhere if that child
        // stopped serving meanwhile: a swap waits for the calls counted against the old child.
        let (port, _counted) = loop {
            let Some(port) = self.serving_port() else {
                break (None, None);
            };
            let counted = self.calls.count(port);
            if self.serving_port() == Some(port) {
                break (Some(port), Some(counted));
            }
        };
        self.dropping_idle
            .call_once(|| self.relay.drop_idle_on_change(self.serving.clone()));
        let outcome = self.relay.forward(port, call).await;
        // Its connection went back to a child that has stopped serving meanwhile.
        let now = self.serving_port();
        if now != port {
            self.relay.drop_idle_except(now);
        }
        outcome
    }

    async fn answer(&self, req: Request<Incoming>) -> Response<Full<Bytes>> {
        // Answers given without the body still read it, as Node does (`answer_unread`).
        let (head, body) = req.into_parts();
        let headers = PackHeaders::read(&head.headers);
        let target = request_target(&head.uri);
        let route = match refuse_request(
            head.method.as_str(),
            &target,
            headers.token.as_deref(),
            &self.token,
            None,
            None,
        ) {
            Ok(route) => route,
            Err(reply) => return answer_unread(body, reply_response(reply), BODY_WITHIN).await,
        };
        let route = match route {
            Route::Healthz => {
                return answer_unread(body, reply_response(Reply::healthy()), BODY_WITHIN).await
            }
            Route::Readyz if self.serving_port().is_some() => {
                let reply = if (self.serving_stalled)() {
                    NotReady::Stalled.reply()
                } else {
                    Reply::ready()
                };
                return answer_unread(body, reply_response(reply), BODY_WITHIN).await;
            }
            Route::Readyz => {
                return answer_unread(
                    body,
                    reply_response(Reply::error(503, "no pack service")),
                    BODY_WITHIN,
                )
                .await
            }
            Route::Info => RelayRoute::Info,
            Route::Invoke => RelayRoute::Invoke,
        };
        let invoke = route == RelayRoute::Invoke;
        // Unlike the TypeScript front, the content type is checked here as the service checks
        // it: a caller learns it at the front whether or not a child serves.
        if invoke && !is_json_content_type(headers.content_type.as_deref()) {
            return answer_unread(body, reply_response(Reply::not_json()), BODY_WITHIN).await;
        }
        // A declared length over the limit is refused before the body is read, as the service
        // refuses it (the TypeScript front reads the whole body first); the body is then read
        // to its end and dropped, so the connection goes on.
        if invoke
            && headers
                .content_length
                .is_some_and(|n| n > self.max_body_bytes as u64)
        {
            return answer_unread(body, reply_response(Reply::too_large()), BODY_WITHIN).await;
        }
        // The deadline passes on when `Number()` of it is finite and above 0, as `String()` of
        // that number.
        let timeout_ms = headers
            .timeout_ms
            .as_deref()
            .map(js_number)
            .filter(|ms| ms.is_finite() && *ms > 0.0)
            .map(|ms| {
                let mut text = String::new();
                write_js_number(&mut text, ms);
                text
            });
        let non_empty = |text: Option<String>| text.filter(|v| !v.is_empty());
        let mut call = RelayCall {
            route,
            body: None,
            timeout_ms,
            run_id: non_empty(headers.run_id),
            request_id: non_empty(headers.request_id),
            protocol: non_empty(headers.protocol),
            traceparent: non_empty(headers.traceparent),
            tenant_id: non_empty(headers.tenant_id),
        };
        // An invoke's body is read and forwarded; an info request's is read after the answer.
        let unread = if invoke {
            // Nothing counts the front's bodies against a budget: none is allocated ahead of
            // its bytes.
            let reading = read_body(body, self.max_body_bytes, 0, || ());
            match tokio::time::timeout(BODY_WITHIN, reading).await {
                Ok(Ok(Some(body))) => call.body = Some(utf8_string(body)),
                Ok(Ok(None)) => return reply_response(Reply::too_large()),
                // As the service answers a body it cannot read, or one still arriving.
                Ok(Err(_)) => return closing(StatusCode::BAD_REQUEST),
                Err(_) => return closing(StatusCode::REQUEST_TIMEOUT),
            }
            None
        } else {
            Some(body)
        };
        // A caller that hangs up drops this future, and with it the forwarded call.
        let response = match self.forward(&call).await {
            RelayOutcome::Answer {
                status,
                headers,
                body,
            } => answer_response(status, &headers, body),
            RelayOutcome::Unavailable(reason) => reply_response(Reply::error(503, &reason)),
            RelayOutcome::Failed(reason) => reply_response(Reply::error(502, &reason)),
        };
        match unread {
            Some(body) => answer_unread(body, response, BODY_WITHIN).await,
            None => response,
        }
    }
}

impl Handler for Front {
    fn handle(
        &self,
        req: Request<Incoming>,
    ) -> impl std::future::Future<Output = Response<Full<Bytes>>> + Send {
        self.answer(req)
    }
}

fn answer_response(
    status: u16,
    headers: &[(HeaderName, String)],
    body: String,
) -> Response<Full<Bytes>> {
    let length = body.len();
    let mut response = Response::new(Full::new(Bytes::from(body)));
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY);
    if let Some(reason) = node_reason(status) {
        response.extensions_mut().insert(reason);
    }
    *response.status_mut() = status;
    let out = response.headers_mut();
    for (name, value) in headers {
        if let Some(value) = node_header_value(value) {
            out.insert(name.clone(), value);
        }
    }
    out.insert(CONTENT_LENGTH, HeaderValue::from(length));
    response
}

/// The reason Node writes for `status` where hyper would write another: Node's words where they
/// differ from hyper's, `unknown` for a status neither knows (hyper writes `<none>`). Constants,
/// so that each is checked when compiled.
fn node_reason(status: StatusCode) -> Option<ReasonPhrase> {
    const NON_AUTHORITATIVE: ReasonPhrase =
        ReasonPhrase::from_static(b"Non-Authoritative Information");
    const TEAPOT: ReasonPhrase = ReasonPhrase::from_static(b"I'm a Teapot");
    const BANDWIDTH: ReasonPhrase = ReasonPhrase::from_static(b"Bandwidth Limit Exceeded");
    const UNKNOWN: ReasonPhrase = ReasonPhrase::from_static(b"unknown");
    match status.as_u16() {
        203 => Some(NON_AUTHORITATIVE),
        418 => Some(TEAPOT),
        509 => Some(BANDWIDTH),
        _ if status.canonical_reason().is_none() => Some(UNKNOWN),
        _ => None,
    }
}

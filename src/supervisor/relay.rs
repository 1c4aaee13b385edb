//! The relay: one call forwarded to the serving child over loopback, with the session token
//! and the caller's deadline, ids, protocol and trace, and what became of it — answered,
//! provably not run (`unavailable`), possibly run (`failed`), or cancelled by its caller
//! (dropping the future).

use crate::json::write_js_number;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::header::{HeaderName, HeaderValue, CONTENT_TYPE};
use hyper::{Method, Request};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use std::error::Error as _;

/// Which route a call goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RelayRoute {
    #[default]
    Invoke,
    Info,
}

/// One call to forward.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RelayCall {
    pub route: RelayRoute,
    /// The protocol v2 request for `invoke`.
    pub body: Option<String>,
    /// The caller's deadline, passed on as `kindgi-timeout-ms`.
    pub timeout_ms: Option<f64>,
    pub run_id: Option<String>,
    pub request_id: Option<String>,
    pub protocol: Option<String>,
    pub traceparent: Option<String>,
}

/// What became of a forwarded call.
#[derive(Debug, Clone, PartialEq)]
pub enum RelayOutcome {
    /// The child answered: its status, the headers the front passes on, its body.
    Answer {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
    /// Not delivered: it provably did not run, and may be retried.
    Unavailable(String),
    /// Delivered, but no answer came back: it may have run, and must not be retried.
    Failed(String),
}

/// The headers of a child's answer the front passes on.
const ANSWER_HEADERS: [&str; 4] = [
    "content-type",
    "retry-after",
    "kindgi-artifact-version",
    "kindgi-duration-ms",
];

/// Forwards calls to a child on loopback, keeping connections alive between calls.
pub struct Relay {
    client: Client<HttpConnector, Full<Bytes>>,
    token: String,
}

impl Relay {
    pub fn new(token: String) -> Relay {
        let mut connector = HttpConnector::new();
        connector.set_nodelay(true);
        Relay {
            client: Client::builder(TokioExecutor::new()).build(connector),
            token,
        }
    }

    /// Forwards `call` to the child listening on `port`, or answers `unavailable` without one.
    pub async fn forward(&self, port: Option<u16>, call: &RelayCall) -> RelayOutcome {
        let Some(port) = port else {
            return RelayOutcome::Unavailable("no pack service".into());
        };
        let request = match self.request(port, call) {
            Ok(request) => request,
            Err(reason) => return RelayOutcome::Failed(reason),
        };
        let response = match self.client.request(request).await {
            Ok(response) => response,
            Err(error) if refused(&error) => {
                return RelayOutcome::Unavailable("the pack service refused the connection".into())
            }
            // Node's fetch says only this; the cause is in its `cause`.
            Err(_) => {
                return RelayOutcome::Failed("the pack service did not answer: fetch failed".into())
            }
        };
        let status = response.status().as_u16();
        let headers = ANSWER_HEADERS
            .iter()
            .filter_map(|name| {
                let value = response.headers().get(*name)?.to_str().ok()?;
                Some(((*name).to_owned(), value.to_owned()))
            })
            .collect();
        match response.into_body().collect().await {
            Ok(collected) => RelayOutcome::Answer {
                status,
                headers,
                body: String::from_utf8_lossy(&collected.to_bytes()).into_owned(),
            },
            Err(_) => {
                RelayOutcome::Failed("the pack service's answer broke off: terminated".into())
            }
        }
    }

    fn request(&self, port: u16, call: &RelayCall) -> Result<Request<Full<Bytes>>, String> {
        let (method, path) = match call.route {
            RelayRoute::Info => (Method::GET, "info"),
            RelayRoute::Invoke => (Method::POST, "invoke"),
        };
        let mut builder = Request::builder()
            .method(method)
            .uri(format!("http://127.0.0.1:{port}/v1/{path}"))
            .header("kindgi-pack-token", self.token.as_str());
        if call.body.is_some() {
            builder = builder.header(CONTENT_TYPE, "application/json");
        }
        let timeout = call.timeout_ms.map(|ms| {
            let mut text = String::new();
            write_js_number(&mut text, ms);
            text
        });
        let optional = [
            ("kindgi-timeout-ms", timeout.as_deref()),
            ("kindgi-run-id", call.run_id.as_deref()),
            ("kindgi-request-id", call.request_id.as_deref()),
            ("kindgi-protocol", call.protocol.as_deref()),
            ("traceparent", call.traceparent.as_deref()),
        ];
        for (name, value) in optional {
            if let Some(value) = value {
                let value = HeaderValue::from_str(value)
                    .map_err(|_| format!("the {name} header cannot be sent: {value:?}"))?;
                builder = builder.header(HeaderName::from_static(name), value);
            }
        }
        let body = Full::new(Bytes::from(call.body.clone().unwrap_or_default()));
        builder
            .body(body)
            .map_err(|e| format!("the request cannot be built: {e}"))
    }
}

/// A connection that never reached a listener: the call did not run.
fn refused(error: &hyper_util::client::legacy::Error) -> bool {
    let mut source = error.source();
    while let Some(cause) = source {
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            return io.kind() == std::io::ErrorKind::ConnectionRefused;
        }
        source = cause.source();
    }
    false
}

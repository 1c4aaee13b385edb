//! Requests that Node's HTTP server refuses before any handler runs, and that hyper would
//! serve: the TypeScript service never saw them, so neither do we.
//!
//! Node's parser (llhttp, strict) refuses `chunked` twice and methods it does not know, its
//! server refuses an HTTP/1.1 request without `Host` and an `Expect` it cannot meet, and it
//! caps a request's head at 16 KiB (`--max-http-header-size`).

use hyper::header::{EXPECT, HOST, TRANSFER_ENCODING};
use hyper::{Method, Request, Version};

/// Node's default `maxHeaderSize`: the target, header names and values of one request.
pub const MAX_HEAD_BYTES: usize = 16 * 1024;

/// The header lines a request may have. Node takes any number within [`MAX_HEAD_BYTES`] (and
/// hands its server the first 1,000); hyper takes 100 unless told more, and past 100 it
/// allocates and fills lists of this many lines for every head it parses, a cost every request
/// pays (docs/design.md, *Header limits*). This is room for 100 headers beyond a client's own.
pub const MAX_HEADER_LINES: usize = 128;

/// The raw bytes of a head hyper buffers (its `max_header_size`): without a cap it would
/// buffer ~400 KB of a head that never ends, per connection.
pub const MAX_RAW_HEAD_BYTES: usize = 2 * MAX_HEAD_BYTES;

// Every head Node accepts fits: under `MAX_HEAD_BYTES` counted Node's way (target, names and
// values), its raw bytes add a method and version (32 at most) and 4 separator bytes a line.
const _: () = assert!(MAX_HEAD_BYTES + 32 + 4 * MAX_HEADER_LINES <= MAX_RAW_HEAD_BYTES);

/// What Node answers instead of serving the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeRefusal {
    /// 400 and the connection closed: the parser cannot read the request safely.
    BadRequest,
    /// 431 and the connection closed.
    HeadTooLarge,
    /// 417, the connection kept: an `Expect` other than `100-continue`.
    ExpectationFailed,
    /// The connection closed with no answer: a `CONNECT` with no `connect` listener.
    Drop,
}

/// Node's `http.METHODS`: what its parser reads as a method (upper case only).
const NODE_METHODS: [&str; 35] = [
    "ACL",
    "BIND",
    "CHECKOUT",
    "CONNECT",
    "COPY",
    "DELETE",
    "GET",
    "HEAD",
    "LINK",
    "LOCK",
    "M-SEARCH",
    "MERGE",
    "MKACTIVITY",
    "MKCALENDAR",
    "MKCOL",
    "MOVE",
    "NOTIFY",
    "OPTIONS",
    "PATCH",
    "POST",
    "PROPFIND",
    "PROPPATCH",
    "PURGE",
    "PUT",
    "QUERY",
    "REBIND",
    "REPORT",
    "SEARCH",
    "SOURCE",
    "SUBSCRIBE",
    "TRACE",
    "UNBIND",
    "UNLINK",
    "UNLOCK",
    "UNSUBSCRIBE",
];

/// How Node would refuse `req`, or `None` when it would serve it.
pub fn node_refusal<B>(req: &Request<B>) -> Option<NodeRefusal> {
    let method = req.method();
    // The common methods first: the look-up below is for the rest.
    if method != Method::POST && method != Method::GET && !NODE_METHODS.contains(&method.as_str()) {
        return Some(NodeRefusal::BadRequest);
    }
    let headers = req.headers();
    // `chunked` more than once. (hyper has already dropped a `content-length` sent with a
    // transfer coding, and folded equal lengths into one, so those are read as hyper reads
    // them: docs/known-differences.md.)
    let chunked = headers
        .get_all(TRANSFER_ENCODING)
        .iter()
        .flat_map(|value| value.as_bytes().split(|&b| b == b','))
        .filter(|coding| coding.trim_ascii().eq_ignore_ascii_case(b"chunked"))
        .count();
    if chunked > 1 {
        return Some(NodeRefusal::BadRequest);
    }
    if head_bytes(req) >= MAX_HEAD_BYTES {
        return Some(NodeRefusal::HeadTooLarge);
    }
    if method == Method::CONNECT {
        return Some(NodeRefusal::Drop);
    }
    if req.version() != Version::HTTP_11 {
        // Node reads `Host` and `Expect` on HTTP/1.1 requests only.
        return None;
    }
    if !headers.contains_key(HOST) {
        return Some(NodeRefusal::BadRequest);
    }
    // Node joins repeated `Expect` headers and searches the whole for the word: one value
    // naming it is enough.
    let mut expectations = headers.get_all(EXPECT).iter().peekable();
    let unmet_expectation = expectations.peek().is_some()
        && !expectations.any(|expect| names_continue(expect.as_bytes()));
    unmet_expectation.then_some(NodeRefusal::ExpectationFailed)
}

/// Whether Node's `/(?:^|\W)100-continue(?:$|\W)/i` finds the word in `value`: anywhere, and
/// not joined to a letter, a digit or `_` on either side.
fn names_continue(value: &[u8]) -> bool {
    const WORD: &[u8] = b"100-continue";
    let apart = |byte: Option<&u8>| byte.is_none_or(|&b| !(b.is_ascii_alphanumeric() || b == b'_'));
    value.windows(WORD.len()).enumerate().any(|(at, window)| {
        window.eq_ignore_ascii_case(WORD)
            && apart(at.checked_sub(1).and_then(|before| value.get(before)))
            && apart(value.get(at + WORD.len()))
    })
}

/// What Node counts against `maxHeaderSize`: the target, and each header's name and value.
fn head_bytes<B>(req: &Request<B>) -> usize {
    let uri = req.uri();
    let target = match (uri.scheme(), uri.path_and_query()) {
        (None, Some(path)) => path.as_str().len(),
        _ => uri.to_string().len(),
    };
    req.headers().iter().fold(target, |sum, (name, value)| {
        sum + name.as_str().len() + value.len()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(method: &str, version: Version, headers: &[(&str, &str)]) -> Request<()> {
        let mut builder = Request::builder()
            .method(method)
            .uri("/v1/invoke")
            .version(version);
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        builder.body(()).expect("a valid test request")
    }

    fn http11(method: &str, headers: &[(&str, &str)]) -> Option<NodeRefusal> {
        node_refusal(&request(method, Version::HTTP_11, headers))
    }

    #[test]
    fn serves_what_node_serves() {
        assert_eq!(
            http11("POST", &[("host", "x"), ("content-length", "5")]),
            None
        );
        assert_eq!(http11("SEARCH", &[("host", "x")]), None);
        assert_eq!(
            http11("POST", &[("host", "x"), ("transfer-encoding", "chunked")]),
            None
        );
        let gzip = [
            ("host", "x"),
            ("transfer-encoding", "gzip"),
            ("transfer-encoding", "chunked"),
        ];
        assert_eq!(http11("POST", &gzip), None);
        assert_eq!(
            http11("POST", &[("host", "x"), ("expect", "100-Continue")]),
            None
        );
        assert_eq!(node_refusal(&request("GET", Version::HTTP_10, &[])), None);
        // The word anywhere in any of the values, as Node's pattern finds it.
        for expect in [
            &[("expect", "100-continue, foo")][..],
            &[("expect", "foo;100-CONTINUE")],
            &[("expect", "foo"), ("expect", "100-continue")],
        ] {
            let headers = [&[("host", "x")], expect].concat();
            assert_eq!(http11("POST", &headers), None, "{expect:?}");
        }
        // Node reads `Expect` on HTTP/1.1 only.
        let http10 = request("POST", Version::HTTP_10, &[("expect", "foo")]);
        assert_eq!(node_refusal(&http10), None);
    }

    #[test]
    fn refuses_what_node_refuses() {
        let bad = Some(NodeRefusal::BadRequest);
        assert_eq!(http11("get", &[("host", "x")]), bad);
        assert_eq!(http11("FOO", &[("host", "x")]), bad);
        assert_eq!(http11("GET", &[]), bad);
        let codings = [
            ("host", "x"),
            ("transfer-encoding", "chunked"),
            ("transfer-encoding", "chunked"),
        ];
        assert_eq!(http11("POST", &codings), bad);
        let listed = [("host", "x"), ("transfer-encoding", "chunked, Chunked")];
        assert_eq!(http11("POST", &listed), bad);
        assert_eq!(http11("CONNECT", &[("host", "x")]), Some(NodeRefusal::Drop));
        for expect in ["foo", "", "100-continues", "x100-continue", "100-continue_"] {
            assert_eq!(
                http11("GET", &[("host", "x"), ("expect", expect)]),
                Some(NodeRefusal::ExpectationFailed),
                "{expect:?}"
            );
        }
    }

    #[test]
    fn counts_the_head_as_node_does() {
        // "/v1/invoke" (10) + "host" "x" (5) + "x-a" (3) + the value.
        let value = |n: usize| "a".repeat(n);
        let fits = value(MAX_HEAD_BYTES - 19);
        assert_eq!(http11("GET", &[("host", "x"), ("x-a", &fits)]), None);
        let over = value(MAX_HEAD_BYTES - 18);
        assert_eq!(
            http11("GET", &[("host", "x"), ("x-a", &over)]),
            Some(NodeRefusal::HeadTooLarge)
        );
    }
}

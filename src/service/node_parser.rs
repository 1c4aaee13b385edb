//! Requests that Node's HTTP server refuses before any handler runs, and that hyper would
//! serve: the TypeScript service never saw them, so neither do we.
//!
//! Node's parser (llhttp, strict) refuses `chunked` twice and methods it does not know, its
//! server refuses an HTTP/1.1 request without `Host` and an `Expect` it cannot meet, and it
//! caps a request's head at 16 KiB (`--max-http-header-size`). It sets no limit on the number
//! of header lines, but hands its server only the first thousand of them.

use hyper::header::{HeaderMap, EXPECT, HOST, TRANSFER_ENCODING};
use hyper::{Method, Request, Version};

/// Node's default `maxHeaderSize`: the target, header names and values of one request.
pub const MAX_HEAD_BYTES: usize = 16 * 1024;

/// The most header lines a head under [`MAX_HEAD_BYTES`] can hold by Node's count: each line
/// counts at least the one byte of its name, and the target at least one.
pub const MAX_HEADER_LINES: usize = MAX_HEAD_BYTES - 2;

/// The raw bytes of a head that hyper buffers before it answers 431. Node counts neither the
/// separators nor the whitespace before a value, so its limit cannot be read off raw bytes;
/// this holds every head within Node's count whose lines are written `name: value` (four
/// bytes beyond the count each), and keeps hyper from buffering an endless head.
pub const MAX_RAW_HEAD_BYTES: usize = 6 * MAX_HEAD_BYTES;

/// The header lines Node's server hands on (its parser's `maxHeaderPairs` of 2,000 counts
/// names and values): lines past them are dropped, not refused, and its own checks (`Host`,
/// `Expect`) and the handler never see them.
pub const NODE_HEADER_LINES: usize = 1000;

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

/// How Node would refuse `req`, or `None` when it would serve it; either way `req` is left
/// with the headers Node's server reads (see [`keep_node_header_lines`]).
pub fn node_refusal<B>(req: &mut Request<B>) -> Option<NodeRefusal> {
    parser_refusal(req).or_else(|| {
        keep_node_header_lines(req.headers_mut());
        server_refusal(req)
    })
}

/// What Node's parser refuses, on every line of the head.
fn parser_refusal<B>(req: &Request<B>) -> Option<NodeRefusal> {
    let method = req.method();
    // The common methods first: the look-up below is for the rest.
    if method != Method::POST && method != Method::GET && !NODE_METHODS.contains(&method.as_str()) {
        return Some(NodeRefusal::BadRequest);
    }
    // `chunked` more than once. (hyper has already dropped a `content-length` sent with a
    // transfer coding, and folded equal lengths into one, so those are read as hyper reads
    // them: docs/known-differences.md.)
    let chunked = req
        .headers()
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
    None
}

/// What Node's server refuses, on the header lines it was handed.
fn server_refusal<B>(req: &Request<B>) -> Option<NodeRefusal> {
    if req.version() != Version::HTTP_11 {
        // Node reads `Host` and `Expect` on HTTP/1.1 requests only.
        return None;
    }
    let headers = req.headers();
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

/// Cuts `headers` to their first [`NODE_HEADER_LINES`] lines, as Node's server keeps them.
/// hyper keeps a name's lines together, at the place of its first: the lines kept are those
/// first in that order, which is the order sent unless a name's lines were apart.
pub fn keep_node_header_lines(headers: &mut HeaderMap) {
    if headers.len() <= NODE_HEADER_LINES {
        return;
    }
    *headers = headers
        .iter()
        .take(NODE_HEADER_LINES)
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect();
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
        node_refusal(&mut request(method, Version::HTTP_11, headers))
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
        assert_eq!(
            node_refusal(&mut request("GET", Version::HTTP_10, &[])),
            None
        );
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
        let mut http10 = request("POST", Version::HTTP_10, &[("expect", "foo")]);
        assert_eq!(node_refusal(&mut http10), None);
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

    /// `lines` header lines `x-<i>: v` (distinct names), then `last`.
    fn many(lines: usize, last: (&str, &str)) -> Request<()> {
        let mut builder = Request::builder().method("GET").uri("/");
        for i in 0..lines {
            builder = builder.header(format!("x-{i}"), "v");
        }
        builder
            .header(last.0, last.1)
            .body(())
            .expect("a valid test request")
    }

    #[test]
    fn keeps_the_header_lines_node_hands_on() {
        // A thousand lines reach Node's server: `Host` last among them counts.
        let mut req = many(NODE_HEADER_LINES - 1, ("host", "x"));
        assert_eq!(node_refusal(&mut req), None);
        assert_eq!(req.headers().len(), NODE_HEADER_LINES);
        // One line more and `Host` is dropped: Node's server answers 400.
        let mut req = many(NODE_HEADER_LINES, ("host", "x"));
        assert_eq!(node_refusal(&mut req), Some(NodeRefusal::BadRequest));
        let mut req = many(2000, ("x-last", "y"));
        assert_eq!(node_refusal(&mut req), Some(NodeRefusal::BadRequest));
        assert_eq!(req.headers().len(), NODE_HEADER_LINES);
        assert!(!req.headers().contains_key("x-last"));
        assert!(req.headers().contains_key("x-999"));
        assert!(!req.headers().contains_key("x-1000"));
        // A name's lines stay together, in the order they came.
        let mut headers = HeaderMap::new();
        for i in 0..1200 {
            headers.append("x-a", i.to_string().parse().expect("a value"));
        }
        keep_node_header_lines(&mut headers);
        let kept: Vec<_> = headers.get_all("x-a").iter().collect();
        assert_eq!(
            (kept.len(), kept[999].as_bytes()),
            (NODE_HEADER_LINES, &b"999"[..])
        );
        // The parser's refusals read every line: `chunked` twice past the thousandth.
        let mut req = many(1500, ("transfer-encoding", "chunked"));
        req.headers_mut()
            .append("transfer-encoding", "chunked".parse().expect("a value"));
        assert_eq!(node_refusal(&mut req), Some(NodeRefusal::BadRequest));
    }

    #[test]
    fn the_most_lines_nodes_count_allows_fit_hypers_limits() {
        // One-byte names, empty values, the shortest target: Node's count is one a line.
        let lines = MAX_HEADER_LINES;
        assert_eq!(1 + lines, MAX_HEAD_BYTES - 1, "the last count Node serves");
        // Written `a: ` with the longest method, the raw head still fits hyper's buffer.
        let raw = "UNSUBSCRIBE / HTTP/1.1\r\n".len() + lines * "a: \r\n".len() + 2;
        assert!(raw <= MAX_RAW_HEAD_BYTES, "{raw}");
    }
}

//! The pack service's transport-level decisions, before and around any pack code: the route,
//! the method, the token, tenant pinning, readiness, admission, the deadline header, and the
//! JSON bodies of the non-200 answers. Pure functions over header values, so the hyper server
//! and the node:http glue answer alike.

use crate::js::js_number;
use crate::json::write_json_str;
use hyper::header::{HeaderMap, CONTENT_LENGTH, CONTENT_TYPE};
use std::borrow::Cow;

/// The headers of the v2 transport ([`crate::protocol::PACK_HEADERS`]) the service, the front
/// and the relay read or write, named once: a name given as text is parsed on every request.
pub mod names {
    use hyper::header::HeaderName;

    pub const PROTOCOL: HeaderName = HeaderName::from_static("kindgi-protocol");
    pub const TOKEN: HeaderName = HeaderName::from_static("kindgi-pack-token");
    pub const TIMEOUT_MS: HeaderName = HeaderName::from_static("kindgi-timeout-ms");
    pub const RUN_ID: HeaderName = HeaderName::from_static("kindgi-run-id");
    pub const REQUEST_ID: HeaderName = HeaderName::from_static("kindgi-request-id");
    pub const TRACEPARENT: HeaderName = HeaderName::from_static("traceparent");
    pub const TENANT_ID: HeaderName = HeaderName::from_static("kindgi-tenant-id");
    pub const ARTIFACT_VERSION: HeaderName = HeaderName::from_static("kindgi-artifact-version");
    pub const DURATION_MS: HeaderName = HeaderName::from_static("kindgi-duration-ms");
}

/// The largest deadline a call gets (Node's timer limit, about 24.8 days); a larger
/// `kindgi-timeout-ms` is clamped to it instead of overflowing into "fire now".
pub const MAX_TIMEOUT_MS: u64 = 2_147_483_647;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    Invoke,
    Info,
    Healthz,
    Readyz,
}

impl Route {
    /// The route of a request target: its exact path up to the first `?`, with no
    /// normalisation (an absolute-form target or `*` is no route).
    pub fn of(target: &str) -> Option<Route> {
        let path = target.split('?').next().unwrap_or("");
        match path {
            "/v1/invoke" => Some(Route::Invoke),
            "/v1/info" => Some(Route::Info),
            "/healthz" => Some(Route::Healthz),
            "/readyz" => Some(Route::Readyz),
            _ => None,
        }
    }

    pub fn method(self) -> &'static str {
        match self {
            Route::Invoke => "POST",
            _ => "GET",
        }
    }

    /// Whether the route needs `kindgi-pack-token` (and, when pinned, `kindgi-tenant-id`).
    pub fn guarded(self) -> bool {
        matches!(self, Route::Invoke | Route::Info)
    }
}

/// A JSON answer that is not a protocol message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub status: u16,
    pub body: String,
    /// `retry-after: 1`, on every 503.
    pub retry_after: bool,
}

impl Reply {
    fn new(status: u16, body: String) -> Reply {
        Reply {
            status,
            retry_after: status == 503,
            body,
        }
    }

    /// `{"error": message}`.
    pub fn error(status: u16, message: &str) -> Reply {
        let mut body = String::with_capacity(message.len() + 12);
        body.push_str("{\"error\":");
        write_json_str(&mut body, message);
        body.push('}');
        Reply::new(status, body)
    }

    pub fn no_route(target: &str) -> Reply {
        Reply::error(404, &format!("No route {target}"))
    }

    pub fn wrong_method(route: Route) -> Reply {
        Reply::error(405, &format!("Use {}", route.method()))
    }

    pub fn bad_token() -> Reply {
        Reply::error(401, "Bad pack token")
    }

    pub fn tenant_mismatch() -> Reply {
        Reply::new(421, "{\"code\":\"pack-tenant-mismatch\"}".into())
    }

    pub fn overloaded() -> Reply {
        Reply::error(503, "overloaded")
    }

    pub fn not_json() -> Reply {
        Reply::error(415, "Content-Type must be application/json")
    }

    pub fn too_large() -> Reply {
        Reply::error(413, "Request body too large")
    }

    pub fn healthy() -> Reply {
        Reply::new(200, "{\"status\":\"ok\"}".into())
    }

    pub fn ready() -> Reply {
        Reply::new(200, "{\"status\":\"ready\"}".into())
    }
}

/// Why the service takes no calls now, in priority order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotReady<'a> {
    Draining,
    /// `strict` env check with required names unset.
    MissingEnv(&'a [String]),
    /// Not prewarmed yet, or prewarm failed.
    NotWarm,
    /// The thread pack code runs on has taken no turn for too long (see `js_pulse`).
    Stalled,
}

impl NotReady<'_> {
    pub fn reply(&self) -> Reply {
        match self {
            NotReady::Draining => Reply::error(503, "draining"),
            NotReady::NotWarm => Reply::error(503, "not ready"),
            NotReady::Stalled => Reply::error(503, "pack code stalled"),
            NotReady::MissingEnv(names) => {
                let mut body = String::from("{\"error\":\"missing env\",\"missingEnv\":[");
                for (at, name) in names.iter().enumerate() {
                    if at > 0 {
                        body.push(',');
                    }
                    write_json_str(&mut body, name);
                }
                body.push_str("]}");
                Reply::new(503, body)
            }
        }
    }
}

/// The request headers the service and the front read, each as Node's `req.headers` shows it
/// (see [`join_into`]; `content-type` and `content-length` the first only), found in one
/// pass over the headers: a lookup by name hashes it, and a request has few headers.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct PackHeaders {
    pub token: Option<String>,
    pub tenant_id: Option<String>,
    pub timeout_ms: Option<String>,
    pub run_id: Option<String>,
    pub request_id: Option<String>,
    pub protocol: Option<String>,
    pub traceparent: Option<String>,
    pub content_type: Option<String>,
    /// `content-length` when its first value is a number.
    pub content_length: Option<u64>,
}

impl PackHeaders {
    pub fn read(headers: &HeaderMap) -> PackHeaders {
        let mut read = PackHeaders::default();
        let mut content_length = None;
        for (name, value) in headers {
            let slot = match name {
                n if *n == CONTENT_TYPE && read.content_type.is_none() => &mut read.content_type,
                n if *n == CONTENT_LENGTH && content_length.is_none() => &mut content_length,
                n if *n == names::TOKEN => &mut read.token,
                n if *n == names::TENANT_ID => &mut read.tenant_id,
                n if *n == names::TIMEOUT_MS => &mut read.timeout_ms,
                n if *n == names::RUN_ID => &mut read.run_id,
                n if *n == names::REQUEST_ID => &mut read.request_id,
                n if *n == names::PROTOCOL => &mut read.protocol,
                n if *n == names::TRACEPARENT => &mut read.traceparent,
                _ => continue,
            };
            join_into(slot, value.as_bytes());
        }
        read.content_length = content_length.and_then(|text| text.parse().ok());
        read
    }
}

/// Adds one value of a header to its text as Node's `req.headers` shows a header: every value
/// decoded as Latin-1 and trimmed of surrounding spaces and tabs, repeats joined with `, `;
/// `None` while there is none.
pub fn join_into(joined: &mut Option<String>, raw: &[u8]) {
    let text = latin1_text(raw);
    let text = text.trim_matches([' ', '\t']);
    match joined {
        Some(all) => {
            all.push_str(", ");
            all.push_str(text);
        }
        None => *joined = Some(text.to_owned()),
    }
}

/// The request target as Node's `req.url` holds it: the origin-form path and query, or the
/// whole target when it is absolute-form (`http://host/v1/info`), which then matches no route.
pub fn request_target(uri: &hyper::Uri) -> String {
    match uri.path_and_query() {
        Some(path) if uri.scheme().is_none() => path.as_str().to_owned(),
        _ => uri.to_string(),
    }
}

/// A header value as a node:http answer writes it when its head goes out with a string body
/// (every answer of the TypeScript service and front): UTF-8. `None` where Node throws instead
/// (a control character other than tab, DEL, a character past U+00FF).
pub fn node_header_value(text: &str) -> Option<hyper::header::HeaderValue> {
    if !is_node_header_value(text) {
        return None;
    }
    hyper::header::HeaderValue::from_bytes(text.as_bytes()).ok()
}

/// Whether Node takes `text` as a header value (`checkInvalidHeaderChar`): tab, printable
/// ASCII and U+0080 to U+00FF.
pub fn is_node_header_value(text: &str) -> bool {
    text.chars()
        .all(|c| c == '\t' || (' '..='~').contains(&c) || ('\u{80}'..='\u{ff}').contains(&c))
}

/// A header value as fetch sends a string: one byte per character (Latin-1). `None` for what
/// fetch refuses (a control character other than tab, DEL, a character past U+00FF).
pub fn latin1_header_value(text: &str) -> Option<hyper::header::HeaderValue> {
    let bytes = text
        .chars()
        .map(|c| u8::try_from(u32::from(c)).ok())
        .collect::<Option<Vec<u8>>>()?;
    hyper::header::HeaderValue::from_bytes(&bytes).ok()
}

/// A header value as Node and fetch read it: one character per byte (Latin-1). Most values
/// are ASCII, which reads the same as UTF-8 and needs no copy.
pub fn latin1_text(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) if bytes.is_ascii() => Cow::Borrowed(text),
        _ => Cow::Owned(bytes.iter().map(|&b| char::from(b)).collect()),
    }
}

/// Whether the token header matches, comparing every byte whatever the first difference
/// (the length is compared first, as the TypeScript service does).
pub fn token_matches(header: Option<&str>, expected: &[u8]) -> bool {
    let Some(got) = header.map(str::as_bytes) else {
        return false;
    };
    if got.len() != expected.len() {
        return false;
    }
    got.iter()
        .zip(expected)
        .fold(0u8, |diff, (a, b)| diff | (a ^ b))
        == 0
}

/// Tenant pinning (protocol 2.7.0): with `KINDGI_PACK_TENANT_ID` set, a guarded request must
/// name that tenant in `kindgi-tenant-id`.
pub fn tenant_allowed(pinned: Option<&str>, header: Option<&str>) -> bool {
    match pinned {
        None => true,
        Some(tenant) => header == Some(tenant),
    }
}

/// The transport-level refusal of a request before its route runs: 404, 405, 401, 421.
pub fn refuse_request(
    method: &str,
    target: &str,
    token: Option<&str>,
    expected_token: &[u8],
    tenant: Option<&str>,
    pinned_tenant: Option<&str>,
) -> Result<Route, Reply> {
    let route = Route::of(target).ok_or_else(|| Reply::no_route(target))?;
    if method != route.method() {
        return Err(Reply::wrong_method(route));
    }
    if route.guarded() {
        if !token_matches(token, expected_token) {
            return Err(Reply::bad_token());
        }
        if !tenant_allowed(pinned_tenant, tenant) {
            return Err(Reply::tenant_mismatch());
        }
    }
    Ok(route)
}

/// The content-type test: a case-sensitive substring check on the raw value.
pub fn is_json_content_type(content_type: Option<&str>) -> bool {
    content_type.is_some_and(|v| v.contains("application/json"))
}

/// The deadline a call asks for: `Number(raw)` when it is an integer above 0, clamped to
/// [`MAX_TIMEOUT_MS`]; `None` (use the default) otherwise.
pub fn parse_timeout_ms(raw: Option<&str>) -> Option<u64> {
    let ms = js_number(raw?);
    if ms.is_finite() && ms.fract() == 0.0 && ms > 0.0 {
        // Saturating float-to-int: anything past the clamp lands on it.
        Some((ms as u64).min(MAX_TIMEOUT_MS))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::{HeaderName, HeaderValue};

    #[test]
    fn header_names_are_the_protocols() {
        let named = [
            ("protocol", names::PROTOCOL),
            ("token", names::TOKEN),
            ("timeoutMs", names::TIMEOUT_MS),
            ("runId", names::RUN_ID),
            ("requestId", names::REQUEST_ID),
            ("traceparent", names::TRACEPARENT),
            ("tenantId", names::TENANT_ID),
            ("artifactVersion", names::ARTIFACT_VERSION),
            ("durationMs", names::DURATION_MS),
        ];
        for (key, name) in named {
            let wire = crate::protocol::PACK_HEADERS
                .iter()
                .find(|(k, _)| *k == key);
            assert_eq!(wire.map(|(_, n)| *n), Some(name.as_str()), "{key}");
        }
    }

    #[test]
    fn latin1_values_read_one_character_per_byte() {
        assert!(matches!(latin1_text(b"abc"), Cow::Borrowed("abc")));
        assert_eq!(latin1_text(b"\xe9\xff"), "\u{e9}\u{ff}");
        // Bytes that happen to be UTF-8 are still one character each.
        assert_eq!(latin1_text("é".as_bytes()), "\u{c3}\u{a9}");
    }

    #[test]
    fn routes_are_exact_paths() {
        assert_eq!(Route::of("/v1/invoke?x=1"), Some(Route::Invoke));
        assert_eq!(Route::of("/v1/info"), Some(Route::Info));
        assert_eq!(Route::of("/healthz"), Some(Route::Healthz));
        assert_eq!(Route::of("/readyz?"), Some(Route::Readyz));
        for unknown in [
            "/v1/invoke/",
            "/V1/invoke",
            "http://h/v1/info",
            "*",
            "",
            "/",
        ] {
            assert_eq!(Route::of(unknown), None, "{unknown}");
        }
    }

    #[test]
    fn refusals_in_order() {
        let refuse = |method, target, token, tenant, pinned| {
            refuse_request(method, target, token, b"sekret", tenant, pinned)
        };
        assert_eq!(
            refuse("GET", "/nope?a=\"b\"", None, None, None),
            Err(Reply::error(404, "No route /nope?a=\"b\""))
        );
        assert_eq!(
            refuse("GET", "/nope", None, None, None).map_err(|r| r.body),
            Err(r#"{"error":"No route /nope"}"#.to_owned())
        );
        assert_eq!(
            refuse("HEAD", "/healthz", None, None, None).map_err(|r| r.body),
            Err(r#"{"error":"Use GET"}"#.to_owned())
        );
        assert_eq!(
            refuse("GET", "/v1/invoke", None, None, None).map_err(|r| r.body),
            Err(r#"{"error":"Use POST"}"#.to_owned())
        );
        assert_eq!(
            refuse("POST", "/v1/invoke", Some("sekreT"), None, None),
            Err(Reply::bad_token())
        );
        assert_eq!(
            refuse("GET", "/v1/info", Some("sekret, sekret"), None, None),
            Err(Reply::bad_token())
        );
        assert_eq!(
            refuse("GET", "/v1/info", Some("sekret"), None, None),
            Ok(Route::Info)
        );
        assert_eq!(
            refuse("GET", "/healthz", None, None, Some("t1")),
            Ok(Route::Healthz)
        );
        assert_eq!(
            refuse("GET", "/v1/info", Some("sekret"), Some("t2"), Some("t1")),
            Err(Reply::tenant_mismatch())
        );
        assert_eq!(
            refuse("POST", "/v1/invoke", Some("sekret"), None, Some("t1")),
            Err(Reply::tenant_mismatch())
        );
        // The token is checked before the tenant: no tenancy leaks to a caller without it.
        assert_eq!(
            refuse("POST", "/v1/invoke", None, None, Some("t1")),
            Err(Reply::bad_token())
        );
        assert_eq!(
            refuse("POST", "/v1/invoke", Some("sekret"), Some("t1"), Some("t1")),
            Ok(Route::Invoke)
        );
    }

    #[test]
    fn pack_headers_are_read_in_one_pass_as_node_shows_them() {
        let mut headers = HeaderMap::new();
        let mut add = |name: &'static str, value: &[u8]| {
            headers.append(
                HeaderName::from_static(name),
                HeaderValue::from_bytes(value).expect("a value"),
            );
        };
        add("kindgi-pack-token", b" secret\t");
        add("content-type", b"application/json");
        add("content-type", b"text/plain");
        add("x-other", b"1");
        add("kindgi-run-id", b"a");
        add("kindgi-run-id", b"b");
        add("content-length", b"12");
        add("content-length", b"99");
        add("kindgi-tenant-id", b"caf\xe9");
        add("traceparent", b"00-x");
        let read = PackHeaders::read(&headers);
        assert_eq!(
            read,
            PackHeaders {
                token: Some("secret".into()),
                tenant_id: Some("caf\u{e9}".into()),
                timeout_ms: None,
                run_id: Some("a, b".into()),
                request_id: None,
                protocol: None,
                traceparent: Some("00-x".into()),
                content_type: Some("application/json".into()),
                content_length: Some(12),
            }
        );
        let mut odd = HeaderMap::new();
        odd.append(CONTENT_LENGTH, HeaderValue::from_static("12x"));
        odd.append(CONTENT_LENGTH, HeaderValue::from_static("5"));
        odd.append(names::TIMEOUT_MS, HeaderValue::from_static(""));
        let read = PackHeaders::read(&odd);
        assert_eq!(
            (read.content_length, read.timeout_ms),
            (None, Some(String::new()))
        );
    }

    #[test]
    fn headers_read_as_node_shows_them() {
        for (target, kept) in [
            ("/v1/info?x=1", "/v1/info?x=1"),
            ("http://host/v1/info", "http://host/v1/info"),
            ("*", "*"),
        ] {
            let uri: hyper::Uri = target.parse().expect("a target");
            assert_eq!(request_target(&uri), kept);
        }
        assert_eq!(
            Route::of(&request_target(
                &"http://h/healthz".parse().expect("a target")
            )),
            None
        );
        assert_eq!(
            latin1_header_value("20260101.é").map(|v| v.as_bytes().to_vec()),
            Some(b"20260101.\xe9".to_vec())
        );
        assert_eq!(latin1_text(b"20260101.\xe9"), "20260101.é");
        assert!(latin1_header_value("a\tb").is_some());
        assert_eq!(
            node_header_value("20260101.é").map(|v| v.as_bytes().to_vec()),
            Some("20260101.é".as_bytes().to_vec())
        );
        assert!(node_header_value("a\tb").is_some());
        for refused in ["a\nb", "a\u{7f}", "a\u{100}", "☃"] {
            assert!(latin1_header_value(refused).is_none(), "{refused:?}");
            assert!(node_header_value(refused).is_none(), "{refused:?}");
        }
        let joined = |values: &[&[u8]]| {
            let mut joined = None;
            for value in values {
                join_into(&mut joined, value);
            }
            joined
        };
        assert_eq!(joined(&[b" a\t"]).as_deref(), Some("a"));
        assert_eq!(joined(&[b"1", b"2"]).as_deref(), Some("1, 2"));
        assert_eq!(joined(&[b"\xe9"]).as_deref(), Some("é"));
        assert_eq!(joined(&[]), None);
    }

    #[test]
    fn content_type_is_a_substring_test() {
        for ok in [
            "application/json",
            "application/json; charset=utf-8",
            "application/jsonp",
            "text/plain;x=application/json",
        ] {
            assert!(is_json_content_type(Some(ok)), "{ok}");
        }
        for bad in ["Application/JSON", "text/plain", ""] {
            assert!(!is_json_content_type(Some(bad)), "{bad}");
        }
        assert!(!is_json_content_type(None));
    }

    #[test]
    fn timeouts_follow_js_number() {
        let t = |raw: &str| parse_timeout_ms(Some(raw));
        assert_eq!(t(" 100 "), Some(100));
        assert_eq!(t("1e3"), Some(1000));
        assert_eq!(t("0x10"), Some(16));
        assert_eq!(t("100.0"), Some(100));
        assert_eq!(t("3000000000"), Some(MAX_TIMEOUT_MS));
        assert_eq!(t("1e300"), Some(MAX_TIMEOUT_MS));
        for bad in ["0", "-5", "1.5", "", "abc", "1, 2", "Infinity", "NaN"] {
            assert_eq!(t(bad), None, "{bad}");
        }
        assert_eq!(parse_timeout_ms(None), None);
    }

    #[test]
    fn not_ready_bodies() {
        let names = vec!["A".to_owned(), "B\"".to_owned()];
        let reply = NotReady::MissingEnv(&names).reply();
        assert_eq!(reply.status, 503);
        assert!(reply.retry_after);
        assert_eq!(
            reply.body,
            r#"{"error":"missing env","missingEnv":["A","B\""]}"#
        );
        assert_eq!(NotReady::Draining.reply().body, r#"{"error":"draining"}"#);
        assert_eq!(NotReady::NotWarm.reply().body, r#"{"error":"not ready"}"#);
        assert_eq!(
            NotReady::Stalled.reply().body,
            r#"{"error":"pack code stalled"}"#
        );
        assert!(!Reply::not_json().retry_after);
        assert!(Reply::overloaded().retry_after);
    }
}

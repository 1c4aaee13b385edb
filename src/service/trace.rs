//! W3C Trace Context for call records: the caller's `traceparent`, read with `@kindgi/log`'s
//! rules, and a new span id for the call.

use crate::js::is_js_whitespace;
use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

/// The caller's trace, from a valid `traceparent`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Traceparent {
    pub version: String,
    pub trace_id: String,
    pub parent_span_id: String,
    pub flags: String,
}

fn is_lower_hex(text: &str) -> bool {
    text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

fn is_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// Reads a `traceparent` header: `vv-<32 hex>-<16 hex>-ff` and, for versions after `00`, any
/// `-…` tail; lowercase hex only, trimmed first. Version `ff` and all-zero ids are refused.
pub fn parse_traceparent(header: &str) -> Option<Traceparent> {
    let text = header.trim_matches(is_js_whitespace);
    let bytes = text.as_bytes();
    if bytes.len() < 55 || !text.is_char_boundary(55) {
        return None;
    }
    let (head, tail) = text.split_at(55);
    let fields: Vec<&str> = head.split('-').collect();
    let [version, trace_id, parent, flags] = fields[..] else {
        return None;
    };
    let shaped = version.len() == 2
        && trace_id.len() == 32
        && parent.len() == 16
        && flags.len() == 2
        && [version, trace_id, parent, flags]
            .iter()
            .all(|f| is_lower_hex(f));
    if !shaped || version == "ff" {
        return None;
    }
    if !tail.is_empty()
        && (version == "00" || !tail.starts_with('-') || tail.contains(is_line_terminator))
    {
        return None;
    }
    if trace_id.bytes().all(|b| b == b'0') || parent.bytes().all(|b| b == b'0') {
        return None;
    }
    Some(Traceparent {
        version: version.to_owned(),
        trace_id: trace_id.to_owned(),
        parent_span_id: parent.to_owned(),
        flags: flags.to_owned(),
    })
}

/// A new span id: 16 lowercase hex digits, never all zero. Span ids only need to be unique
/// within a trace, so a randomly keyed hash of a counter serves.
pub fn new_span_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    loop {
        let mut hasher = RandomState::new().build_hasher();
        hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
        let id = hasher.finish();
        if id != 0 {
            return format!("{id:016x}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRACE: &str = "0af7651916cd43dd8448eb211c80319c";
    const PARENT: &str = "b7ad6b7169203331";

    #[test]
    fn reads_valid_headers() {
        let parsed = parse_traceparent(&format!("  00-{TRACE}-{PARENT}-01 "));
        assert_eq!(
            parsed,
            Some(Traceparent {
                version: "00".into(),
                trace_id: TRACE.into(),
                parent_span_id: PARENT.into(),
                flags: "01".into(),
            })
        );
        // A later version may carry more fields.
        assert!(parse_traceparent(&format!("01-{TRACE}-{PARENT}-00-extra")).is_some());
    }

    #[test]
    fn refuses_what_log_refuses() {
        let zeros32 = "0".repeat(32);
        let zeros16 = "0".repeat(16);
        for bad in [
            format!("ff-{TRACE}-{PARENT}-01"),
            format!("00-{TRACE}-{PARENT}-01-extra"),
            format!("00-{}-{PARENT}-01", TRACE.to_uppercase()),
            format!("00-{zeros32}-{PARENT}-01"),
            format!("00-{TRACE}-{zeros16}-01"),
            format!("00-{TRACE}-{PARENT}-1"),
            format!("01-{TRACE}-{PARENT}-01x"),
            format!("01-{TRACE}-{PARENT}-01-a\nb"),
            format!("00-{TRACE}-{PARENT}-01, 00-{TRACE}-{PARENT}-01"),
            "".into(),
            "é".repeat(40),
        ] {
            assert_eq!(parse_traceparent(&bad), None, "{bad}");
        }
    }

    #[test]
    fn span_ids_are_16_hex_and_differ() {
        let a = new_span_id();
        let b = new_span_id();
        assert_eq!(a.len(), 16);
        assert!(is_lower_hex(&a) && a != "0".repeat(16));
        assert_ne!(a, b);
    }
}

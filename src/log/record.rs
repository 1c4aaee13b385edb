//! One `@kindgi/log` record: its keys in their fixed order, redacted, and written as a JSON
//! line or as a pretty line for a terminal.

use crate::canonical::iso_utc_millis;
use crate::json::to_js_json;
use crate::log::levels::Level;
use crate::log::redact::{redact_value, scrub_text};
use crate::service::config::is_js_whitespace;
use serde_json::{Map, Value};
use std::time::SystemTime;

/// Correlation fields, in the order a record carries them after the fixed five.
const CORRELATION: [&str; 16] = [
    "traceId",
    "spanId",
    "runTraceId",
    "requestId",
    "tenantId",
    "projectId",
    "orgId",
    "runId",
    "parentRunId",
    "agentId",
    "agentVersion",
    "flowId",
    "flowVersion",
    "toolId",
    "conversationId",
    "approvalId",
];

const FIXED: [&str; 5] = ["time", "level", "severity", "subsystem", "message"];

/// A field can't take the name of one of the fixed five or `inMessage`: it is kept under
/// `fields` instead.
fn is_reserved(key: &str) -> bool {
    FIXED.contains(&key) || key == "inMessage"
}

/// What a record is made of before it is assembled.
pub struct RecordParts<'a> {
    pub time: SystemTime,
    pub level: Level,
    pub subsystem: &'a str,
    pub message: &'a str,
    /// The logger's bindings with the record's fields over them (a field replaces a binding
    /// of the same name in the binding's place).
    pub merged: &'a Map<String, Value>,
    /// The names the message states, for renderers to leave out.
    pub in_message: &'a [String],
}

/// The record as `@kindgi/log` assembles it: the fixed five, the correlation fields present,
/// the other fields in order (secret keys redacted, every string scrubbed), reserved names
/// under `fields`, `err`, then `inMessage`.
pub fn assemble(parts: &RecordParts<'_>) -> Map<String, Value> {
    let mut out = Map::new();
    for key in CORRELATION {
        if let Some(value) = parts.merged.get(key) {
            out.insert(key.to_owned(), value.clone());
        }
    }
    let mut reserved = Map::new();
    for (key, value) in parts.merged {
        if key == "subsystem" || key == "err" || CORRELATION.contains(&key.as_str()) {
            continue;
        }
        if is_reserved(key) {
            reserved.insert(key.clone(), value.clone());
        } else {
            out.insert(key.clone(), value.clone());
        }
    }
    let mut record = Map::new();
    record.insert("time".into(), iso_utc_millis(parts.time).into());
    record.insert("level".into(), parts.level.name().into());
    record.insert("severity".into(), parts.level.severity().into());
    record.insert("subsystem".into(), parts.subsystem.into());
    record.insert("message".into(), scrub_text(parts.message).into());
    if let Value::Object(redacted) = redact_value(&Value::Object(out)) {
        record.extend(redacted);
    }
    if !reserved.is_empty() {
        record.insert("fields".into(), redact_value(&Value::Object(reserved)));
    }
    if let Some(err) = parts.merged.get("err") {
        record.insert("err".into(), scrub_strings(err));
    }
    let stated: Vec<Value> = parts
        .in_message
        .iter()
        .filter(|key| !is_reserved(key) && *key != "err" && record.contains_key(key.as_str()))
        .map(|key| Value::String(key.clone()))
        .collect();
    if !stated.is_empty() {
        record.insert("inMessage".into(), Value::Array(stated));
    }
    record
}

/// An already serialised error: its strings scrubbed, its keys kept.
fn scrub_strings(value: &Value) -> Value {
    match value {
        Value::String(text) => Value::String(scrub_text(text)),
        Value::Array(items) => Value::Array(items.iter().map(scrub_strings).collect()),
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(k, v)| (k.clone(), scrub_strings(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The JSON format: the record on one line, as `JSON.stringify` writes it.
pub fn format_json(record: &Map<String, Value>) -> String {
    to_js_json(&Value::Object(record.clone()))
}

const RESET: &str = "\u{1b}[0m";
const DIM: &str = "\u{1b}[2m";

fn level_colour(level: Level) -> &'static str {
    match level {
        Level::Error => "\u{1b}[31m",
        Level::Warn => "\u{1b}[33m",
        Level::Info => "\u{1b}[36m",
        Level::Debug | Level::Trace => "\u{1b}[90m",
    }
}

/// A value in a pretty line: a plain word as it is, anything else as JSON.
fn pretty_value(value: &Value) -> String {
    match value {
        Value::String(text)
            if !text.is_empty()
                && !text
                    .chars()
                    .any(|c| is_js_whitespace(c) || c == '"' || c == '=') =>
        {
            text.clone()
        }
        other => to_js_json(other),
    }
}

/// The lines of a serialised error: `Name: message (code)`, its stack frames, its causes.
fn error_lines(err: &Value) -> Vec<String> {
    let text = |key: &str| err.get(key).and_then(Value::as_str).unwrap_or_default();
    let mut head = format!("{}: {}", text("name"), text("message"));
    if let Some(code) = err.get("code").and_then(Value::as_str) {
        head.push_str(&format!(" ({code})"));
    }
    let mut lines = vec![head];
    if let Some(stack) = err.get("stack").and_then(Value::as_str) {
        lines.extend(
            stack
                .split('\n')
                .filter(|line| line.trim_start().starts_with("at "))
                .map(|frame| format!("    {}", frame.trim_matches(is_js_whitespace))),
        );
    }
    match err.get("cause") {
        Some(Value::String(cause)) => lines.push(format!("  caused by: {cause}")),
        Some(cause @ Value::Object(_)) => {
            lines.push(format!("  caused by: {}", error_lines(cause).join("\n  ")))
        }
        _ => {}
    }
    lines
}

/// The pretty format: `HH:MM:SS.mmm LEVEL [subsystem] message key=value …`, leaving out the
/// fields the message states; an error's frames follow on their own lines.
pub fn format_pretty(record: &Map<String, Value>, level: Level, colour: bool) -> String {
    let text = |key: &str| record.get(key).and_then(Value::as_str).unwrap_or_default();
    let time = text("time").get(11..23).unwrap_or_default();
    let stated: Vec<&str> = record
        .get("inMessage")
        .and_then(Value::as_array)
        .map(|keys| keys.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut head = if colour {
        format!(
            "{DIM}{time}{RESET} {}{}{RESET}",
            level_colour(level),
            level.label()
        )
    } else {
        format!("{time} {}", level.label())
    };
    head.push_str(&format!(" [{}] {}", text("subsystem"), text("message")));
    for (key, value) in record {
        let key = key.as_str();
        if FIXED.contains(&key) || key == "err" || key == "inMessage" || stated.contains(&key) {
            continue;
        }
        head.push_str(&format!(" {key}={}", pretty_value(value)));
    }
    match record.get("err") {
        None => head,
        Some(Value::String(err)) => {
            format!("{head} err={}", pretty_value(&Value::String(err.clone())))
        }
        Some(err) => {
            let mut lines = error_lines(err).into_iter();
            let first = lines.next().unwrap_or_default();
            let mut out = format!("{head} err={}", pretty_value(&Value::String(first)));
            for line in lines {
                out.push('\n');
                out.push_str(&line);
            }
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::time::{Duration, UNIX_EPOCH};

    fn at_noon() -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(1_767_268_800_123)
    }

    fn record(level: Level, merged: Value, in_message: &[&str]) -> Map<String, Value> {
        let Value::Object(merged) = merged else {
            unreachable!("tests pass objects")
        };
        let in_message: Vec<String> = in_message.iter().map(|s| s.to_string()).collect();
        assemble(&RecordParts {
            time: at_noon(),
            level,
            subsystem: "pack",
            message: "tool acme.logs ok 3ms",
            merged: &merged,
            in_message: &in_message,
        })
    }

    #[test]
    fn call_record_keys_in_order() {
        let rec = record(
            Level::Info,
            json!({"subsystem": "pack", "packId": "acme", "artifactVersion": "1", "runId": "r",
                   "tenantId": "t", "traceId": "ab", "spanId": "cd", "target": "tool",
                   "toolId": "acme.logs", "event": "call", "kind": "call", "id": "acme.logs",
                   "outcome": "ok", "durationMs": 3}),
            &["target", "id", "outcome", "durationMs", "missing"],
        );
        assert_eq!(
            format_json(&rec),
            concat!(
                r#"{"time":"2026-01-01T12:00:00.123Z","level":"info","severity":"INFO","subsystem":"pack","#,
                r#""message":"tool acme.logs ok 3ms","traceId":"ab","spanId":"cd","tenantId":"t","runId":"r","#,
                r#""toolId":"acme.logs","packId":"acme","artifactVersion":"1","target":"tool","event":"call","#,
                r#""kind":"call","id":"acme.logs","outcome":"ok","durationMs":3,"#,
                r#""inMessage":["target","id","outcome","durationMs"]}"#
            )
        );
        assert_eq!(
            format_pretty(&rec, Level::Info, false),
            "12:00:00.123 INFO  [pack] tool acme.logs ok 3ms traceId=ab spanId=cd tenantId=t runId=r \
             toolId=acme.logs packId=acme artifactVersion=1 event=call kind=call"
        );
    }

    #[test]
    fn reserved_names_secrets_and_errors() {
        let rec = record(
            Level::Error,
            json!({"message": "x", "apiKey": "k", "note": "Bearer abc", "fields": 1,
                   "err": {"name": "TypeError", "message": "kgi_bt_abcdefghijklmnop1234",
                           "stack": "TypeError: m\n    at f (a.js:1:1)\n    at g (b.js:2:2)"}}),
            &["err", "message", "note"],
        );
        assert_eq!(rec["apiKey"], json!("[redacted]"));
        assert_eq!(rec["note"], json!("Bearer [redacted]"));
        assert_eq!(rec["fields"], json!({"message": "x"}));
        assert_eq!(rec["err"]["message"], json!("kgi_bt_…1234"));
        assert_eq!(rec["inMessage"], json!(["note"]));
        let keys: Vec<&str> = rec.keys().map(String::as_str).collect();
        assert_eq!(&keys[5..], ["apiKey", "note", "fields", "err", "inMessage"]);
        assert_eq!(
            format_pretty(&rec, Level::Error, true),
            "\u{1b}[2m12:00:00.123\u{1b}[0m \u{1b}[31mERROR\u{1b}[0m [pack] tool acme.logs ok 3ms \
             apiKey=[redacted] fields={\"message\":\"x\"} err=\"TypeError: kgi_bt_…1234\"\n    \
             at f (a.js:1:1)\n    at g (b.js:2:2)"
        );
    }

    #[test]
    fn pretty_values_quote_what_is_not_a_word() {
        assert_eq!(pretty_value(&json!("plain")), "plain");
        assert_eq!(pretty_value(&json!("two words")), "\"two words\"");
        assert_eq!(pretty_value(&json!("")), "\"\"");
        assert_eq!(pretty_value(&json!("a=b")), "\"a=b\"");
        assert_eq!(pretty_value(&json!([1, "x"])), "[1,\"x\"]");
    }
}

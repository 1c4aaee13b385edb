//! One `@kindgi/log` record: its keys in their fixed order, redacted, and written as a JSON
//! line or as a pretty line for a terminal.

use crate::canonical::{iso_utc_millis, write_iso_utc_millis};
use crate::js::is_js_whitespace;
use crate::json::{array_index, to_js_json, write_json_str, write_members};
use crate::log::levels::Level;
use crate::log::redact::{
    is_secret_key, redact_at_depth, redact_in_place, redact_members, scrub_in_place, scrub_text,
    scrubbed, MAX_REDACT_DEPTH, REDACTED,
};
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

/// An object's members in insertion order, as a JavaScript object keeps them: setting a name
/// already there replaces its value in its place. Records hold a few dozen members at most, so
/// a list beats a hash map here.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Entries(Vec<(String, Value)>);

impl Entries {
    pub fn set(&mut self, key: String, value: Value) {
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some((_, slot)) => *slot = value,
            None => self.0.push((key, value)),
        }
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// `{...self, ...more}`.
    pub fn extend(&mut self, more: impl IntoIterator<Item = (String, Value)>) {
        for (key, value) in more {
            self.set(key, value);
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> + Clone {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }

    fn take(&mut self, key: &str) -> Option<Value> {
        let at = self.0.iter().position(|(k, _)| k == key)?;
        Some(self.0.remove(at).1)
    }
}

impl From<Map<String, Value>> for Entries {
    fn from(map: Map<String, Value>) -> Self {
        Entries(map.into_iter().collect())
    }
}

impl FromIterator<(String, Value)> for Entries {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(iter: I) -> Self {
        let mut entries = Entries::default();
        entries.extend(iter);
        entries
    }
}

/// What a record is made of before it is assembled.
pub struct RecordParts<'a> {
    pub time: SystemTime,
    pub level: Level,
    pub subsystem: &'a str,
    pub message: &'a str,
    /// The logger's bindings with the record's fields over them (a field replaces a binding
    /// of the same name in the binding's place).
    pub merged: Entries,
    /// The names the message states, for renderers to leave out.
    pub in_message: &'a [&'a str],
}

/// The record as `@kindgi/log` assembles it: the fixed five, the correlation fields present,
/// the other fields in order (secret keys redacted, every string scrubbed), reserved names
/// under `fields`, `err`, then `inMessage`.
pub fn assemble(parts: RecordParts<'_>) -> Entries {
    let RecordParts {
        time,
        level,
        subsystem,
        message,
        mut merged,
        in_message,
    } = parts;
    let err = merged.take("err");
    let mut record = Entries(Vec::with_capacity(merged.0.len() + 8));
    record.0.push(("time".into(), iso_utc_millis(time).into()));
    record.0.push(("level".into(), level.name().into()));
    record.0.push(("severity".into(), level.severity().into()));
    record.0.push(("subsystem".into(), subsystem.into()));
    record
        .0
        .push(("message".into(), scrub_text(message).into()));
    for key in CORRELATION {
        if let Some(value) = merged.take(key) {
            record.0.push((key.to_owned(), value));
        }
    }
    let mut reserved = Map::new();
    for (key, value) in merged.0 {
        if key == "subsystem" {
            continue;
        }
        if is_reserved(&key) {
            reserved.insert(key, value);
        } else {
            record.set(key, value);
        }
    }
    let (fixed, fields) = record.0.split_at_mut(FIXED.len());
    debug_assert_eq!(fixed.len(), FIXED.len());
    redact_members(fields.iter_mut().map(|(k, v)| (&*k, v)), 0);
    if !reserved.is_empty() {
        let mut reserved = Value::Object(reserved);
        redact_in_place(&mut reserved);
        record.set("fields".into(), reserved);
    }
    if let Some(err) = err {
        record.set("err".into(), scrub_err(err));
    }
    let stated: Vec<Value> = in_message
        .iter()
        .filter(|key| !is_reserved(key) && **key != "err" && record.get(key).is_some())
        .map(|key| Value::String((*key).to_owned()))
        .collect();
    if !stated.is_empty() {
        record.set("inMessage".into(), Value::Array(stated));
    }
    record
}

/// An already serialised `err` scrubbed as `@kindgi/log` scrubs it: the text of a value that
/// was not an Error, or an Error's `message` and `stack` (not its `name` or `code`), down its
/// `cause`s.
fn scrub_err(mut value: Value) -> Value {
    fn walk(value: &mut Value) {
        match value {
            Value::String(text) => scrub_in_place(text),
            Value::Object(error) => {
                for (key, member) in error.iter_mut() {
                    match (key.as_str(), member) {
                        ("message" | "stack", Value::String(text)) => scrub_in_place(text),
                        ("cause", cause) => walk(cause),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    walk(&mut value);
    value
}

/// The JSON format: the record on one line, as `JSON.stringify` writes it.
pub fn format_json(record: &Entries) -> String {
    let mut out = String::with_capacity(256);
    write_members(&mut out, record.iter());
    out
}

/// A record's JSON line written straight from its members (the logger's bindings with the
/// fields over them), with the same keys, order and redaction as [`assemble`] and
/// [`format_json`] but without building the record first: the service writes one per call.
/// `None` when a member is named like an array index (JavaScript lists those first, the fixed
/// five included), which the general path handles.
pub fn json_line(
    time: SystemTime,
    level: Level,
    subsystem: &str,
    message: &str,
    merged: &[(&str, &Value)],
    in_message: &[&str],
) -> Option<String> {
    if merged.iter().any(|(key, _)| array_index(key).is_some()) {
        return None;
    }
    let find = |key: &str| merged.iter().find(|(k, _)| *k == key).map(|(_, v)| *v);
    let mut out = String::with_capacity(384);
    out.push_str("{\"time\":\"");
    write_iso_utc_millis(&mut out, time);
    out.push_str("\",\"level\":\"");
    out.push_str(level.name());
    out.push_str("\",\"severity\":\"");
    out.push_str(level.severity());
    out.push_str("\",\"subsystem\":");
    write_json_str(&mut out, subsystem);
    out.push_str(",\"message\":");
    write_json_str(&mut out, &scrubbed(message));
    let mut written: Vec<&str> = Vec::with_capacity(merged.len());
    let member = |out: &mut String, key: &str| {
        out.push(',');
        write_json_str(out, key);
        out.push(':');
    };
    for key in CORRELATION {
        if let Some(value) = find(key) {
            member(&mut out, key);
            write_redacted(&mut out, value, 1);
            written.push(key);
        }
    }
    let reserved: Map<String, Value> = merged
        .iter()
        .filter(|(key, _)| *key != "subsystem" && is_reserved(key))
        .map(|(key, value)| ((*key).to_owned(), (*value).clone()))
        .collect();
    let reserved_json = (!reserved.is_empty()).then(|| {
        let mut reserved = Value::Object(reserved);
        redact_in_place(&mut reserved);
        to_js_json(&reserved)
    });
    for (key, value) in merged {
        let skip = *key == "subsystem" || *key == "err" || is_reserved(key);
        if skip || CORRELATION.contains(key) {
            continue;
        }
        member(&mut out, key);
        match (&reserved_json, *key) {
            // A field named `fields` gives its place to the reserved names, as in JavaScript.
            (Some(reserved), "fields") => out.push_str(reserved),
            _ if is_secret_key(key) => write_json_str(&mut out, REDACTED),
            _ => write_redacted(&mut out, value, 1),
        }
        written.push(key);
    }
    if let Some(reserved) = &reserved_json {
        if !written.contains(&"fields") {
            out.push_str(",\"fields\":");
            out.push_str(reserved);
            written.push("fields");
        }
    }
    if let Some(err) = find("err") {
        out.push_str(",\"err\":");
        out.push_str(&to_js_json(&scrub_err(err.clone())));
    }
    let mut stated = in_message
        .iter()
        .filter(|key| !is_reserved(key) && **key != "err" && written.contains(key))
        .peekable();
    if stated.peek().is_some() {
        out.push_str(",\"inMessage\":[");
        for (i, key) in stated.enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_json_str(&mut out, key);
        }
        out.push(']');
    }
    out.push('}');
    Some(out)
}

/// A member's value, redacted (secret keys, secret shapes, depth) as it is written.
fn write_redacted(out: &mut String, value: &Value, depth: usize) {
    match value {
        Value::String(text) => write_json_str(out, &scrubbed(text)),
        Value::Array(_) | Value::Object(_) if depth >= MAX_REDACT_DEPTH => {
            write_json_str(out, "[too deep]")
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_redacted(out, item, depth + 1);
            }
            out.push(']');
        }
        Value::Object(members) if members.keys().any(|k| array_index(k).is_some()) => {
            // Index keys go first: the general writer orders them.
            let mut copy = value.clone();
            redact_at_depth(&mut copy, depth);
            out.push_str(&to_js_json(&copy));
        }
        Value::Object(members) => {
            out.push('{');
            for (i, (key, item)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json_str(out, key);
                out.push(':');
                if is_secret_key(key) {
                    write_json_str(out, REDACTED);
                } else {
                    write_redacted(out, item, depth + 1);
                }
            }
            out.push('}');
        }
        other => out.push_str(&to_js_json(other)),
    }
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
pub fn format_pretty(record: &Entries, level: Level, colour: bool) -> String {
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
    for (key, value) in record.iter() {
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

    fn record(level: Level, merged: Value, in_message: &[&str]) -> Entries {
        let Value::Object(merged) = merged else {
            unreachable!("tests pass objects")
        };
        assemble(RecordParts {
            time: at_noon(),
            level,
            subsystem: "pack",
            message: "tool acme.logs ok 3ms",
            merged: merged.into(),
            in_message,
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

    /// `err`: an Error's `message` and `stack` are scrubbed down its causes, its `name` and
    /// `code` kept as they are; a value that was not an Error is scrubbed whole.
    #[test]
    fn err_scrubs_messages_and_stacks_only() {
        let token = "kgi_bt_abcdefghijklmnop1234";
        let err = json!({"name": token, "message": token, "code": token, "stack": token,
                         "cause": {"name": token, "message": token, "code": token}});
        let scrubbed = json!({"name": token, "message": "kgi_bt_…1234", "code": token,
                              "stack": "kgi_bt_…1234",
                              "cause": {"name": token, "message": "kgi_bt_…1234", "code": token}});
        let rec = record(Level::Error, json!({ "err": err }), &[]);
        assert_eq!(rec.get("err"), Some(&scrubbed));
        let rec = record(Level::Error, json!({ "err": token }), &[]);
        assert_eq!(rec.get("err"), Some(&json!("kgi_bt_…1234")));
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
        let field = |key: &str| rec.get(key).cloned().unwrap_or_default();
        assert_eq!(field("apiKey"), json!("[redacted]"));
        assert_eq!(field("note"), json!("Bearer [redacted]"));
        assert_eq!(field("fields"), json!({"message": "x"}));
        assert_eq!(field("err")["message"], json!("kgi_bt_…1234"));
        assert_eq!(field("inMessage"), json!(["note"]));
        let keys: Vec<&str> = rec.iter().map(|(k, _)| k).collect();
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

    /// The direct writer and the general path give the same line, whatever the members.
    #[test]
    fn direct_json_lines_match_the_general_path() {
        let deep = json!({"a": {"b": {"c": {"d": {"e": {"f": {"g": {"h": {"i": 1}}}}}}}}});
        let cases = [
            json!({"subsystem": "pack", "packId": "p", "tenantId": "t", "traceId": "x"}),
            json!({"password": "p", "note": "see postgres://u:pw@h/db", "fields": 1, "time": 2,
                   "message": "m", "inMessage": 3, "list": [{"apiKey": 1}, "Bearer a.b"]}),
            json!({"err": {"name": "E", "message": "kgi_bt_abcdefghijklmnop1234"}, "deep": deep,
                   "n": 1.5, "big": 1e21, "nested": {"2": "b", "1": "a", "token": "x"}}),
            json!({"toolId": "kgi_pt_abc", "x": null, "flag": true, "requestId": "Bearer zz"}),
        ];
        for case in cases {
            let Value::Object(map) = case else { continue };
            let in_message = ["note", "x", "time", "err", "fields", "toolId", "absent"];
            let merged: Vec<(&str, &Value)> = map.iter().map(|(k, v)| (k.as_str(), v)).collect();
            let direct = json_line(
                at_noon(),
                Level::Warn,
                "pack",
                "Bearer t msg",
                &merged,
                &in_message,
            );
            let general = format_json(&assemble(RecordParts {
                time: at_noon(),
                level: Level::Warn,
                subsystem: "pack",
                message: "Bearer t msg",
                merged: map.clone().into(),
                in_message: &in_message,
            }));
            assert_eq!(direct.as_deref(), Some(general.as_str()));
        }
        let indexed = [("1", &Value::Null)];
        assert_eq!(
            json_line(at_noon(), Level::Info, "pack", "m", &indexed, &[]),
            None
        );
    }

    #[test]
    fn index_keys_come_first_as_in_javascript() {
        let rec = record(Level::Info, json!({"b": 1, "7": 2, "1": 3}), &[]);
        // A JavaScript object lists integer-like keys before all others, the fixed five too.
        let json = format_json(&rec);
        assert!(json.starts_with(r#"{"1":3,"7":2,"time":"#), "{json}");
        assert!(
            json.ends_with(r#""message":"tool acme.logs ok 3ms","b":1}"#),
            "{json}"
        );
    }
}

//! What a supervisor makes of a line its pack service child writes on stderr: one of the
//! service's own events, or the pack's output to pass on as it is.

use crate::json::parse_with_lone_surrogates;
use serde_json::{Map, Value};

/// What a pack service from before records wrote as bare `{"kind": …}` lines.
const LEGACY_EVENTS: [&str; 8] = [
    "listening",
    "boot-failed",
    "config-invalid",
    "missing-env",
    "draining",
    "stopped",
    "call",
    "handler-finished-late",
];

/// Whether the object is an `@kindgi/log` record: `time`, `level`, `subsystem` and `message`
/// are all strings.
fn is_record(fields: &Map<String, Value>) -> bool {
    ["time", "level", "subsystem", "message"]
        .iter()
        .all(|key| fields.get(*key).is_some_and(Value::is_string))
}

/// The line as an event with a `kind`, or `None` for the pack's own output:
/// - a record of the service's own (subsystem `pack`, with a string `event`) has that event
///   as its `kind`; any other record (an author's `ctx.log`, say) has `kind: "record"`, to
///   show and never to act on;
/// - a bare line from a service from before records keeps its `kind` when it is one of the
///   events those wrote.
pub fn service_event(line: &str) -> Option<Map<String, Value>> {
    if !line.starts_with('{') {
        return None;
    }
    // As `JSON.parse` reads it: a lone surrogate escape (a `ctx.log` field cut mid-pair)
    // becomes a stand-in, written back when the event goes to JavaScript.
    let (Ok(Value::Object(mut fields)), _) = parse_with_lone_surrogates(line) else {
        return None;
    };
    if is_record(&fields) {
        let own = fields.get("subsystem").and_then(Value::as_str) == Some("pack");
        let kind = match fields.get("event") {
            Some(Value::String(event)) if own => event.clone(),
            _ => "record".to_owned(),
        };
        // `{...fields, kind}`: a `kind` already there keeps its place.
        fields.insert("kind".into(), kind.into());
        return Some(fields);
    }
    let legacy = fields
        .get("kind")
        .and_then(Value::as_str)
        .is_some_and(|kind| LEGACY_EVENTS.contains(&kind));
    legacy.then_some(fields)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn event(line: &str) -> Option<Value> {
        service_event(line).map(Value::Object)
    }

    #[test]
    fn records_take_their_event_as_kind() {
        let listening = r#"{"time":"t","level":"info","severity":"INFO","subsystem":"pack","message":"Listening on port 5","port":5,"event":"listening","kind":"listening"}"#;
        assert_eq!(event(listening).map(|e| e["port"].clone()), Some(json!(5)));
        let call = r#"{"time":"t","level":"info","subsystem":"pack","message":"m","event":"call"}"#;
        assert_eq!(
            service_event(call).map(|e| e.keys().cloned().collect::<Vec<_>>()),
            Some(
                ["time", "level", "subsystem", "message", "event", "kind"]
                    .map(String::from)
                    .to_vec()
            )
        );
        // An author's record is shown, never acted on, even one that says `listening`.
        let tool = r#"{"time":"t","level":"info","subsystem":"pack.tool","message":"m","event":"listening","kind":"listening"}"#;
        assert_eq!(
            event(tool).map(|e| e["kind"].clone()),
            Some(json!("record"))
        );
        let no_event = r#"{"time":"t","level":"warn","subsystem":"pack","message":"m"}"#;
        assert_eq!(
            event(no_event).map(|e| e["kind"].clone()),
            Some(json!("record"))
        );
    }

    #[test]
    fn legacy_lines_and_everything_else() {
        assert_eq!(
            event(r#"{"kind":"listening","port":7}"#),
            Some(json!({"kind": "listening", "port": 7}))
        );
        for other in [
            r#"{"kind":"mine"}"#,
            r#"{"time":1,"level":"info","subsystem":"pack","message":"m"}"#,
            r#" {"kind":"listening"}"#,
            "[1]",
            "{broken",
            "plain text",
            "",
        ] {
            assert_eq!(event(other), None, "{other}");
        }
    }
}

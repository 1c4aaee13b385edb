//! A service event as JavaScript's observers take it: JSON text for the JS `logger`, and for a
//! JS `log` the call's bindings and the record to write with them.

use crate::json::to_js_json;
use crate::log::Level;
use crate::service::call_log::{call_level, call_message, finished_late_message, ServiceEvent};
use serde_json::Value;

/// An event as the JS `logger` sees it, with the call's log bindings (for a JS `log`) under
/// `bindings` when there are some, and beside them the record a JS `log` writes under `record`
/// (its level and message, as `call_log` writes them for a native log).
pub fn event_json(event: &ServiceEvent) -> String {
    let (mut json, bindings, level, message) = match event {
        ServiceEvent::Call {
            target,
            id,
            duration_ms,
            outcome,
            bindings,
        } => (
            serde_json::json!({
                "kind": "call", "target": target, "id": id,
                "durationMs": *duration_ms as u64, "outcome": outcome
            }),
            bindings,
            call_level(outcome),
            call_message(target, id, outcome, *duration_ms),
        ),
        ServiceEvent::FinishedLate {
            target,
            id,
            after_ms,
            bindings,
        } => (
            serde_json::json!({
                "kind": "handler-finished-late", "target": target, "id": id,
                "afterMs": *after_ms as u64
            }),
            bindings,
            Level::Warn,
            finished_late_message(target, id, *after_ms),
        ),
    };
    if let (Value::Object(fields), Some(bindings)) = (&mut json, bindings) {
        fields.insert("bindings".into(), Value::Object((**bindings).clone()));
        let record = serde_json::json!({"level": level.name(), "message": message});
        fields.insert("record".into(), record);
    }
    to_js_json(&json)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, Value};
    use std::sync::Arc;

    #[test]
    fn a_call_event_has_its_record_only_with_bindings() {
        let call = |bindings| ServiceEvent::Call {
            target: "tool",
            id: "t1".into(),
            duration_ms: 12,
            outcome: "ok",
            bindings,
        };
        assert_eq!(
            event_json(&call(None)),
            r#"{"kind":"call","target":"tool","id":"t1","durationMs":12,"outcome":"ok"}"#
        );
        let mut bound = Map::new();
        bound.insert("runId".into(), Value::from("r"));
        assert_eq!(
            event_json(&call(Some(Arc::new(bound)))),
            r#"{"kind":"call","target":"tool","id":"t1","durationMs":12,"outcome":"ok","bindings":{"runId":"r"},"record":{"level":"info","message":"tool t1 ok 12ms"}}"#
        );
    }

    #[test]
    fn a_late_finish_is_a_warning() {
        let late = ServiceEvent::FinishedLate {
            target: "check",
            id: "c1".into(),
            after_ms: 5,
            bindings: Some(Arc::new(Map::new())),
        };
        assert_eq!(
            event_json(&late),
            r#"{"kind":"handler-finished-late","target":"check","id":"c1","afterMs":5,"bindings":{},"record":{"level":"warn","message":"check c1 finished 5 ms after its call ended"}}"#
        );
    }
}

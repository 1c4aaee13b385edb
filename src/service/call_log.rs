//! What the service says about each call: the call's bindings (its ids from `ctx`, the
//! caller's trace with a new span, the target and its id), the `call` and
//! `handler-finished-late` records written with them, and the events for JS observers.

use crate::log::{Level, Logger};
use crate::protocol::RequestKind;
use crate::service::trace::{new_span_id, parse_traceparent};
use crate::validate::Instance;
use serde_json::{Map, Value};
use std::sync::Arc;

/// The ids a tool call's `ctx` lends its records, when each is a non-empty string.
const CALL_IDS: [&str; 5] = ["tenantId", "projectId", "orgId", "runId", "requestId"];

/// The bindings of a call's logger: `{...callIds, traceId?, spanId?, target, toolId|checkId}`.
pub fn call_bindings<M: Instance>(
    kind: RequestKind,
    message: &M,
    id: &str,
    traceparent: Option<&str>,
) -> Map<String, Value> {
    // Room for every member at once: growing an object's map reallocates its entries and its
    // index table each time.
    let mut bindings = Map::with_capacity(CALL_IDS.len() + 4);
    if kind == RequestKind::Tool {
        let ctx = message.get("ctx");
        for key in CALL_IDS {
            if let Some(value) = ctx.and_then(|c| c.get(key)).and_then(M::as_str) {
                if !value.is_empty() {
                    bindings.insert(key.to_owned(), value.into());
                }
            }
        }
    }
    if let Some(trace) = traceparent.and_then(parse_traceparent) {
        bindings.insert("traceId".into(), trace.trace_id.into());
        bindings.insert("spanId".into(), new_span_id().into());
    }
    let (word, key) = match kind {
        RequestKind::Tool => ("tool", "toolId"),
        RequestKind::Check => ("check", "checkId"),
    };
    bindings.insert("target".into(), word.into());
    bindings.insert(key.into(), id.into());
    bindings
}

/// What the service tells its observers (the JS `logger`, a JS `log`, and the records).
#[derive(Debug, Clone, PartialEq)]
pub enum ServiceEvent {
    Call {
        target: &'static str,
        id: String,
        duration_ms: u128,
        outcome: &'static str,
        /// The call's bindings, when anyone logs calls.
        bindings: Option<Arc<Map<String, Value>>>,
    },
    /// A handler ignored its abort and settled after its call had been answered.
    FinishedLate {
        target: &'static str,
        id: String,
        after_ms: u128,
        bindings: Option<Arc<Map<String, Value>>>,
    },
}

pub type EventSink = Arc<dyn Fn(ServiceEvent) + Send + Sync>;

/// A `call` record's level: `warn` for any outcome but `ok`.
pub fn call_level(outcome: &str) -> Level {
    if outcome == "ok" {
        Level::Info
    } else {
        Level::Warn
    }
}

/// A `call` record's message.
pub fn call_message(target: &str, id: &str, outcome: &str, duration_ms: u128) -> String {
    format!("{target} {id} {outcome} {duration_ms}ms")
}

/// A `handler-finished-late` record's message (its level is `warn`).
pub fn finished_late_message(target: &str, id: &str, after_ms: u128) -> String {
    format!("{target} {id} finished {after_ms} ms after its call ended")
}

/// Delivers each event to the JS observers and writes its record.
pub struct Reporter {
    pub events: Option<EventSink>,
    /// The service's records logger (subsystem `pack`, with the pack's id and version).
    pub records: Option<Logger>,
}

impl Reporter {
    /// Whether calls need their bindings computed.
    pub fn logs_calls(&self, shared_with_js: bool) -> bool {
        shared_with_js || self.records.is_some()
    }

    pub fn report(&self, event: ServiceEvent) {
        match (&self.records, &self.events) {
            (Some(records), Some(events)) => {
                write_record(records, event.clone());
                events(event);
            }
            (Some(records), None) => write_record(records, event),
            (None, Some(events)) => events(event),
            (None, None) => {}
        }
    }
}

/// Writes `event`'s record. Its line is made on the log's writer thread: a call's record, with
/// its redaction, is a tenth of a tokio worker's time per call, and the worker is what bounds
/// the service's throughput.
fn write_record(records: &Logger, event: ServiceEvent) {
    match event {
        ServiceEvent::Call {
            target,
            id,
            duration_ms,
            outcome,
            bindings: Some(bindings),
        } => {
            records.log_as_child_later(bindings, call_level(outcome), move |record| {
                let (call, id_value) = (Value::from("call"), Value::from(id.as_str()));
                let (outcome_value, duration) =
                    (Value::from(outcome), Value::from(duration_ms as u64));
                record.line(
                    &call_message(target, &id, outcome, duration_ms),
                    &[
                        ("event", &call),
                        ("kind", &call),
                        ("id", &id_value),
                        ("outcome", &outcome_value),
                        ("durationMs", &duration),
                    ],
                    &["target", "id", "outcome", "durationMs"],
                )
            });
        }
        ServiceEvent::FinishedLate {
            target,
            id,
            after_ms,
            bindings: Some(bindings),
        } => {
            records.log_as_child_later(bindings, Level::Warn, move |record| {
                let late = Value::from("handler-finished-late");
                let after = Value::from(after_ms as u64);
                record.line(
                    &finished_late_message(target, &id, after_ms),
                    &[("event", &late), ("kind", &late), ("afterMs", &after)],
                    &[],
                )
            });
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn call_records_say_what_happened() {
        assert_eq!(call_level("ok"), Level::Info);
        assert_eq!(call_level("handler-throw"), Level::Warn);
        assert_eq!(call_message("tool", "t1", "ok", 12), "tool t1 ok 12ms");
        assert_eq!(
            finished_late_message("check", "c1", 30),
            "check c1 finished 30 ms after its call ended"
        );
    }

    #[test]
    fn bindings_carry_ids_trace_and_target() {
        let message = json!({"ctx": {"tenantId": "t", "runId": "", "requestId": "q", "orgId": 7}});
        let tool = call_bindings(
            RequestKind::Tool,
            &message,
            "acme.logs",
            Some("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"),
        );
        let keys: Vec<&str> = tool.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "tenantId",
                "requestId",
                "traceId",
                "spanId",
                "target",
                "toolId"
            ]
        );
        assert_eq!(tool["traceId"], "0af7651916cd43dd8448eb211c80319c");
        assert_ne!(tool["spanId"], "b7ad6b7169203331");
        let check = call_bindings(RequestKind::Check, &message, "c", Some("junk"));
        assert_eq!(
            Value::Object(check),
            json!({"target": "check", "checkId": "c"})
        );
    }
}

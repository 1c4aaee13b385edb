//! The supervisor for JavaScript: so far, its reading of a child's stderr lines.

use crate::json::to_js_json;
use crate::supervisor::lines::service_event;
use napi_derive::napi;
use serde_json::Value;

/// `serviceEvent(line)`: the event as JSON text, or `null` for the pack's own output.
#[napi(js_name = "serviceEventJson")]
pub fn service_event_json(line: String) -> Option<String> {
    service_event(&line).map(|event| to_js_json(&Value::Object(event)))
}

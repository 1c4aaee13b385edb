//! Timing loops for `npm run bench`: the pack service's own work on a call, in Rust as the
//! service runs it (on a tokio worker, with no napi crossing per call), so the bench can set
//! it next to the TypeScript service's steps timed in JavaScript.

use super::errors::{JsError, NativeError, NativeErrorCode};
use crate::json::{parse_borrowed, protect_lone_surrogates, Stack};
use crate::protocol::parse_pack_request;
use crate::service::tool_io::{check_input, check_output, CompiledSchema};
use crate::validate::Side;
use napi_derive::napi;
use serde_json::Value;
use std::hint::black_box;
use std::time::Instant;

fn compiled(schema_json: &str, side: Side) -> Result<CompiledSchema, JsError> {
    let schema: Value = serde_json::from_str(schema_json).map_err(|e| {
        NativeError::new(
            NativeErrorCode::InvalidJsonValue,
            format!("The schema is not JSON: {e}"),
        )
    })?;
    Ok(CompiledSchema::compile(Some(&schema), side))
}

/// Nanoseconds per call of what the service does with a tool call's body before the handler
/// runs, `calls` times: read the body into a borrowed tree, read it as a request, check its
/// input where it lies (filling defaults) and write the defaults for the JavaScript runner.
/// Throws when the body is not a tool call or its input is refused, so the bench times only
/// calls that pass.
#[napi(js_name = "timeServiceInput")]
pub fn time_service_input(schema_json: String, body: String, calls: u32) -> Result<f64, JsError> {
    let schema = compiled(&schema_json, Side::Input)?;
    let refused = |why: String| NativeError::new(NativeErrorCode::InvalidArgument, why);
    let started = Instant::now();
    for _ in 0..calls {
        let protected = protect_lone_surrogates(&body);
        let mut message = parse_borrowed(&protected)
            .map_err(|e| refused(format!("The body is not JSON: {e}")))?;
        if let Ok(Err(error)) = parse_pack_request(&message) {
            return Err(refused(error.message).into());
        }
        let input = message
            .member_mut("input")
            .ok_or_else(|| refused("The body has no input".into()))?;
        let defaults = check_input(&schema, input, "bench", Stack::Caller)
            .map_err(|_| refused("The input is refused".into()))?;
        black_box((defaults, message));
    }
    Ok(per_call(started, calls))
}

/// Nanoseconds per call of the service's check of a handler's output (given as the marked
/// JSON text the JavaScript runner hands over), `calls` times. Throws when it is refused.
#[napi(js_name = "timeServiceOutput")]
pub fn time_service_output(
    schema_json: String,
    marked_output: String,
    calls: u32,
) -> Result<f64, JsError> {
    let schema = compiled(&schema_json, Side::Output)?;
    let started = Instant::now();
    for _ in 0..calls {
        check_output(&schema, black_box(&marked_output), "bench").map_err(|_| {
            NativeError::new(NativeErrorCode::InvalidArgument, "The output is refused")
        })?;
    }
    Ok(per_call(started, calls))
}

fn per_call(started: Instant, calls: u32) -> f64 {
    started.elapsed().as_nanos() as f64 / f64::from(calls.max(1))
}

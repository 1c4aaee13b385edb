//! Idempotency keys.

use crate::ids::{idempotency_key, IDEMPOTENCY_KEY_NAMESPACE};
use napi::bindgen_prelude::Utf16String;
use napi_derive::napi;

/// Strings come over as UTF-16, so a lone surrogate hashes as JavaScript writes it.
#[napi(js_name = "idempotencyKey")]
pub fn idempotency_key_js(
    run_id: Utf16String,
    step_scope: Utf16String,
    tool_id: Utf16String,
    model_call_id: Option<Utf16String>,
) -> String {
    let mut parts: Vec<&[u16]> = vec![&run_id[..], &step_scope[..], &tool_id[..]];
    if let Some(id) = &model_call_id {
        parts.push(&id[..]);
    }
    idempotency_key(&parts)
}

#[napi(js_name = "idempotencyKeyNamespace")]
pub fn idempotency_key_namespace() -> String {
    IDEMPOTENCY_KEY_NAMESPACE.to_string()
}

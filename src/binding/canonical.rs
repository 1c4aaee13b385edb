//! The index writer: canonical JSON text, `writeIndex`, `indexHash`.

use super::errors::{from_napi, JsError, NativeError, NativeErrorCode};
use crate::canonical::{canonical_json, write_index, FsFailure, IndexWriteRequest};
use crate::ids::index_hash;
use crate::json::utf16_units;
use napi::bindgen_prelude::{Buffer, Env, Uint8Array};
use napi::JsString;
use napi_derive::napi;
use std::path::Path;
use std::time::SystemTime;

/// The canonical text of JSON text, as UTF-8 bytes (the JS layer hands over
/// `Buffer.from(JSON.stringify(value))`: node encodes faster than napi's string copy).
#[napi(js_name = "canonicalJsonText")]
pub fn canonical_json_text<'env>(env: &'env Env, text: &[u8]) -> Result<JsString<'env>, JsError> {
    let text = utf8(text)?;
    let canonical = canonical_json(text).map_err(NativeError::from)?;
    js_string(env, canonical).map_err(from_napi)
}

fn utf8(bytes: &[u8]) -> Result<&str, NativeError> {
    std::str::from_utf8(bytes).map_err(|e| {
        NativeError::new(
            NativeErrorCode::InvalidJsonValue,
            format!("The JSON text is not UTF-8: {e}"),
        )
    })
}

/// A JavaScript string of `text`. V8 decodes UTF-8 slowly but copies Latin-1 and UTF-16 as they
/// are, so the text goes over as Latin-1 when every character fits (the usual index) and as
/// UTF-16 otherwise.
fn js_string(env: &Env, text: String) -> napi::Result<JsString<'_>> {
    if text.is_ascii() {
        return env.create_string_latin1(text.as_bytes());
    }
    if text.chars().all(|c| u32::from(c) <= 0xFF) {
        let latin1: Vec<u8> = text.chars().map(|c| u32::from(c) as u8).collect();
        return env.create_string_latin1(&latin1);
    }
    env.create_string_utf16(utf16_units(&text))
}

#[napi(object)]
pub struct WriteIndexOutcome {
    pub artifact_version: Option<String>,
    pub published_at: Option<String>,
    pub index_hash: Option<String>,
    pub bytes: Option<u32>,
    /// Set when the write failed: a `NativeErrorCode`.
    pub error_code: Option<String>,
    pub error_message: Option<String>,
}

/// Writes the index (as JSON text in UTF-8 bytes: `Buffer.from` encodes a large string faster
/// than napi's string copy) off the JS thread. Failures come back as data: a rejected promise
/// from an async binding cannot carry a stable `code`, so the JS layer throws them.
#[napi(js_name = "writeIndexText")]
pub async fn write_index_text(
    text: Buffer,
    output_path: String,
    artifact_version: Option<String>,
    published_at: Option<String>,
) -> napi::Result<WriteIndexOutcome> {
    let job = move || {
        let text = utf8(&text)?;
        write_index(IndexWriteRequest {
            text,
            output_path: Path::new(&output_path),
            artifact_version,
            published_at,
            now: SystemTime::now(),
            pid: std::process::id(),
        })
        .map_err(NativeError::from)
    };
    let written = tokio::task::spawn_blocking(job)
        .await
        .map_err(|e| napi::Error::from_reason(format!("The index writer stopped: {e}")))?;
    Ok(match written {
        Ok(w) => WriteIndexOutcome {
            artifact_version: Some(w.artifact_version),
            published_at: Some(w.published_at),
            index_hash: Some(w.index_hash),
            bytes: Some(u32::try_from(w.bytes).unwrap_or(u32::MAX)),
            error_code: None,
            error_message: None,
        },
        Err(error) => WriteIndexOutcome {
            artifact_version: None,
            published_at: None,
            index_hash: None,
            bytes: None,
            error_code: Some(error.code.as_str().to_owned()),
            error_message: Some(error.message),
        },
    })
}

#[napi(js_name = "indexHashBytes")]
pub fn index_hash_bytes(bytes: Uint8Array) -> String {
    index_hash(&bytes)
}

#[napi(js_name = "indexHashFile")]
pub fn index_hash_file(path: String) -> Result<String, JsError> {
    let bytes = std::fs::read(&path).map_err(|cause| {
        let failure = FsFailure {
            syscall: "open",
            path: path.clone().into(),
            dest: None,
            cause,
        };
        NativeError::new(
            NativeErrorCode::IndexReadFailed,
            format!("Cannot read {path}: {failure}"),
        )
    })?;
    Ok(index_hash(&bytes))
}

#[napi(js_name = "maxJsonDepth")]
pub fn max_json_depth() -> u32 {
    crate::json::MAX_DEPTH as u32
}

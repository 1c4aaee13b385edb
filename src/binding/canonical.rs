//! The index writer: canonical JSON text, `writeIndex`, `indexHash`.

use super::errors::{JsError, NativeError, NativeErrorCode};
use crate::canonical::{canonical_json, write_index, FsFailure, IndexWriteRequest};
use crate::ids::index_hash;
use napi::bindgen_prelude::Uint8Array;
use napi_derive::napi;
use std::path::Path;
use std::time::SystemTime;

/// The canonical text of JSON text (the JS layer hands over `JSON.stringify(value)`).
#[napi(js_name = "canonicalJsonText")]
pub fn canonical_json_text(text: String) -> Result<String, JsError> {
    Ok(canonical_json(&text).map_err(NativeError::from)?)
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

/// Writes the index (as JSON text) off the JS thread. Failures come back as data: a rejected
/// promise from an async binding cannot carry a stable `code`, so the JS layer throws them.
#[napi(js_name = "writeIndexText")]
pub async fn write_index_text(
    text: String,
    output_path: String,
    artifact_version: Option<String>,
    published_at: Option<String>,
) -> napi::Result<WriteIndexOutcome> {
    let job = move || {
        write_index(IndexWriteRequest {
            text: &text,
            output_path: Path::new(&output_path),
            artifact_version,
            published_at,
            now: SystemTime::now(),
            pid: std::process::id(),
        })
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
        Err(error) => {
            let error = NativeError::from(error);
            WriteIndexOutcome {
                artifact_version: None,
                published_at: None,
                index_hash: None,
                bytes: None,
                error_code: Some(error.code.as_str().to_owned()),
                error_message: Some(error.message),
            }
        }
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

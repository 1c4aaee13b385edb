//! `compileSchema`: compiled validators, cached by the schema's text so a schema is compiled
//! once however many objects carry it.

use super::errors::{JsError, NativeError, NativeErrorCode};
use crate::json::to_js_json;
use crate::validate::{defaults_json, issues_json, Invalid, Side, Validator};
use napi_derive::napi;
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, LazyLock, Mutex};

/// Enough for every schema of a large pack, a few edits over (the TypeScript cache's size).
const MAX_CACHED: usize = 512;

/// A cache key: the side and the SHA-256 of the schema's JSON text (the text itself would make
/// the cache as large as every schema it holds).
type CacheKey = (bool, [u8; 32]);

/// Compiled validators by side and schema digest, oldest evicted first.
struct Cache {
    by_key: HashMap<CacheKey, Arc<Validator>>,
    order: VecDeque<CacheKey>,
}

static CACHE: LazyLock<Mutex<Cache>> = LazyLock::new(|| {
    Mutex::new(Cache {
        by_key: HashMap::new(),
        order: VecDeque::new(),
    })
});

fn side_of(side: &str) -> Result<Side, NativeError> {
    match side {
        "input" => Ok(Side::Input),
        "output" => Ok(Side::Output),
        other => Err(NativeError::new(
            NativeErrorCode::InvalidArgument,
            format!(
                "side must be 'input' or 'output', not {}",
                to_js_json(&Value::String(other.to_owned()))
            ),
        )),
    }
}

fn compile_cached(schema_json: String, side: Side) -> Result<Arc<Validator>, NativeError> {
    use sha2::{Digest, Sha256};
    let key: CacheKey = (
        side == Side::Input,
        Sha256::digest(schema_json.as_bytes()).into(),
    );
    if let Ok(cache) = CACHE.lock() {
        if let Some(found) = cache.by_key.get(&key) {
            return Ok(found.clone());
        }
    }
    let schema: Value = serde_json::from_str(&schema_json).map_err(|e| {
        NativeError::new(
            NativeErrorCode::InvalidJsonValue,
            format!("The schema is not JSON: {e}"),
        )
    })?;
    let validator = Arc::new(Validator::compile(&schema, side).map_err(|e| {
        // The JS layer sets `name` from the part before the first newline.
        NativeError::new(
            NativeErrorCode::SchemaCompileFailed,
            format!("{}\n{}", e.name, e.message),
        )
    })?);
    if let Ok(mut cache) = CACHE.lock() {
        if cache.order.len() >= MAX_CACHED {
            if let Some(oldest) = cache.order.pop_front() {
                cache.by_key.remove(&oldest);
            }
        }
        cache.order.push_back(key);
        cache.by_key.insert(key, validator.clone());
    }
    Ok(validator)
}

/// A compiled schema, shared by every caller that compiled the same text.
#[napi]
pub struct NativeValidator {
    inner: Arc<Validator>,
    input: bool,
}

#[napi]
impl NativeValidator {
    /// Validates a value given as JSON text (JavaScript values JSON has no form for arrive as
    /// markers, see `validate::js::MARKER_KEY`). Returns `null` when it is valid on the output
    /// side; `v` and the defaults filled in (`[[pointer, key, value], …]`) when it is valid on the
    /// input side; `i` and the issues when it is not; `r` when the schema recurses on it forever.
    #[napi]
    pub fn validate_json(&self, value_json: String) -> Result<Option<String>, JsError> {
        let mut value: Value = serde_json::from_str(&value_json).map_err(|e| {
            NativeError::new(
                NativeErrorCode::InvalidJsonValue,
                format!("The value is not JSON: {e}"),
            )
        })?;
        Ok(match self.inner.validate_recording_defaults(&mut value) {
            Ok(_) if !self.input => None,
            Ok(defaults) => Some(format!("v{}", defaults_json(defaults))),
            Err(Invalid::Issues(issues)) => Some(format!("i{}", issues_json(&issues))),
            // Where Ajv's generated code overflows the stack; the JS layer throws its RangeError.
            Err(Invalid::Recursion) => Some("r".into()),
        })
    }
}

#[napi(js_name = "compileSchemaJson")]
pub fn compile_schema_json(schema_json: String, side: String) -> Result<NativeValidator, JsError> {
    let side = side_of(&side)?;
    let inner = compile_cached(schema_json, side)?;
    Ok(NativeValidator {
        inner,
        input: side == Side::Input,
    })
}

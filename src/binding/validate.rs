//! `compileSchema`: the core's cached validators (`validate::cache`) for JavaScript.

use super::errors::{JsError, NativeError, NativeErrorCode};
use crate::json::{restore_lone_surrogates_if, to_js_json};
use crate::validate::cache::{self, CacheError, Compiled};
use crate::validate::{defaults_json, issues_json, Judged, Side, Validator};
use napi::Either;
use napi_derive::napi;
use serde_json::Value;
use std::sync::Arc;

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

fn compile_cached(schema_json: &str, side: Side) -> Result<Compiled, NativeError> {
    cache::compile_cached(schema_json, side).map_err(|error| match error {
        CacheError::NotJson(reason) => NativeError::new(
            NativeErrorCode::InvalidJsonValue,
            format!("The schema is not JSON: {reason}"),
        ),
        // The JS layer sets `name` from the part before the first newline.
        CacheError::Refused { error, stand_ins } => NativeError::new(
            NativeErrorCode::SchemaCompileFailed,
            restore_lone_surrogates_if(format!("{}\n{}", error.name, error.message), stand_ins),
        ),
    })
}

/// How many compiled schemas the cache keeps, for `lib/validate.js`'s own cache.
#[napi(js_name = "validatorCacheSize")]
pub fn validator_cache_size() -> u32 {
    cache::MAX_CACHED as u32
}

/// A compiled schema, shared by every caller that compiled the same text.
#[napi]
pub struct NativeValidator {
    inner: Arc<Validator>,
    input: bool,
    /// Whether the schema's text held a lone surrogate (compiled as a stand-in).
    stand_ins: bool,
}

/// The first letter of `validateJson`'s answer, which says what follows it; `lib/validate.js`
/// reads them from here (`validationAnswerTags`).
const VALID_WITH_DEFAULTS: char = 'v';
const INVALID: char = 'i';
const RECURSED: char = 'r';
const THREW: char = 't';

/// The tags of `validateJson`'s answers.
#[napi(object)]
pub struct ValidationAnswerTagsJs {
    /// Valid on the input side; the defaults filled in follow.
    pub valid_with_defaults: String,
    /// Invalid; the issues follow.
    pub invalid: String,
    /// The schema recurses on the value forever; nothing follows.
    pub recursed: String,
    /// Ajv's code would read a member whose reading threw; the marker's detail follows.
    pub threw: String,
}

#[napi(js_name = "validationAnswerTags")]
pub fn validation_answer_tags() -> ValidationAnswerTagsJs {
    ValidationAnswerTagsJs {
        valid_with_defaults: VALID_WITH_DEFAULTS.into(),
        invalid: INVALID.into(),
        recursed: RECURSED.into(),
        threw: THREW.into(),
    }
}

/// What a `throws` marker carries beside its tag (the JS layer's index of what was thrown).
fn marker_detail(marker: Value) -> Value {
    match marker {
        Value::Object(map) => map
            .into_iter()
            .find(|(key, _)| key != crate::validate::MARKER_KEY)
            .map_or(Value::Null, |(_, detail)| detail),
        _ => Value::Null,
    }
}

#[napi]
impl NativeValidator {
    /// Validates a value given as JSON text (JavaScript values JSON has no form for arrive as
    /// markers, see `validate::MARKER_KEY`; lone surrogates as `JSON.stringify` writes
    /// them). Returns `null` when it is valid on the output side; [`VALID_WITH_DEFAULTS`] and the
    /// defaults filled in (`[[pointer, key, value], …]`) when it is valid on the input side;
    /// [`INVALID`] and the issues when it is not; [`RECURSED`] when the schema recurses on it
    /// forever; [`THREW`] and the `throws` marker's other member when Ajv's code would read a
    /// member whose reading threw (it throws there too).
    #[napi]
    pub fn validate_json(&self, value_json: String) -> Result<Option<String>, JsError> {
        let (judged, stand_ins) = self.inner.judge_marked(&value_json).map_err(|e| {
            NativeError::new(
                NativeErrorCode::InvalidJsonValue,
                format!("The value is not JSON: {e}"),
            )
        })?;
        // Issues and defaults name keys and values of both: stand-ins go back as surrogates.
        let restore = |json: String| restore_lone_surrogates_if(json, stand_ins || self.stand_ins);
        Ok(match judged {
            Judged::Threw(threw) => Some(format!("{THREW}{}", to_js_json(&marker_detail(threw)))),
            Judged::Valid(_) if !self.input => None,
            Judged::Valid(defaults) => Some(restore(format!(
                "{VALID_WITH_DEFAULTS}{}",
                defaults_json(&defaults)
            ))),
            Judged::Invalid(issues) => Some(restore(format!("{INVALID}{}", issues_json(&issues)))),
            // Where Ajv's generated code overflows the stack; the JS layer throws its RangeError.
            Judged::Recursed => Some(RECURSED.into()),
        })
    }

    /// The in-process fast path's function body (`new Function('H', body)` makes the
    /// validating function), or `null` when the schema has none: a keyword the fast path does
    /// not write, or a lone surrogate in the schema (compiled as a stand-in).
    #[napi]
    pub fn fast_js(&self) -> Option<String> {
        if self.stand_ins {
            return None;
        }
        self.inner.fast_js()
    }
}

/// Whether `value` passes the known format `name` (ajv-formats in full mode), for the fast
/// path's formats that are more than one regular expression; `false` for an unknown name.
#[napi(js_name = "checkFormat")]
pub fn check_format(name: String, value: Either<String, f64>) -> bool {
    let Some(format) = crate::validate::formats::lookup(&name) else {
        return false;
    };
    match value {
        Either::A(text) => format.check_str(&text),
        Either::B(number) => format.check_f64(number),
    }
}

#[napi(js_name = "compileSchemaJson")]
pub fn compile_schema_json(schema_json: String, side: String) -> Result<NativeValidator, JsError> {
    let side = side_of(&side)?;
    let (inner, stand_ins) = compile_cached(&schema_json, side)?;
    Ok(NativeValidator {
        inner,
        input: side == Side::Input,
        stand_ins,
    })
}

/// How `$id` and `$ref` resolve (`fast-uri`'s `resolve`), for the differential test against
/// fast-uri; not part of the package's API.
#[napi(js_name = "resolveSchemaUri")]
pub fn resolve_schema_uri(base: String, reference: String) -> String {
    crate::validate::uri::resolve(&base, &reference)
}

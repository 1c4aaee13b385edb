//! The validators under comparison, each answering valid or invalid for a value: the
//! `jsonschema` crate with its own formats or with ours, and our validator (`Validator`).

use jsonschema::{Draft, Validator};
use kindgi_handler_runtime_native::validate::formats::{self, FormatType};
use kindgi_handler_runtime_native::validate::{Side, Validator as Ours};
use serde_json::Value;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Which format checks the `jsonschema` crate runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormatChecks {
    /// Its built-in ones (`should_validate_formats(true)`).
    Builtin,
    /// Ours (ajv-formats' full mode, ported) for every string format, through `with_format`;
    /// its custom-format API takes a `&str`, so number formats cannot be plugged in that way.
    Ours,
}

impl FormatChecks {
    pub fn label(self) -> &'static str {
        match self {
            FormatChecks::Builtin => "jsonschema, its formats",
            FormatChecks::Ours => "jsonschema, our formats",
        }
    }
}

/// The `jsonschema` crate configured as close to Ajv as its options go: draft 2020-12, formats
/// asserted, an unknown format refused at compile time (Ajv's strict mode).
pub fn jsonschema_options(checks: FormatChecks) -> jsonschema::ValidationOptions<'static> {
    let mut options = jsonschema::options()
        .with_draft(Draft::Draft202012)
        .should_validate_formats(true)
        .should_ignore_unknown_formats(false);
    if checks == FormatChecks::Ours {
        for format in formats::all() {
            if format.kind == FormatType::String {
                options =
                    options.with_format(format.name, move |text: &str| format.check_str(text));
            }
        }
    }
    options
}

/// Compiles `schema`, or says why not (a panic inside the crate counts as a refusal too).
pub fn compile_jsonschema(schema: &Value, checks: FormatChecks) -> Result<Validator, String> {
    let options = jsonschema_options(checks);
    match catch_unwind(AssertUnwindSafe(|| options.build(schema))) {
        Ok(Ok(validator)) => Ok(validator),
        Ok(Err(error)) => Err(error.to_string()),
        Err(_) => Err("panicked while compiling".into()),
    }
}

/// `Some(valid)`, or `None` when the crate panicked.
pub fn jsonschema_verdict(validator: &Validator, value: &Value) -> Option<bool> {
    catch_unwind(AssertUnwindSafe(|| validator.is_valid(value))).ok()
}

/// The schema paths of the crate's errors for `value`, in order, each once.
pub fn jsonschema_error_paths(validator: &Validator, value: &Value) -> Vec<String> {
    let mut paths: Vec<String> = Vec::new();
    let found = catch_unwind(AssertUnwindSafe(|| {
        validator
            .iter_errors(value)
            .map(|error| error.schema_path().to_string())
            .collect::<Vec<_>>()
    }));
    for path in found.unwrap_or_default() {
        if !paths.contains(&path) {
            paths.push(path);
        }
    }
    paths
}

/// Our validator's verdict on a copy of `value` (the input side fills defaults into it).
pub fn our_verdict(validator: &Ours, value: &Value) -> bool {
    validator.validate(&mut value.clone()).is_ok()
}

pub fn compile_ours(schema: &Value, side: Side) -> Result<Ours, String> {
    Ours::compile(schema, side).map_err(|error| error.to_string())
}

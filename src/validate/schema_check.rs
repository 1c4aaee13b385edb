//! What Ajv checks of a schema before it generates code, in its order: the schema's shape and
//! `$id`, its resources and anchors, its `$schema`, then the schema against the meta-schema
//! (compiled here once, and run by the validator itself).

use super::compile::compile_document;
use super::error::CompileError;
use super::metaschemas::{KNOWN_META_SCHEMAS, META_VALUES};
use super::program::{Program, Side};
use super::resources::{collect_resources, normalize_id};
use super::run;
use super::value;
use serde_json::Value;
use std::sync::LazyLock;

/// The compiled meta-schema (`https://json-schema.org/draft/2020-12/schema`).
static META_PROGRAM: LazyLock<Result<Program, CompileError>> = LazyLock::new(|| {
    let metas = &*META_VALUES;
    let root = metas
        .first()
        .ok_or_else(|| CompileError::error("meta-schema not available"))?;
    compile_document(root, Side::Output, metas, true)
});

/// Ajv's checks of `schema` before code generation; the first refusal is the error.
pub fn check_schema(schema: &Value) -> Result<(), CompileError> {
    if schema.is_null() {
        // `typeof null` is "object" to Ajv, which then reads its `$id`.
        return Err(CompileError {
            name: "TypeError",
            message: "Cannot read properties of null (reading '$id')".into(),
        });
    }
    if !schema.is_object() && !schema.is_boolean() {
        return Err(CompileError::error("schema must be object or boolean"));
    }
    match schema.get("$id") {
        // Ajv's `normalizeId` calls `.replace` on it.
        Some(id) if !id.is_string() && js_truthy(id) => {
            return Err(CompileError {
                name: "TypeError",
                message: "id.replace is not a function".into(),
            })
        }
        Some(Value::String(id)) => {
            let id = normalize_id(id);
            if META_VALUES
                .iter()
                .any(|m| m.get("$id").and_then(Value::as_str) == Some(id.as_str()))
            {
                return Err(CompileError::error(format!(
                    "schema with key or id \"{id}\" already exists"
                )));
            }
        }
        _ => {}
    }
    // Resources and anchors are collected (and checked) before the meta-schema runs.
    collect_resources(schema, &[])?;
    if let Some(meta) = schema.get("$schema") {
        let Some(name) = meta.as_str() else {
            return Err(CompileError::error("$schema must be a string"));
        };
        if !KNOWN_META_SCHEMAS.contains(&normalize_id(name).as_str()) {
            return Err(CompileError::error(format!(
                "no schema with key or ref \"{name}\""
            )));
        }
    }
    validate_against_meta(schema)
}

/// JavaScript truthiness of a JSON value.
fn js_truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => value::number(n) != 0.0 && !value::number(n).is_nan(),
        Value::String(s) => !s.is_empty(),
        _ => true,
    }
}

/// Ajv's `validateSchema`: the schema against the meta-schema, refused with `errorsText`.
fn validate_against_meta(schema: &Value) -> Result<(), CompileError> {
    let program = match &*META_PROGRAM {
        Ok(program) => program,
        Err(error) => return Err(error.clone()),
    };
    let mut copy = schema.clone();
    match run::validate(program, &mut copy) {
        Ok(_) => Ok(()),
        Err(run::Invalid::Recursion) => Err(CompileError {
            name: "RangeError",
            message: "Maximum call stack size exceeded".into(),
        }),
        Err(run::Invalid::Issues(issues)) => {
            let text: Vec<String> = issues
                .iter()
                .map(|i| format!("data{} {}", i.instance_path, i.message))
                .collect();
            Err(CompileError::error(format!(
                "schema is invalid: {}",
                text.join(", ")
            )))
        }
    }
}

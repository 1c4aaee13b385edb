//! The indexing request JavaScript sends once its imports are done, read from JSON: the
//! pack's identity and env, and what each discovered file held.

use super::assemble::{DiscoveredOutcome, FileOutcome, Primitive};
use super::entries::{Converted, ConvertedSchemas, ZodFailure};
use super::PrimitiveKind;
use crate::env::PackEnvDeclaration;
use crate::json::member;
use serde_json::{Map, Value};

#[derive(Debug, Clone, PartialEq)]
pub struct IndexRequest {
    pub pack_id: String,
    pub pack_version: String,
    pub env: Option<PackEnvDeclaration>,
    pub files: Vec<DiscoveredOutcome>,
}

/// A request that does not have the shape the JS layer sends (a bug there, not a user error).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestError(pub String);

impl std::fmt::Display for RequestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "malformed index request: {}", self.0)
    }
}

impl std::error::Error for RequestError {}

fn bad(what: impl Into<String>) -> RequestError {
    RequestError(what.into())
}

fn text(map: &Map<String, Value>, name: &str) -> Result<String, RequestError> {
    member(map, name)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| bad(format!("`{name}` is not a string")))
}

fn names(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

pub fn parse_request(json: &str) -> Result<IndexRequest, RequestError> {
    let value: Value = serde_json::from_str(json).map_err(|e| bad(e.to_string()))?;
    let Value::Object(request) = value else {
        return Err(bad("not an object"));
    };
    let env = member(&request, "env")
        .and_then(Value::as_object)
        .map(|env| PackEnvDeclaration {
            required: names(member(env, "required")),
            optional: names(member(env, "optional")),
        });
    let files = member(&request, "files")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("`files` is not an array"))?
        .iter()
        .map(parse_file)
        .collect::<Result<_, _>>()?;
    Ok(IndexRequest {
        pack_id: text(&request, "packId")?,
        pack_version: text(&request, "packVersion")?,
        env,
        files,
    })
}

fn kind(value: Option<&Value>) -> Option<PrimitiveKind> {
    value.and_then(Value::as_str).and_then(PrimitiveKind::parse)
}

fn parse_file(value: &Value) -> Result<DiscoveredOutcome, RequestError> {
    let file = value
        .as_object()
        .ok_or_else(|| bad("a file is not an object"))?;
    let cause = member(file, "cause").cloned();
    let outcome = match member(file, "outcome").and_then(Value::as_str) {
        Some("import-failed") => FileOutcome::ImportFailed {
            error: text(file, "error")?,
            cause,
        },
        Some("no-default-export") => FileOutcome::NoDefaultExport,
        Some("result-error") => FileOutcome::ResultError {
            message: text(file, "message")?,
            cause,
        },
        Some("ambiguous") => FileOutcome::Ambiguous,
        Some("unwritable") => FileOutcome::Unwritable {
            error: text(file, "error")?,
        },
        Some("primitive") => FileOutcome::Primitive(parse_primitive(file)?),
        other => return Err(bad(format!("unknown outcome {other:?}"))),
    };
    Ok(DiscoveredOutcome {
        rel_path: text(file, "relPath")?,
        expected_kind: kind(member(file, "expectedKind")),
        outcome,
    })
}

fn parse_primitive(file: &Map<String, Value>) -> Result<Primitive, RequestError> {
    let kind = kind(member(file, "kind")).ok_or_else(|| bad("a primitive has no kind"))?;
    let fields = match member(file, "fields") {
        Some(Value::Object(fields)) => fields.clone(),
        _ => Map::new(),
    };
    let mut converted = ConvertedSchemas::new();
    if let Some(Value::Object(schemas)) = member(file, "converted") {
        for (target, schema) in schemas {
            let Some(schema) = schema.as_object() else {
                continue;
            };
            let field = text(schema, "field")?;
            let result = match member(schema, "error") {
                Some(Value::Object(error)) => Err(ZodFailure::new(
                    member(error, "message")
                        .and_then(Value::as_str)
                        .unwrap_or_default(),
                    member(error, "cause").cloned(),
                )),
                _ => Ok(member(schema, "schema").cloned().unwrap_or(Value::Null)),
            };
            converted.insert(target.clone(), Converted { field, result });
        }
    }
    Ok(Primitive {
        kind,
        fields,
        check: member(file, "check").cloned(),
        converted,
        shipped_checks: names(member(file, "shippedChecks")),
    })
}

//! From what JavaScript found in each discovered file to the index and the report: the
//! per-file errors in discovery order, each kind's entries with duplicates refused, the lists
//! sorted by id and the canonical file written.

use super::entries::{
    build_agent, build_flow, build_guardrail, build_tool, ConvertedSchemas, ZodFailure,
};
use super::error::{IndexerError, IndexerErrorCode};
use super::{PrimitiveKind, RESERVED_CHECK_IDS};
use crate::canonical::{write_index, IndexWriteError, IndexWriteRequest, IndexWritten};
use crate::env::PackEnvDeclaration;
use crate::json::{member, to_js_json};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::Path;
use std::time::SystemTime;

/// What JavaScript made of one discovered file.
#[derive(Debug, Clone, PartialEq)]
pub enum FileOutcome {
    /// `import()` threw: `<name>: <message>`, and the serialised cause.
    ImportFailed {
        error: String,
        cause: Option<Value>,
    },
    NoDefaultExport,
    /// The default export is `{ kind: 'err', error }`: the error's message, and the error.
    ResultError {
        message: String,
        cause: Option<Value>,
    },
    /// The default export has no primitive's shape.
    Ambiguous,
    /// Its fields cannot be written as JSON (a BigInt, a cycle): JSON.stringify's words.
    Unwritable {
        error: String,
    },
    Primitive(Primitive),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Primitive {
    pub kind: PrimitiveKind,
    /// The export's fields (a flow's whole value).
    pub fields: Map<String, Value>,
    /// A guardrail's `check`: a string id, or the fields of its object.
    pub check: Option<Value>,
    /// Schemas converted from Zod, by the index field they fill.
    pub converted: ConvertedSchemas,
    /// Ids of check implementations the module ships (objects with an `id` and an `evaluate`
    /// function): the guardrail's own `check`, or any export.
    pub shipped_checks: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct DiscoveredOutcome {
    pub rel_path: String,
    pub expected_kind: Option<PrimitiveKind>,
    pub outcome: FileOutcome,
}

/// A warning: the index is written, the user is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexerWarning {
    pub code: &'static str,
    pub message: String,
    pub file_path: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Assembled {
    pub index: Map<String, Value>,
    pub counts: [usize; 4],
    pub file_errors: Vec<IndexerError>,
    pub warnings: Vec<IndexerWarning>,
}

/// Builds the index (without `artifactVersion` and `publishedAt`, which the writer settles).
pub fn assemble(
    pack_id: &str,
    pack_version: &str,
    env: Option<&PackEnvDeclaration>,
    files: &[DiscoveredOutcome],
) -> Assembled {
    let mut lists: [Vec<Map<String, Value>>; 4] = Default::default();
    let mut owners = Owners::default();
    let mut file_errors = Vec::new();
    let mut warnings = Vec::new();
    for file in files {
        let rel = file.rel_path.as_str();
        let primitive = match &file.outcome {
            FileOutcome::ImportFailed { error, cause } => {
                file_errors.push(
                    IndexerError::new(
                        IndexerErrorCode::FileImportFailed,
                        format!("Failed to import {rel}: {error}"),
                    )
                    .at(rel)
                    .cause(Some(cause.clone().unwrap_or(Value::Null))),
                );
                continue;
            }
            FileOutcome::NoDefaultExport => {
                file_errors.push(
                    IndexerError::new(
                        IndexerErrorCode::NoDefaultExport,
                        format!("File {rel} has no default export"),
                    )
                    .at(rel),
                );
                continue;
            }
            FileOutcome::ResultError { message, cause } => {
                file_errors.push(
                    IndexerError::new(
                        IndexerErrorCode::ManifestValidationFailed,
                        format!("File {rel} default export is a Result-wrapped error: {message}"),
                    )
                    .at(rel)
                    .cause(cause.clone()),
                );
                continue;
            }
            FileOutcome::Ambiguous => {
                file_errors.push(
                    IndexerError::new(
                        IndexerErrorCode::AmbiguousKind,
                        format!("File {rel} default export does not match any primitive shape (tool / guardrail / agent / flow)"),
                    )
                    .at(rel),
                );
                continue;
            }
            FileOutcome::Unwritable { error } => {
                file_errors.push(IndexerError::manifest(
                    rel,
                    format_args!("can't be written as JSON: {error}"),
                ));
                continue;
            }
            FileOutcome::Primitive(primitive) => primitive,
        };
        if let Some(expected) = file.expected_kind.filter(|k| *k != primitive.kind) {
            file_errors.push(
                IndexerError::new(
                    IndexerErrorCode::KindMismatch,
                    format!(
                        "File {rel} is under the default folder for kind '{}' but default-exports a '{}'",
                        expected.as_str(),
                        primitive.kind.as_str()
                    ),
                )
                .at(rel),
            );
            continue;
        }
        let built = match primitive.kind {
            PrimitiveKind::Tool => build_tool(&primitive.fields, &primitive.converted, rel),
            PrimitiveKind::Guardrail => build_guardrail(
                &primitive.fields,
                primitive.check.as_ref(),
                &primitive.converted,
                rel,
            ),
            PrimitiveKind::Agent => build_agent(&primitive.fields, rel),
            PrimitiveKind::Flow => build_flow(&Value::Object(primitive.fields.clone()), rel),
        };
        let entry = match built {
            Ok(entry) => entry,
            Err(error) => {
                file_errors.push(error);
                continue;
            }
        };
        if primitive.kind == PrimitiveKind::Guardrail {
            if let Some(error) = reserved_check(&primitive.shipped_checks, rel) {
                file_errors.push(error);
                continue;
            }
            // Told even when the guardrail then turns out a duplicate, as in TypeScript.
            warnings.extend(unprefixed_checks(&primitive.shipped_checks, pack_id, rel));
        }
        if let Some(error) = owners.claim(primitive.kind, &entry, rel) {
            file_errors.push(error);
            continue;
        }
        lists[primitive.kind as usize].push(entry);
    }
    let counts = [
        lists[0].len(),
        lists[1].len(),
        lists[2].len(),
        lists[3].len(),
    ];
    let mut index = Map::new();
    index.insert("v".into(), Value::from(super::INDEX_ENVELOPE_VERSION));
    index.insert("packId".into(), Value::String(pack_id.to_owned()));
    index.insert("packVersion".into(), Value::String(pack_version.to_owned()));
    for (kind, list) in PrimitiveKind::ALL.iter().zip(lists) {
        index.insert(
            kind.list_name().into(),
            Value::Array(list.into_iter().map(Value::Object).collect()),
        );
    }
    if let Some(env) = env {
        let names =
            |list: &[String]| Value::Array(list.iter().cloned().map(Value::String).collect());
        let mut declared = Map::new();
        declared.insert("required".into(), names(&env.required));
        declared.insert("optional".into(), names(&env.optional));
        index.insert("env".into(), Value::Object(declared));
    }
    Assembled {
        index,
        counts,
        file_errors,
        warnings,
    }
}

/// Which file defined each primitive. A pack defines a primitive (a version of it, where it
/// has versions) once: the service keys them so, and a second definition would replace the
/// first silently. The first in discovery order is kept.
/// Each version of one primitive defined so far (`None`: unversioned) and its file, first first.
type Defined<'a> = Vec<(Option<String>, &'a str)>;

#[derive(Default)]
struct Owners<'a> {
    by_id: HashMap<(PrimitiveKind, String), Defined<'a>>,
}

impl<'a> Owners<'a> {
    /// Records `entry`'s file as its owner, or says whose it already is.
    fn claim(
        &mut self,
        kind: PrimitiveKind,
        entry: &Map<String, Value>,
        rel: &'a str,
    ) -> Option<IndexerError> {
        let id = member(entry, "id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        // Guardrails have no versions.
        let version = (kind != PrimitiveKind::Guardrail)
            .then(|| {
                member(entry, "version")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .flatten();
        let defined = self.by_id.entry((kind, id.clone())).or_default();
        let owner = match &version {
            _ if defined.is_empty() => None,
            None => Some(defined[0].1),
            Some(_) if defined.iter().any(|(v, _)| v.is_none()) => Some(defined[0].1),
            Some(v) => defined
                .iter()
                .find(|(d, _)| d.as_ref() == Some(v))
                .map(|(_, owner)| *owner),
        };
        let Some(owner) = owner else {
            defined.push((version, rel));
            return None;
        };
        let versioned = version.map(|v| format!(" version {v}")).unwrap_or_default();
        Some(
            IndexerError::new(
                IndexerErrorCode::ManifestValidationFailed,
                format!(
                    "{rel}: duplicate {} '{id}'{versioned} (also defined in {owner})",
                    kind.as_str()
                ),
            )
            .at(rel),
        )
    }
}

/// A guardrail that ships its own check under a built-in check's id.
fn reserved_check(shipped: &[String], rel: &str) -> Option<IndexerError> {
    let id = shipped
        .iter()
        .find(|id| RESERVED_CHECK_IDS.contains(&id.as_str()))?;
    Some(
        IndexerError::new(
            IndexerErrorCode::ReservedCheckId,
            super::messages::reserved_check_id(rel, id),
        )
        .at(rel)
        .field("check"),
    )
}

/// Checks a pack ships whose id does not start with `<packId>.`.
fn unprefixed_checks(shipped: &[String], pack_id: &str, rel: &str) -> Vec<IndexerWarning> {
    let prefix = format!("{pack_id}.");
    let mut seen: Vec<&String> = Vec::new();
    shipped
        .iter()
        .filter(|id| !id.starts_with(&prefix))
        .filter(|id| {
            let first = !seen.contains(id);
            seen.push(id);
            first
        })
        .map(|id| IndexerWarning {
            code: "check-id-unprefixed",
            message: super::messages::check_id_unprefixed(rel, id, pack_id),
            file_path: rel.to_owned(),
        })
        .collect()
}

/// Writes the assembled index to `output_path` (sorted, canonical, atomically).
pub fn write(
    assembled: &Assembled,
    output_path: &Path,
    artifact_version: Option<String>,
    published_at: Option<String>,
    now: SystemTime,
) -> Result<IndexWritten, IndexWriteError> {
    let text = to_js_json(&Value::Object(assembled.index.clone()));
    write_index(IndexWriteRequest {
        text: &text,
        output_path,
        artifact_version,
        published_at,
        now,
        pid: std::process::id(),
    })
}

impl ZodFailure {
    pub fn new(message: impl Into<String>, cause: Option<Value>) -> Self {
        ZodFailure {
            message: message.into(),
            cause,
        }
    }
}

//! Messages of the whole run (config, discovery, the write) and of the checks a pack ships.

use super::assemble::IndexerWarning;
use super::error::{IndexerError, IndexerErrorCode};
use crate::canonical::IndexWriteError;
use crate::json::write_json_str;
use serde_json::json;
use std::path::Path;

pub fn config_env_invalid(problems: &str) -> IndexerError {
    let mut error = IndexerError::new(
        IndexerErrorCode::ConfigInvalid,
        format!("kindgi.config: {problems}"),
    )
    .field("env");
    error.field_first = true;
    error
}

pub fn discovery_empty(pack_dir: &Path, from_bundle_map: bool) -> IndexerError {
    let message = if from_bundle_map {
        "The bundle map lists no file the discovery patterns match. Check kindgi.config.ts discovery patterns.".to_owned()
    } else {
        format!(
            "Indexer discovered zero files under {}. Check kindgi.config.ts discovery patterns.",
            pack_dir.display()
        )
    };
    IndexerError::new(IndexerErrorCode::DiscoveryEmpty, message)
}

/// The write's failure, its cause serialised as the TypeScript indexer serialises an Error.
pub fn output_write_failed(output_path: &Path, error: &IndexWriteError) -> IndexerError {
    let cause = match error {
        IndexWriteError::Output { failure, .. } => {
            let words = failure.to_string();
            let message = words.strip_prefix("Error: ").unwrap_or(&words).to_owned();
            json!({ "name": "Error", "message": message, "stack": words })
        }
        other => {
            json!({ "name": "Error", "message": other.to_string(), "stack": format!("Error: {other}") })
        }
    };
    IndexerError::new(
        IndexerErrorCode::OutputWriteFailed,
        match error {
            IndexWriteError::Output { .. } => error.to_string(),
            other => format!("Failed to write {}: Error: {other}", output_path.display()),
        },
    )
    .at(output_path.display().to_string())
    .cause(Some(cause))
}

pub fn reserved_check_id(rel_path: &str, id: &str) -> String {
    format!(
        "{rel_path} ships its own check under \"{id}\", a built-in check's id: a pack can't replace a built-in. Rename your check (for example \"<pack>.checks.{id}\"), or, to use the built-in, name it (check: '{id}') and drop your implementation."
    )
}

pub fn check_id_unprefixed(rel_path: &str, id: &str, pack_id: &str) -> String {
    format!(
        "{rel_path}: check \"{id}\" doesn't start with this pack's id (\"{pack_id}.\"). Name it \"{pack_id}.checks.<name>\" so it can't collide with another pack's check on the same runtime. The pack builds as it is."
    )
}

impl IndexerWarning {
    pub fn write_json(&self, out: &mut String) {
        out.push_str("{\"code\":");
        write_json_str(out, self.code);
        out.push_str(",\"message\":");
        write_json_str(out, &self.message);
        out.push_str(",\"filePath\":");
        write_json_str(out, &self.file_path);
        out.push_str(",\"field\":\"check\"}");
    }
}

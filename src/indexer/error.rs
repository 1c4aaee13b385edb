//! `IndexerError`: what `runIndexer` returns as its error, or lists in `fileErrors`, with the
//! TypeScript indexer's codes and messages.

use crate::json::write_json_str;
use serde_json::Value;
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexerErrorCode {
    ConfigNotFound,
    ConfigParseFailed,
    ConfigInvalid,
    DiscoveryEmpty,
    FileImportFailed,
    NoDefaultExport,
    KindMismatch,
    AmbiguousKind,
    ZodConversionFailed,
    ManifestValidationFailed,
    OutputWriteFailed,
    LanguageMismatch,
    ReservedCheckId,
}

impl IndexerErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            IndexerErrorCode::ConfigNotFound => "config-not-found",
            IndexerErrorCode::ConfigParseFailed => "config-parse-failed",
            IndexerErrorCode::ConfigInvalid => "config-invalid",
            IndexerErrorCode::DiscoveryEmpty => "discovery-empty",
            IndexerErrorCode::FileImportFailed => "file-import-failed",
            IndexerErrorCode::NoDefaultExport => "no-default-export",
            IndexerErrorCode::KindMismatch => "kind-mismatch",
            IndexerErrorCode::AmbiguousKind => "ambiguous-kind",
            IndexerErrorCode::ZodConversionFailed => "zod-conversion-failed",
            IndexerErrorCode::ManifestValidationFailed => "manifest-validation-failed",
            IndexerErrorCode::OutputWriteFailed => "output-write-failed",
            IndexerErrorCode::LanguageMismatch => "language-mismatch",
            IndexerErrorCode::ReservedCheckId => "reserved-check-id",
        }
    }
}

/// One indexer error. Its members are written in the order the TypeScript indexer builds
/// them: `code`, `message`, `filePath`, `field`, `cause` (the config's env error alone puts
/// `field` before `message`).
#[derive(Debug, Clone, PartialEq)]
pub struct IndexerError {
    pub code: IndexerErrorCode,
    pub message: String,
    pub file_path: Option<String>,
    pub field: Option<&'static str>,
    /// Boxed: most errors have none, and every `Result` carrying one stays small.
    pub cause: Option<Box<Value>>,
    pub field_first: bool,
}

impl IndexerError {
    pub fn new(code: IndexerErrorCode, message: impl Into<String>) -> Self {
        IndexerError {
            code,
            message: message.into(),
            file_path: None,
            field: None,
            cause: None,
            field_first: false,
        }
    }

    pub fn at(mut self, file_path: impl Into<String>) -> Self {
        self.file_path = Some(file_path.into());
        self
    }

    pub fn field(mut self, field: &'static str) -> Self {
        self.field = Some(field);
        self
    }

    pub fn cause(mut self, cause: Option<Value>) -> Self {
        self.cause = cause.map(Box::new);
        self
    }

    /// `<relPath>: <message>`, as the builders word a manifest problem.
    pub fn manifest(rel_path: &str, message: impl fmt::Display) -> Self {
        IndexerError::new(
            IndexerErrorCode::ManifestValidationFailed,
            format!("{rel_path}: {message}"),
        )
        .at(rel_path)
    }

    /// The error as JSON text, members in the TypeScript order.
    pub fn write_json(&self, out: &mut String) {
        out.push_str("{\"code\":");
        write_json_str(out, self.code.as_str());
        let field = |out: &mut String| {
            if let Some(field) = self.field {
                out.push_str(",\"field\":");
                write_json_str(out, field);
            }
        };
        if self.field_first {
            field(out);
        }
        out.push_str(",\"message\":");
        write_json_str(out, &self.message);
        if let Some(path) = &self.file_path {
            out.push_str(",\"filePath\":");
            write_json_str(out, path);
        }
        if !self.field_first {
            field(out);
        }
        if let Some(cause) = &self.cause {
            out.push_str(",\"cause\":");
            crate::json::write_js_json(out, cause);
        }
        out.push('}');
    }
}

impl fmt::Display for IndexerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for IndexerError {}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn members_keep_the_typescript_order() {
        let mut out = String::new();
        IndexerError::new(IndexerErrorCode::ZodConversionFailed, "m")
            .at("tools/a.ts")
            .field("inputZod")
            .cause(Some(json!({"name": "Error"})))
            .write_json(&mut out);
        assert_eq!(
            out,
            r#"{"code":"zod-conversion-failed","message":"m","filePath":"tools/a.ts","field":"inputZod","cause":{"name":"Error"}}"#
        );
        let mut env = IndexerError::new(IndexerErrorCode::ConfigInvalid, "bad").field("env");
        env.field_first = true;
        let mut out = String::new();
        env.write_json(&mut out);
        assert_eq!(
            out,
            r#"{"code":"config-invalid","field":"env","message":"bad"}"#
        );
    }
}

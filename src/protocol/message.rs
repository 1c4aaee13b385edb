//! Error codes and error messages.

use crate::json::write_json_str;
use serde_json::Value;

/// Why running pack code did not produce a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PackErrorCode {
    InputValidationFailed,
    OutputValidationFailed,
    HandlerImportFailed,
    HandlerShapeInvalid,
    HandlerThrow,
    CheckShapeInvalid,
    MalformedMessage,
    UnknownProtocolVersion,
    UnexpectedMessageKind,
    ToolNotInPack,
    CheckNotInPack,
    ToolVersionMismatch,
    DeadlineExceeded,
    Cancelled,
}

impl PackErrorCode {
    /// All 14, in the protocol's order.
    pub const ALL: [PackErrorCode; 14] = [
        PackErrorCode::InputValidationFailed,
        PackErrorCode::OutputValidationFailed,
        PackErrorCode::HandlerImportFailed,
        PackErrorCode::HandlerShapeInvalid,
        PackErrorCode::HandlerThrow,
        PackErrorCode::CheckShapeInvalid,
        PackErrorCode::MalformedMessage,
        PackErrorCode::UnknownProtocolVersion,
        PackErrorCode::UnexpectedMessageKind,
        PackErrorCode::ToolNotInPack,
        PackErrorCode::CheckNotInPack,
        PackErrorCode::ToolVersionMismatch,
        PackErrorCode::DeadlineExceeded,
        PackErrorCode::Cancelled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            PackErrorCode::InputValidationFailed => "input-validation-failed",
            PackErrorCode::OutputValidationFailed => "output-validation-failed",
            PackErrorCode::HandlerImportFailed => "handler-import-failed",
            PackErrorCode::HandlerShapeInvalid => "handler-shape-invalid",
            PackErrorCode::HandlerThrow => "handler-throw",
            PackErrorCode::CheckShapeInvalid => "check-shape-invalid",
            PackErrorCode::MalformedMessage => "malformed-message",
            PackErrorCode::UnknownProtocolVersion => "unknown-protocol-version",
            PackErrorCode::UnexpectedMessageKind => "unexpected-message-kind",
            PackErrorCode::ToolNotInPack => "tool-not-in-pack",
            PackErrorCode::CheckNotInPack => "check-not-in-pack",
            PackErrorCode::ToolVersionMismatch => "tool-version-mismatch",
            PackErrorCode::DeadlineExceeded => "deadline-exceeded",
            PackErrorCode::Cancelled => "cancelled",
        }
    }

    pub fn parse(code: &str) -> Option<PackErrorCode> {
        Self::ALL.into_iter().find(|c| c.as_str() == code)
    }
}

/// `{v:2, kind:'error', code, message, toolId?, checkId?, cause?, issues?}`.
#[derive(Debug, Clone, PartialEq)]
pub struct PackErrorMessage {
    pub code: PackErrorCode,
    pub message: String,
    pub tool_id: Option<String>,
    pub check_id: Option<String>,
    pub cause: Option<Value>,
    pub issues: Option<Vec<Value>>,
}

impl PackErrorMessage {
    pub fn new(code: PackErrorCode, message: impl Into<String>) -> Self {
        PackErrorMessage {
            code,
            message: message.into(),
            tool_id: None,
            check_id: None,
            cause: None,
            issues: None,
        }
    }

    /// The compact JSON text `JSON.stringify` gives for the message: keys in the order
    /// `v, kind, code, message, toolId, checkId, cause, issues`.
    pub fn to_json(&self) -> String {
        let mut out = String::with_capacity(64 + self.message.len());
        out.push_str("{\"v\":2,\"kind\":\"error\",\"code\":\"");
        out.push_str(self.code.as_str());
        out.push_str("\",\"message\":");
        write_json_str(&mut out, &self.message);
        for (key, id) in [("toolId", &self.tool_id), ("checkId", &self.check_id)] {
            if let Some(id) = id {
                out.push_str(",\"");
                out.push_str(key);
                out.push_str("\":");
                write_json_str(&mut out, id);
            }
        }
        if let Some(cause) = &self.cause {
            out.push_str(",\"cause\":");
            out.push_str(&crate::json::to_js_json(cause));
        }
        if let Some(issues) = &self.issues {
            out.push_str(",\"issues\":");
            out.push_str(&crate::json::to_js_json(&Value::Array(issues.clone())));
        }
        out.push('}');
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn codes_round_trip() {
        for code in PackErrorCode::ALL {
            assert_eq!(PackErrorCode::parse(code.as_str()), Some(code));
        }
        assert_eq!(PackErrorCode::parse("nope"), None);
    }

    #[test]
    fn serializes_in_key_order() {
        let mut error = PackErrorMessage::new(
            PackErrorCode::HandlerThrow,
            "Handler for tool \"x\" threw: Error: é",
        );
        error.tool_id = Some("x".into());
        error.cause = Some(json!({"name": "Error", "message": "é", "stack": "s"}));
        assert_eq!(
            error.to_json(),
            r#"{"v":2,"kind":"error","code":"handler-throw","message":"Handler for tool \"x\" threw: Error: é","toolId":"x","cause":{"name":"Error","message":"é","stack":"s"}}"#
        );
        let mut invalid = PackErrorMessage::new(PackErrorCode::InputValidationFailed, "m");
        invalid.check_id = Some("c".into());
        invalid.issues = Some(vec![
            json!({"instancePath": "", "message": "must be object"}),
        ]);
        assert_eq!(
            invalid.to_json(),
            r#"{"v":2,"kind":"error","code":"input-validation-failed","message":"m","checkId":"c","issues":[{"instancePath":"","message":"must be object"}]}"#
        );
    }
}

//! The request and response checks, over any representation of a decoded message.
//!
//! The pack service checks bodies it parsed itself (`serde_json::Value`); the JS export checks
//! JavaScript values in place. Both go through [`MessageSource`], so the rules exist once.

use super::{PackErrorCode, PackErrorMessage};
use crate::json::{to_js_json, Borrowed};
use crate::validate::Instance;
use serde_json::Value;

/// What the checks need to know of one value: its JavaScript type, and its content for the
/// strings and numbers they compare.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    Undefined,
    Null,
    Bool,
    Number(f64),
    String(String),
    Array,
    /// A non-null, non-array object.
    Object,
    /// A function, a symbol or a bigint.
    Other,
}

/// A decoded message the checks can look into. Paths are property names from the message
/// root; a path through something that is not an object reads as `Undefined`.
pub trait MessageSource {
    type Error;
    /// The value at `path`.
    fn shape(&self, path: &[&str]) -> Result<Shape, Self::Error>;
    /// `JSON.stringify` of the value at `path` (`undefined` when that gives nothing).
    fn render(&self, path: &[&str]) -> Result<String, Self::Error>;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestKind {
    /// `kind: 'invoke'`: run a tool handler.
    Tool,
    /// `kind: 'check-invoke'`: run a guardrail check.
    Check,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResponseKind {
    Result,
    CheckResult,
    Error,
}

type Outcome<T, E> = Result<Result<T, PackErrorMessage>, E>;

fn malformed<T, E>(message: &str) -> Outcome<T, E> {
    Ok(Err(PackErrorMessage::new(
        PackErrorCode::MalformedMessage,
        message,
    )))
}

fn is_record(shape: &Shape) -> bool {
    matches!(shape, Shape::Object)
}

fn is_non_empty_string(shape: &Shape) -> bool {
    matches!(shape, Shape::String(s) if !s.is_empty())
}

/// The envelope checks both directions share: an object, with `v === 2`.
fn check_envelope<S: MessageSource>(source: &S) -> Outcome<(), S::Error> {
    if !is_record(&source.shape(&[])?) {
        return malformed("Message must be a JSON object");
    }
    if source.shape(&["v"])? != Shape::Number(2.0) {
        let got = source.render(&["v"])?;
        return Ok(Err(PackErrorMessage::new(
            PackErrorCode::UnknownProtocolVersion,
            format!("Expected protocol v2, got {got}"),
        )));
    }
    Ok(Ok(()))
}

/// `parsePackRequest`: which request the message is, or the error message to answer.
pub fn parse_pack_request<S: MessageSource>(source: &S) -> Outcome<RequestKind, S::Error> {
    if let Err(error) = check_envelope(source)? {
        return Ok(Err(error));
    }
    match source.shape(&["kind"])? {
        Shape::String(kind) if kind == "invoke" => check_tool_invoke(source),
        Shape::String(kind) if kind == "check-invoke" => check_check_invoke(source),
        _ => {
            let kind = source.render(&["kind"])?;
            Ok(Err(PackErrorMessage::new(
                PackErrorCode::UnexpectedMessageKind,
                format!("Unknown request kind {kind}"),
            )))
        }
    }
}

fn check_tool_invoke<S: MessageSource>(source: &S) -> Outcome<RequestKind, S::Error> {
    if !is_record(&source.shape(&["tool"])?)
        || !is_non_empty_string(&source.shape(&["tool", "id"])?)
    {
        return malformed("`tool.id` is required");
    }
    if !matches!(
        source.shape(&["tool", "version"])?,
        Shape::Undefined | Shape::String(_)
    ) {
        return malformed("`tool.version` must be a string");
    }
    let context_ok = is_record(&source.shape(&["ctx"])?)
        && matches!(source.shape(&["ctx", "tenantId"])?, Shape::String(_))
        && matches!(source.shape(&["ctx", "runId"])?, Shape::String(_));
    if !context_ok {
        return malformed("`ctx` needs string `tenantId` and `runId`");
    }
    Ok(Ok(RequestKind::Tool))
}

fn check_check_invoke<S: MessageSource>(source: &S) -> Outcome<RequestKind, S::Error> {
    if !is_record(&source.shape(&["check"])?)
        || !is_non_empty_string(&source.shape(&["check", "id"])?)
    {
        return malformed("`check.id` is required");
    }
    if !is_record(&source.shape(&["config"])?) {
        return malformed("`config` must be an object");
    }
    Ok(Ok(RequestKind::Check))
}

/// `parsePackResponse`: which response the message is, or the error message that refuses it.
pub fn parse_pack_response<S: MessageSource>(source: &S) -> Outcome<ResponseKind, S::Error> {
    if let Err(error) = check_envelope(source)? {
        return Ok(Err(error));
    }
    let kind = source.shape(&["kind"])?;
    match &kind {
        Shape::String(k) if k == "result" => return Ok(Ok(ResponseKind::Result)),
        Shape::String(k) if k == "check-result" => return Ok(Ok(ResponseKind::CheckResult)),
        Shape::String(k) if k == "error" => {
            let code_ok = matches!(source.shape(&["code"])?, Shape::String(_));
            if code_ok && matches!(source.shape(&["message"])?, Shape::String(_)) {
                return Ok(Ok(ResponseKind::Error));
            }
        }
        _ => {}
    }
    let kind = source.render(&["kind"])?;
    Ok(Err(PackErrorMessage::new(
        PackErrorCode::UnexpectedMessageKind,
        format!("Unknown response kind {kind}"),
    )))
}

/// The value at `path`, `None` when a step is missing or not an object.
fn lookup<'v, J: Instance>(value: &'v J, path: &[&str]) -> Option<&'v J> {
    path.iter().try_fold(value, |current, key| current.get(key))
}

/// What the checks see of the value at `path` of a parsed message.
fn parsed_shape<J: Instance>(message: &J, path: &[&str]) -> Shape {
    let Some(value) = lookup(message, path) else {
        return Shape::Undefined;
    };
    if value.is_null() {
        Shape::Null
    } else if value.as_bool().is_some() {
        Shape::Bool
    } else if let Some(x) = value.as_f64() {
        Shape::Number(x)
    } else if let Some(s) = value.as_str() {
        Shape::String(s.to_owned())
    } else if value.items().is_some() {
        Shape::Array
    } else {
        Shape::Object
    }
}

fn parsed_render<J: Instance>(message: &J, path: &[&str]) -> String {
    lookup(message, path).map_or_else(|| "undefined".to_owned(), |v| to_js_json(&v.to_value()))
}

impl MessageSource for Value {
    type Error = std::convert::Infallible;

    fn shape(&self, path: &[&str]) -> Result<Shape, Self::Error> {
        Ok(parsed_shape(self, path))
    }

    fn render(&self, path: &[&str]) -> Result<String, Self::Error> {
        Ok(parsed_render(self, path))
    }
}

/// A request body as the pack service reads it.
impl MessageSource for Borrowed<'_> {
    type Error = std::convert::Infallible;

    fn shape(&self, path: &[&str]) -> Result<Shape, Self::Error> {
        Ok(parsed_shape(self, path))
    }

    fn render(&self, path: &[&str]) -> Result<String, Self::Error> {
        Ok(parsed_render(self, path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(value: Value) -> Result<RequestKind, String> {
        let Ok(outcome) = parse_pack_request(&value);
        outcome.map_err(|e| format!("{}: {}", e.code.as_str(), e.message))
    }

    fn response(value: Value) -> Result<ResponseKind, String> {
        let Ok(outcome) = parse_pack_response(&value);
        outcome.map_err(|e| format!("{}: {}", e.code.as_str(), e.message))
    }

    fn ctx() -> Value {
        json!({"tenantId": "t", "runId": "r"})
    }

    #[test]
    fn accepts_valid_requests() {
        assert_eq!(
            request(
                json!({"v": 2, "kind": "invoke", "tool": {"id": "x"}, "input": {}, "ctx": ctx()})
            ),
            Ok(RequestKind::Tool)
        );
        assert_eq!(
            request(
                json!({"v": 2.0, "kind": "invoke", "tool": {"id": "x", "version": "1"}, "ctx": {"tenantId": "", "runId": ""}, "extra": 1})
            ),
            Ok(RequestKind::Tool)
        );
        assert_eq!(
            request(json!({"v": 2, "kind": "check-invoke", "check": {"id": "c"}, "config": {}})),
            Ok(RequestKind::Check)
        );
    }

    #[test]
    fn refuses_in_order_with_typescript_messages() {
        let cases = [
            (
                json!([1]),
                "malformed-message: Message must be a JSON object",
            ),
            (
                json!(null),
                "malformed-message: Message must be a JSON object",
            ),
            (
                json!({"v": 1, "kind": "invoke"}),
                "unknown-protocol-version: Expected protocol v2, got 1",
            ),
            (
                json!({"v": "2"}),
                "unknown-protocol-version: Expected protocol v2, got \"2\"",
            ),
            (
                json!({"kind": "invoke"}),
                "unknown-protocol-version: Expected protocol v2, got undefined",
            ),
            (
                json!({"v": {"b": 1, "a": [1.5]}}),
                "unknown-protocol-version: Expected protocol v2, got {\"b\":1,\"a\":[1.5]}",
            ),
            (
                json!({"v": 2, "kind": "run"}),
                "unexpected-message-kind: Unknown request kind \"run\"",
            ),
            (
                json!({"v": 2}),
                "unexpected-message-kind: Unknown request kind undefined",
            ),
            (
                json!({"v": 2, "kind": "invoke", "tool": {}}),
                "malformed-message: `tool.id` is required",
            ),
            (
                json!({"v": 2, "kind": "invoke", "tool": [], "ctx": ctx()}),
                "malformed-message: `tool.id` is required",
            ),
            (
                json!({"v": 2, "kind": "invoke", "tool": {"id": ""}, "ctx": ctx()}),
                "malformed-message: `tool.id` is required",
            ),
            (
                json!({"v": 2, "kind": "invoke", "tool": {"id": "x", "version": null}, "ctx": ctx()}),
                "malformed-message: `tool.version` must be a string",
            ),
            (
                json!({"v": 2, "kind": "invoke", "tool": {"id": "x"}, "ctx": {"tenantId": "t"}}),
                "malformed-message: `ctx` needs string `tenantId` and `runId`",
            ),
            (
                json!({"v": 2, "kind": "invoke", "tool": {"id": "x"}, "ctx": [1]}),
                "malformed-message: `ctx` needs string `tenantId` and `runId`",
            ),
            (
                json!({"v": 2, "kind": "check-invoke", "check": {"id": ""}, "config": {}}),
                "malformed-message: `check.id` is required",
            ),
            (
                json!({"v": 2, "kind": "check-invoke", "check": {"id": "c"}, "config": 1}),
                "malformed-message: `config` must be an object",
            ),
            (
                json!({"v": 2, "kind": "check-invoke", "check": {"id": "c"}, "config": []}),
                "malformed-message: `config` must be an object",
            ),
        ];
        for (value, want) in cases {
            assert_eq!(request(value.clone()), Err(want.to_owned()), "{value}");
        }
    }

    #[test]
    fn checks_responses() {
        assert_eq!(
            response(json!({"v": 2, "kind": "result", "output": 1})),
            Ok(ResponseKind::Result)
        );
        assert_eq!(
            response(json!({"v": 2, "kind": "check-result", "result": {}})),
            Ok(ResponseKind::CheckResult)
        );
        assert_eq!(
            response(json!({"v": 2, "kind": "error", "code": "x", "message": "m"})),
            Ok(ResponseKind::Error)
        );
        assert_eq!(
            response(json!({"v": 2, "kind": "error", "message": "m"})),
            Err("unexpected-message-kind: Unknown response kind \"error\"".into())
        );
        assert_eq!(
            response(json!({"v": 1, "kind": "result"})),
            Err("unknown-protocol-version: Expected protocol v2, got 1".into())
        );
        assert_eq!(
            response(json!("x")),
            Err("malformed-message: Message must be a JSON object".into())
        );
    }
}

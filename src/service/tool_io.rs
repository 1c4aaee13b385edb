//! A tool call's input and output checked against the tool's schemas in Rust, before and after
//! its JavaScript handler runs, with the TypeScript runner's answers: its order (input, then
//! the handler, then output), its messages (`runner_messages`), and Ajv's issues.
//!
//! Validators are compiled once, when the catalog is read; a schema that does not compile is
//! answered by every call that needs it, as the TypeScript runner answers it.

use crate::json::{on_deep_stack, parse_with_lone_surrogates_on, Stack, ValueUnread};
use crate::protocol::{PackErrorCode, PackErrorMessage};
use crate::service::runner_messages::RunnerMessage;
use crate::validate::{
    defaults_json, CompileError, DefaultApplied, Instance, Invalid, Issue, Side, Validator,
};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A tool's schema for one side, compiled (or why Ajv would refuse it).
#[derive(Debug, Clone)]
pub struct CompiledSchema(Result<Arc<Validator>, CompileError>);

impl PartialEq for CompiledSchema {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Ok(a), Ok(b)) => Arc::ptr_eq(a, b),
            (Err(a), Err(b)) => a == b,
            _ => false,
        }
    }
}

/// The schemas the latest catalog compiled, by side and JSON text (only that catalog's).
static LATEST: Mutex<Option<HashMap<(Side, String), CompiledSchema>>> = Mutex::new(None);

/// Compiles a catalog's schemas, each distinct one once, reusing those of the catalog read
/// before it in this process: a pack service held as a supervisor's spare reads the index it
/// finds, so once released it compiles only the schemas an edit changed.
#[derive(Default)]
pub struct SchemaCompiler {
    earlier: HashMap<(Side, String), CompiledSchema>,
    compiled: HashMap<(Side, String), CompiledSchema>,
}

impl SchemaCompiler {
    pub fn new() -> SchemaCompiler {
        SchemaCompiler::after(
            LATEST
                .lock()
                .ok()
                .and_then(|mut latest| latest.take())
                .unwrap_or_default(),
        )
    }

    fn after(earlier: HashMap<(Side, String), CompiledSchema>) -> SchemaCompiler {
        SchemaCompiler {
            earlier,
            compiled: HashMap::new(),
        }
    }

    /// [`CompiledSchema::compile`], or the same schema compiled already.
    pub fn compile(&mut self, schema: Option<&Value>, side: Side) -> CompiledSchema {
        let Some(key) = schema.and_then(|s| serde_json::to_string(s).ok()) else {
            return CompiledSchema::compile(schema, side);
        };
        let key = (side, key);
        if let Some(compiled) = self.compiled.get(&key) {
            return compiled.clone();
        }
        let compiled = match self.earlier.remove(&key) {
            Some(compiled) => compiled,
            None => CompiledSchema::compile(schema, side),
        };
        self.compiled.insert(key, compiled.clone());
        compiled
    }

    /// Leaves this catalog's schemas for the next one.
    pub fn finish(self) {
        if let Ok(mut latest) = LATEST.lock() {
            *latest = Some(self.compiled);
        }
    }
}

impl CompiledSchema {
    /// Compiles an indexed schema; an absent one is refused as Ajv refuses `undefined`.
    pub fn compile(schema: Option<&Value>, side: Side) -> CompiledSchema {
        CompiledSchema(match schema {
            Some(schema) => Validator::compile(schema, side).map(Arc::new),
            None => Err(CompileError {
                name: "Error",
                message: "schema must be object or boolean".into(),
            }),
        })
    }
}

/// What a thrown error becomes in a message's `cause`. Errors raised here have no JavaScript
/// frames: the stack is the error's first line.
fn error_cause(name: &str, message: &str) -> Value {
    json!({"name": name, "message": message, "stack": format!("{name}: {message}")})
}

fn tool_error(code: PackErrorCode, message: String, tool_id: &str) -> Box<PackErrorMessage> {
    let mut error = Box::new(PackErrorMessage::new(code, message));
    error.tool_id = Some(tool_id.to_owned());
    error
}

/// What TypeScript's service answers (500) where Ajv's code overflows its stack, and this one
/// where a value outgrows every stack it has.
pub const STACK_EXCEEDED: &str = "Maximum call stack size exceeded";

/// Why one side of a call is not passed on.
#[derive(Debug, PartialEq)]
pub enum Rejected {
    /// The protocol's answer: `input-validation-failed` or `output-validation-failed`.
    Message(Box<PackErrorMessage>),
    /// Validation threw, as Ajv's generated code does on a schema that recurses forever: the
    /// TypeScript runner rejects, and its service answers 500 with this message.
    Threw(&'static str),
    /// The value nests deeper than the caller's stack holds: judge it again, as it was, on
    /// [`Stack::Deep`].
    OutgrewStack,
}

fn issues(list: &[Issue]) -> Vec<Value> {
    list.iter().map(Issue::to_value).collect()
}

/// Which side of a call is judged, and so which of the runner's messages name it. The messages
/// are written only for a failure: a call that passes costs no formatting.
#[derive(Clone, Copy)]
enum Judged {
    Input,
    Output,
}

impl Judged {
    fn code(self) -> PackErrorCode {
        match self {
            Judged::Input => PackErrorCode::InputValidationFailed,
            Judged::Output => PackErrorCode::OutputValidationFailed,
        }
    }

    /// Its schema failed to compile.
    fn schema_refused(self) -> RunnerMessage {
        match self {
            Judged::Input => RunnerMessage::ToolInputSchemaRefused,
            Judged::Output => RunnerMessage::ToolOutputSchemaRefused,
        }
    }

    /// It failed validation.
    fn invalid(self) -> RunnerMessage {
        match self {
            Judged::Input => RunnerMessage::ToolInputInvalid,
            Judged::Output => RunnerMessage::ToolOutputInvalid,
        }
    }
}

/// How one side of a call fared against its schema: the defaults filled in, when it passed.
fn check<J: Instance>(
    schema: &CompiledSchema,
    value: &mut J,
    side: Judged,
    tool_id: &str,
    stack: Stack,
) -> Result<Vec<DefaultApplied>, Rejected> {
    let code = side.code();
    let validator = match &schema.0 {
        Ok(validator) => validator,
        Err(refused) => {
            let thrown = refused.to_string();
            let message = side
                .schema_refused()
                .fill(&[("id", tool_id), ("thrown", &thrown)]);
            let mut error = tool_error(code, message, tool_id);
            error.cause = Some(error_cause(refused.name, &refused.message));
            return Err(Rejected::Message(error));
        }
    };
    match validator.validate_recording_defaults_on(value, stack) {
        None => Err(Rejected::OutgrewStack),
        Some(Ok(defaults)) => Ok(defaults),
        Some(Err(Invalid::Recursion)) => Err(Rejected::Threw(STACK_EXCEEDED)),
        Some(Err(Invalid::Issues(found))) => {
            let message = side.invalid().fill(&[("id", tool_id)]);
            let mut error = tool_error(code, message, tool_id);
            error.issues = Some(issues(&found));
            Err(Rejected::Message(error))
        }
    }
}

/// Checks a call's input where it lies in the parsed request, filling the schema's defaults into
/// it. `Ok(None)` means none were filled; otherwise the defaults filled, as [`defaults_json`]
/// writes them: a JavaScript runner applies them to the input it parses from the body, instead
/// of parsing the whole input again. On the caller's `stack`, an input whose walk outgrows it
/// is [`Rejected::OutgrewStack`].
pub fn check_input<J: Instance>(
    schema: &CompiledSchema,
    input: &mut J,
    tool_id: &str,
    stack: Stack,
) -> Result<Option<String>, Rejected> {
    let defaults = check(schema, input, Judged::Input, tool_id, stack)?;
    Ok((!defaults.is_empty()).then(|| defaults_json(&defaults)))
}

/// Checks a handler's output, given as JSON text in which what JSON cannot hold is marked
/// (see `validate::MARKER_KEY`), so it is judged as Ajv judges the JavaScript value. An output
/// nested deeper than the caller's stack holds is read and judged on a deep one.
pub fn check_output(
    schema: &CompiledSchema,
    marked_output: &str,
    tool_id: &str,
) -> Result<(), Rejected> {
    match check_output_on(schema, marked_output, tool_id, Stack::Caller) {
        Err(Rejected::OutgrewStack) => {
            on_deep_stack(|| check_output_on(schema, marked_output, tool_id, Stack::Deep))
                .unwrap_or(Err(Rejected::OutgrewStack))
        }
        checked => checked,
    }
}

fn check_output_on(
    schema: &CompiledSchema,
    marked_output: &str,
    tool_id: &str,
    stack: Stack,
) -> Result<(), Rejected> {
    let side = Judged::Output;
    let mut value = match parse_with_lone_surrogates_on(marked_output, stack).0 {
        Ok(value) => value,
        Err(ValueUnread::OutgrewStack) => return Err(Rejected::OutgrewStack),
        Err(ValueUnread::NotJson(e)) => {
            let message = format!("The value is not JSON: {e}");
            let thrown = format!("Error: {message}");
            let mut error = tool_error(
                side.code(),
                RunnerMessage::ToolOutputUnreadable.fill(&[("id", tool_id), ("thrown", &thrown)]),
                tool_id,
            );
            error.cause = Some(error_cause("Error", &message));
            return Err(Rejected::Message(error));
        }
    };
    check(schema, &mut value, side, tool_id, stack).map(|_| ())
}

/// The `result` message for an output whose JSON text needed no change.
pub fn result_message(output_json: &str) -> String {
    format!("{{\"v\":2,\"kind\":\"result\",\"output\":{output_json}}}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compiled(schema: Value, side: Side) -> CompiledSchema {
        CompiledSchema::compile(Some(&schema), side)
    }

    /// (`CompiledSchema`'s equality is the validator's identity.)
    #[test]
    fn a_schema_is_compiled_once_per_catalog_and_reused_by_the_next() {
        let a = json!({"type": "object", "properties": {"q": {"type": "string"}}});
        let b = json!({"type": "object", "properties": {"q": {"type": "number"}}});
        let mut first = SchemaCompiler::after(HashMap::new());
        let a_in = first.compile(Some(&a), Side::Input);
        assert_eq!(first.compile(Some(&a), Side::Input), a_in);
        assert_ne!(
            first.compile(Some(&a), Side::Output),
            a_in,
            "each side its own"
        );
        assert_ne!(
            compiled(a.clone(), Side::Input),
            a_in,
            "a new compile is another"
        );
        let refused = first.compile(Some(&json!({"type": 5})), Side::Input);
        assert!(refused.0.is_err());
        assert_eq!(
            first.compile(None, Side::Input),
            CompiledSchema::compile(None, Side::Input)
        );

        let mut next = SchemaCompiler::after(first.compiled);
        assert_eq!(next.compile(Some(&a), Side::Input), a_in, "reused");
        let b_in = next.compile(Some(&b), Side::Input);
        // Only what the next catalog compiled is handed on: a schema it dropped is not kept.
        let mut third = SchemaCompiler::after(next.compiled);
        assert_eq!(third.compile(Some(&b), Side::Input), b_in);
        assert_eq!(third.compile(Some(&a), Side::Input), a_in);
        let mut fourth = SchemaCompiler::after(SchemaCompiler::after(third.compiled).compiled);
        assert_ne!(fourth.compile(Some(&a), Side::Input), a_in);
    }

    fn message<T: std::fmt::Debug>(checked: Result<T, Rejected>) -> Box<PackErrorMessage> {
        match checked {
            Err(Rejected::Message(message)) => message,
            other => panic!("expected a message, got {other:?}"),
        }
    }

    #[test]
    fn input_defaults_issues_and_compile_failures() {
        let schema = compiled(
            json!({"type": "object", "properties": {"n": {"type": "integer", "default": 3}}}),
            Side::Input,
        );
        let mut input = json!({"a": 1});
        assert_eq!(
            check_input(&schema, &mut input, "t", Stack::Caller),
            Ok(Some(r#"[["","n",3]]"#.into()))
        );
        assert_eq!(input, json!({"a": 1, "n": 3}), "filled where it lies");
        assert_eq!(
            check_input(&schema, &mut json!({"n": 1}), "t", Stack::Caller),
            Ok(None)
        );
        let refused = message(check_input(
            &schema,
            &mut json!({"n": "x"}),
            "t",
            Stack::Caller,
        ));
        assert_eq!(refused.message, "Tool \"t\" input failed validation");
        assert_eq!(refused.issues.map(|i| i.len()), Some(1));
        let absent = CompiledSchema::compile(None, Side::Input);
        let refused = message(check_input(&absent, &mut json!({}), "t", Stack::Caller));
        assert_eq!(
            refused.to_json(),
            r#"{"v":2,"kind":"error","code":"input-validation-failed","message":"Tool \"t\" input schema failed to compile: Error: schema must be object or boolean","toolId":"t","cause":{"name":"Error","message":"schema must be object or boolean","stack":"Error: schema must be object or boolean"}}"#
        );
    }

    #[test]
    fn output_messages() {
        let schema = compiled(
            json!({"type": "object", "additionalProperties": false}),
            Side::Output,
        );
        assert_eq!(check_output(&schema, "{}", "t"), Ok(()));
        let refused = message(check_output(
            &schema,
            r#"{"a":{"\u0000js":"undefined"}}"#,
            "t",
        ));
        assert_eq!(
            refused.message,
            "Tool \"t\" handler produced output that failed validation"
        );
        let absent = CompiledSchema::compile(None, Side::Output);
        assert_eq!(
            message(check_output(&absent, "{}", "t")).message,
            "Tool \"t\" output schema failed to compile: Error: schema must be object or boolean"
        );
        // Ajv's code overflows its stack: thrown, not answered with a message.
        let recursive = compiled(json!({"$ref": "#"}), Side::Output);
        assert_eq!(
            check_output(&recursive, "{}", "t"),
            Err(Rejected::Threw(STACK_EXCEEDED))
        );
    }

    /// An output nested past serde_json's 127 levels is read and judged on a deep stack, to
    /// `json::MAX_DEPTH`; deeper, it is unreadable in serde_json's words, as before.
    #[test]
    fn deep_outputs_are_judged_on_a_deep_stack() {
        let nested = |depth: usize| "[".repeat(depth) + &"]".repeat(depth);
        let any = compiled(json!({}), Side::Output);
        let tree = compiled(
            json!({"type": "array", "items": {"$ref": "#"}}),
            Side::Output,
        );
        for depth in [127, 128, 1_000, crate::json::MAX_DEPTH] {
            assert_eq!(check_output(&any, &nested(depth), "t"), Ok(()), "{depth}");
            assert_eq!(check_output(&tree, &nested(depth), "t"), Ok(()), "{depth}");
        }
        let refused = message(check_output(&any, &nested(crate::json::MAX_DEPTH + 1), "t"));
        assert!(
            refused
                .message
                .contains("The value is not JSON: recursion limit exceeded"),
            "{}",
            refused.message
        );
        // Deep and not JSON, still in serde_json's words.
        let unreadable = message(check_output(&tree, &(nested(300) + "x"), "t"));
        assert!(
            unreadable.message.contains("not JSON"),
            "{}",
            unreadable.message
        );
        // An invalid deep output gets Ajv's issues, its path as deep as the value.
        let wrong = "[".repeat(300) + "1" + &"]".repeat(300);
        let refused = message(check_output(&tree, &wrong, "t"));
        let path = "/0".repeat(300);
        assert!(refused
            .to_json()
            .contains(&format!(r#""instancePath":"{path}""#)));
    }

    /// On the caller's stack an input the schema recurses on past its room is left for a deep
    /// one; there it is judged.
    #[test]
    fn deep_inputs_outgrow_the_callers_stack() {
        let tree = compiled(
            json!({"type": "array", "items": {"$ref": "#"}}),
            Side::Input,
        );
        let text = "[".repeat(1_000) + &"]".repeat(1_000);
        let judged = crate::json::on_deep_stack(|| {
            let mut input = crate::json::parse_borrowed_on(&text, Stack::Deep).expect("JSON");
            let on_caller = check_input(&tree, &mut input, "t", Stack::Caller);
            let on_deep = check_input(&tree, &mut input, "t", Stack::Deep);
            (on_caller, on_deep)
        });
        assert_eq!(judged, Some((Err(Rejected::OutgrewStack), Ok(None))));
    }
}

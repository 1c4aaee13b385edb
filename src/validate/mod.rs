//! JSON Schema (draft 2020-12) validation with Ajv's answers: the same valid/invalid decision,
//! the same issue objects in the same order, and the same schemas refused at compile time, for
//! Ajv 2020 configured as `@kindgi/handler-runtime` configures it (strict, allErrors,
//! allowUnionTypes, ajv-formats in full mode, useDefaults on the input side).
//!
//! Ajv compiles a schema to JavaScript; this module compiles it to a [`program::Program`], a
//! tree of schema nodes holding the keywords in the order Ajv's generated code checks them, and
//! [`run`] walks that tree over a value, reporting what Ajv reports.
//!
//! The rooms: `schema_check` (what Ajv checks before generating code, the meta-schema
//! included), `compile/` (the code generator's walk, a file per vocabulary), `program` and
//! `evaluated` (what it builds), `run/` (walking it), `keywords` (Ajv's keyword tables),
//! `resources` and `uri` (`$id`s, anchors, `$ref` resolution), `metaschemas`, `formats/`
//! (ajv-formats), `value` (JSON values as Ajv's code reads them), `issue` (its error objects),
//! `fast_js` (the schema written as JavaScript for the in-process fast path).

pub mod cache;
mod compile;
mod error;
mod evaluated;
mod fast_js;
pub mod formats;
mod instance;
mod issue;
mod keywords;
mod metaschemas;
mod program;
mod resources;
mod run;
mod schema_check;
pub mod uri;
mod value;

pub use error::CompileError;
pub use instance::Instance;
pub use issue::{issues_json, Issue};
pub use program::Side;
pub use run::{DefaultApplied, Invalid};
pub use value::MARKER_KEY;

use crate::json::{
    on_deep_stack, parse_with_lone_surrogates_on, write_js_json, write_json_str, Stack, ValueUnread,
};
use serde_json::Value;

/// Filled defaults as JSON text, `[[pointer, key, value], …]` in the order they were filled:
/// what a JavaScript caller applies to its own copy of the value.
pub fn defaults_json(defaults: &[DefaultApplied]) -> String {
    let mut out = String::from("[");
    for (at, default) in defaults.iter().enumerate() {
        if at > 0 {
            out.push(',');
        }
        out.push('[');
        write_json_str(&mut out, &default.pointer);
        out.push(',');
        write_json_str(&mut out, &default.key);
        out.push(',');
        write_js_json(&mut out, &default.value);
        out.push(']');
    }
    out.push(']');
    out
}

/// A compiled schema: compile once, validate many values, from any thread.
#[derive(Debug)]
pub struct Validator {
    program: program::Program,
}

impl Validator {
    /// Compiles `schema` as Ajv would for `side`; refuses what Ajv refuses, with Ajv's message.
    pub fn compile(schema: &Value, side: Side) -> Result<Validator, CompileError> {
        schema_check::check_schema(schema)?;
        Ok(Validator {
            program: compile::compile(schema, side)?,
        })
    }

    /// Validates `value`. On the input side the schema's defaults are filled into `value`
    /// (as Ajv's `useDefaults` does, before the keywords that follow them see the value).
    pub fn validate(&self, value: &mut Value) -> Result<(), Invalid> {
        run::validate(&self.program, value).map(|_| ())
    }

    /// [`Validator::validate`], saying which defaults it filled in and where, in order (so a
    /// caller holding the original JavaScript value can fill the same into its own copy).
    pub fn validate_recording_defaults<J: Instance>(
        &self,
        value: &mut J,
    ) -> Result<Vec<DefaultApplied>, Invalid> {
        run::validate(&self.program, value)
    }

    /// [`Validator::validate_recording_defaults`] on `stack`: `None` when the value nests
    /// deeper than the caller's stack holds, to be judged again, as it was, on
    /// [`Stack::Deep`].
    pub fn validate_recording_defaults_on<J: Instance>(
        &self,
        value: &mut J,
        stack: Stack,
    ) -> Option<Result<Vec<DefaultApplied>, Invalid>> {
        run::validate_on(&self.program, value, stack)
    }

    /// The schema as a JavaScript function body for the in-process fast path (see
    /// [`fast_js`]), or `None` when it uses a keyword that path does not write.
    pub fn fast_js(&self) -> Option<String> {
        fast_js::write(&self.program)
    }

    /// Judges a value given as JSON text in which a member whose reading throws in
    /// JavaScript (a getter) is marked `{"\u0000js": "throws", …}`, lone surrogates as
    /// `JSON.stringify` writes them: read and walked where it is, or, nested deeper than the
    /// caller's stack holds, on a deep one, to `json::MAX_DEPTH` levels. Also says whether the
    /// text held lone surrogates. `Err`: not JSON, in serde_json's words.
    pub fn judge_marked(&self, text: &str) -> Result<(Judged, bool), serde_json::Error> {
        let judged = match self.judge_marked_on(text, Stack::Caller) {
            Err(ValueUnread::OutgrewStack) => {
                on_deep_stack(|| self.judge_marked_on(text, Stack::Deep))
                    // No thread could be started for it: where Ajv's code would overflow too.
                    .unwrap_or(Ok((Judged::Recursed, false)))
            }
            judged => judged,
        };
        judged.or_else(|unread| match unread {
            ValueUnread::NotJson(refused) => Err(refused),
            // Only the caller's stack is outgrown, and that is tried again above.
            ValueUnread::OutgrewStack => Ok((Judged::Recursed, false)),
        })
    }

    fn judge_marked_on(&self, text: &str, stack: Stack) -> Result<(Judged, bool), ValueUnread> {
        let (value, stand_ins) = parse_with_lone_surrogates_on(text, stack);
        let mut value = value?;
        let judged = match run::validate_reading_on(&self.program, &mut value, stack) {
            None => return Err(ValueUnread::OutgrewStack),
            Some(Err(threw)) => Judged::Threw(threw),
            Some(Ok(Ok(defaults))) => Judged::Valid(defaults),
            Some(Ok(Err(Invalid::Issues(issues)))) => Judged::Invalid(issues),
            Some(Ok(Err(Invalid::Recursion))) => Judged::Recursed,
        };
        Ok((judged, stand_ins))
    }
}

/// What [`Validator::judge_marked`] makes of a value.
#[derive(Debug, Clone, PartialEq)]
pub enum Judged {
    /// Valid, with the defaults filled in, in order (none on the output side).
    Valid(Vec<DefaultApplied>),
    /// Ajv's error objects, in Ajv's order.
    Invalid(Vec<Issue>),
    /// The schema recursed on the value without end: Ajv's code overflows its stack.
    Recursed,
    /// Ajv's code read a member whose reading threw: the `throws` marker it read.
    Threw(Value),
}

#[cfg(test)]
mod tests {
    //! Ajv's answers for these were taken from Ajv 8.17 + ajv-formats 3 configured as the
    //! TypeScript package configures them (the differential suite in `__test__/` checks many
    //! more against Ajv itself).
    use super::*;
    use serde_json::json;

    fn issues(schema: Value, side: Side, mut value: Value) -> String {
        let validator = Validator::compile(&schema, side).expect("compiles");
        match validator.validate(&mut value) {
            Ok(()) => "valid".into(),
            Err(Invalid::Issues(issues)) => issues_json(&issues),
            Err(Invalid::Recursion) => "recursion".into(),
        }
    }

    fn refusal(schema: Value, side: Side) -> String {
        match Validator::compile(&schema, side) {
            Ok(_) => "compiled".into(),
            Err(error) => error.to_string(),
        }
    }

    #[test]
    fn keyword_groups_run_in_ajvs_order() {
        // additionalProperties runs before properties; required before both.
        assert_eq!(
            issues(
                json!({"type": "object", "properties": {"a": {"type": "number", "minimum": 3}}, "additionalProperties": false, "required": ["a"]}),
                Side::Output,
                json!({"a": 1, "c": 2})
            ),
            r##"[{"instancePath":"","schemaPath":"#/additionalProperties","keyword":"additionalProperties","params":{"additionalProperty":"c"},"message":"must NOT have additional properties"},{"instancePath":"/a","schemaPath":"#/properties/a/minimum","keyword":"minimum","params":{"comparison":">=","limit":3},"message":"must be >= 3"}]"##
        );
        // A single type with rules of its group reports the type error in that group's place.
        assert_eq!(
            issues(
                json!({"type": "number", "minimum": 2, "enum": [5]}),
                Side::Output,
                json!("x")
            ),
            r##"[{"instancePath":"","schemaPath":"#/enum","keyword":"enum","params":{"allowedValues":[5]},"message":"must be equal to one of the allowed values"},{"instancePath":"","schemaPath":"#/type","keyword":"type","params":{"type":"number"},"message":"must be number"}]"##
        );
        // integer has no group: its type error comes first, and number keywords still run.
        assert_eq!(
            issues(
                json!({"type": "integer", "minimum": 2}),
                Side::Output,
                json!(1.5)
            ),
            r##"[{"instancePath":"","schemaPath":"#/type","keyword":"type","params":{"type":"integer"},"message":"must be integer"},{"instancePath":"","schemaPath":"#/minimum","keyword":"minimum","params":{"comparison":">=","limit":2},"message":"must be >= 2"}]"##
        );
    }

    #[test]
    fn composites_keep_and_drop_branch_errors_like_ajv() {
        assert_eq!(
            issues(
                json!({"anyOf": [{"type": "string"}, {"type": "number"}]}),
                Side::Output,
                json!(null)
            ),
            r##"[{"instancePath":"","schemaPath":"#/anyOf/0/type","keyword":"type","params":{"type":"string"},"message":"must be string"},{"instancePath":"","schemaPath":"#/anyOf/1/type","keyword":"type","params":{"type":"number"},"message":"must be number"},{"instancePath":"","schemaPath":"#/anyOf","keyword":"anyOf","params":{},"message":"must match a schema in anyOf"}]"##
        );
        // Once two oneOf branches pass, Ajv runs no more of them.
        assert_eq!(
            issues(
                json!({"oneOf": [true, true, false]}),
                Side::Output,
                json!(1)
            ),
            r##"[{"instancePath":"","schemaPath":"#/oneOf","keyword":"oneOf","params":{"passingSchemas":[0,1]},"message":"must match exactly one schema in oneOf"}]"##
        );
        assert_eq!(
            issues(
                json!({"type": "object", "propertyNames": {"type": "string", "maxLength": 2}}),
                Side::Output,
                json!({"abc": 1, "de": 2})
            ),
            r##"[{"instancePath":"","schemaPath":"#/propertyNames/maxLength","keyword":"maxLength","params":{"limit":2},"message":"must NOT have more than 2 characters","propertyName":"abc"},{"instancePath":"","schemaPath":"#/propertyNames","keyword":"propertyNames","params":{"propertyName":"abc"},"message":"property name must be valid"}]"##
        );
    }

    #[test]
    fn unique_items_reports_the_pair_ajv_finds() {
        let with_types = json!({"type": "array", "uniqueItems": true, "items": {"type": "number"}});
        assert!(issues(with_types, Side::Output, json!([1, 2, 1]))
            .contains(r#""params":{"i":0,"j":2}"#));
        let without = json!({"type": "array", "uniqueItems": true});
        assert!(
            issues(without, Side::Output, json!([1, 2, 1])).contains(r#""params":{"i":2,"j":0}"#)
        );
    }

    #[test]
    fn refs_inline_with_the_ref_as_path_or_call_from_the_root() {
        let schema = json!({"$defs": {"s": {"type": "string"}}, "type": "object", "properties": {"a": {"$ref": "#/$defs/s"}}});
        assert!(issues(schema, Side::Output, json!({"a": 1}))
            .contains(r##""schemaPath":"#/$defs/s/type""##));
        // A chain of pure references resolves to its end, reported under the first hop.
        let chain = json!({"$defs": {"a": {"type": "integer"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/b"});
        assert!(
            issues(chain, Side::Output, json!("a")).contains(r##""schemaPath":"#/$defs/b/type""##)
        );
        // A recursive target is its own function: paths start again at #.
        let recursive = json!({"$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}, "v": {"type": "string"}}}}, "$ref": "#/$defs/n"});
        assert!(
            issues(recursive, Side::Output, json!({"v": 1, "next": {"v": 2}}))
                .contains(r##""instancePath":"/next/v","schemaPath":"#/properties/v/type""##)
        );
        assert_eq!(
            issues(json!({"$ref": "#"}), Side::Output, json!(1)),
            "recursion"
        );
    }

    #[test]
    fn defaults_are_listed_as_json_text() {
        let defaults = vec![
            DefaultApplied {
                pointer: String::new(),
                key: "n".into(),
                value: json!(1),
            },
            DefaultApplied {
                pointer: "/a~1b/0".into(),
                key: "q\"\u{2028}".into(),
                value: json!({"2": [null, 1.5e300, "x"], "1": {}}),
            },
        ];
        // What `JSON.stringify` writes for the list of `[pointer, key, value]`.
        let list: Vec<Value> = defaults
            .iter()
            .map(|d| json!([d.pointer, d.key, d.value]))
            .collect();
        let expected = crate::json::to_js_json(&Value::Array(list));
        assert_eq!(defaults_json(&defaults), expected);
        assert_eq!(defaults_json(&[]), "[]");
    }

    #[test]
    fn evaluated_properties_are_tracked_only_where_read() {
        // No `unevaluated*` keyword: no run keeps evaluated-tracking variables.
        let plain = json!({"$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}}}}, "$ref": "#/$defs/n"});
        let validator = Validator::compile(&plain, Side::Output).expect("compiles");
        assert!(!validator.program.reads_evaluated);
        // What `anyOf` evaluated is known only at run time: those variables are read.
        let any_of = json!({"type": "object", "anyOf": [{"properties": {"a": {"type": "string"}}, "required": ["a"]}, {"properties": {"b": {"type": "number"}}, "required": ["b"]}], "unevaluatedProperties": false});
        let validator = Validator::compile(&any_of, Side::Output).expect("compiles");
        assert!(validator.program.reads_evaluated);
        // Its issues name the property left unevaluated.
        let reports = |schema: &Value, value: Value, unevaluated: &str| {
            let found = issues(schema.clone(), Side::Output, value);
            assert!(
                found.contains(&format!(
                    r#""params":{{"unevaluatedProperty":"{unevaluated}"}}"#
                )),
                "{found}"
            );
        };
        assert_eq!(
            issues(any_of.clone(), Side::Output, json!({"a": "x", "b": 1})),
            "valid"
        );
        reports(&any_of, json!({"a": 1, "b": 2}), "a");
        reports(&any_of, json!({"a": "x", "c": 1}), "c");
        // Through a recursive call: what the called function evaluated comes back to its caller.
        let recursive = json!({"$defs": {"n": {"type": "object", "properties": {"v": {"type": "string"}}, "anyOf": [{"properties": {"next": {"$ref": "#/$defs/n"}}, "required": ["next"]}, {"properties": {"end": {"type": "boolean"}}}], "unevaluatedProperties": false}}, "$ref": "#/$defs/n"});
        assert_eq!(
            issues(
                recursive.clone(),
                Side::Output,
                json!({"v": "a", "next": {"end": true}})
            ),
            "valid"
        );
        reports(
            &recursive,
            json!({"v": "a", "next": {"end": true, "z": 1}}),
            "next",
        );
        reports(
            &recursive,
            json!({"next": {"next": {"end": true}}, "w": 1}),
            "w",
        );
    }

    #[test]
    fn input_side_fills_defaults_before_the_object_keywords() {
        let schema = json!({"type": "object", "properties": {"a": {"default": 1}, "b": {"type": "object", "properties": {"c": {"default": "x"}}, "default": {}}}, "required": ["a"]});
        let validator = Validator::compile(&schema, Side::Input).expect("compiles");
        let mut value = json!({});
        assert_eq!(validator.validate(&mut value), Ok(()));
        assert_eq!(value, json!({"a": 1, "b": {"c": "x"}}));
        let output = Validator::compile(&schema, Side::Output).expect("compiles");
        assert!(
            output.validate(&mut json!({})).is_err(),
            "no defaults on the output side"
        );
    }

    #[test]
    fn refuses_what_ajv_strict_mode_refuses() {
        assert_eq!(
            refusal(json!({"type": "string", "example": 1}), Side::Output),
            "Error: strict mode: unknown keyword: \"example\""
        );
        assert_eq!(
            refusal(json!({"properties": {"a": {}}}), Side::Output),
            "Error: strict mode: missing type \"object\" for keyword \"properties\" at \"#\" (strictTypes)"
        );
        assert_eq!(
            refusal(json!({"type": "object", "required": ["b"]}), Side::Output),
            "Error: strict mode: required property \"b\" is not defined at \"#\" (strictRequired)"
        );
        assert_eq!(
            refusal(json!({"type": "no-such-type"}), Side::Output),
            "Error: schema is invalid: data/type must be equal to one of the allowed values, data/type must be array, data/type must match a schema in anyOf"
        );
        assert_eq!(
            refusal(
                json!({"anyOf": [{"type": "object", "properties": {"x": {"type": "object", "properties": {"a": {"default": 1}}}}}]}),
                Side::Input
            ),
            "Error: strict mode: default is ignored for: data0.a"
        );
        assert_eq!(
            refusal(json!({"default": 1}), Side::Input),
            "compiled",
            "no rules: no root-default check"
        );
        assert_eq!(
            refusal(json!({"type": "number", "default": 1}), Side::Input),
            "Error: strict mode: default is ignored in the schema root"
        );
        assert_eq!(refusal(json!({"default": 1}), Side::Output), "compiled");
        assert_eq!(
            refusal(
                json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/nope"}}}),
                Side::Output
            ),
            "Error: can't resolve reference #/$defs/nope from id #"
        );
    }

    /// Data the schema recurses on, deeper than the caller's stack holds, is left to a deep
    /// stack, which judges it to `json::MAX_DEPTH` levels; recursion on one value is Ajv's
    /// overflow on any stack.
    #[test]
    fn deep_recursion_moves_to_a_deep_stack() {
        use crate::json::{on_deep_stack, parse_borrowed_on, MAX_DEPTH};
        let schema = json!({"type": "array", "items": {"$ref": "#"}, "maxItems": 1});
        let validator = Validator::compile(&schema, Side::Input).expect("compiles");
        let nested = |depth: usize| "[".repeat(depth) + &"]".repeat(depth);
        let judged = |depth: usize, stack: Stack| {
            let text = nested(depth);
            let mut tree = parse_borrowed_on(&text, Stack::Deep).expect("JSON");
            validator
                .validate_recording_defaults_on(&mut tree, stack)
                .map(|result| result.is_ok())
        };
        let on_deep = |depth: usize| on_deep_stack(move || judged(depth, Stack::Deep));
        // Two schemas a level: the caller's 700 hold 350 levels.
        assert_eq!(
            on_deep(350).map(|_| judged(350, Stack::Caller)),
            Some(Some(true))
        );
        assert_eq!(on_deep(351).map(|_| judged(351, Stack::Caller)), Some(None));
        assert_eq!(on_deep(MAX_DEPTH), Some(Some(true)));
        let recursing = Validator::compile(&json!({"$ref": "#"}), Side::Input).expect("compiles");
        let runaway = on_deep_stack(move || {
            recursing.validate_recording_defaults_on(&mut json!([]), Stack::Deep)
        });
        assert_eq!(runaway, Some(Some(Err(Invalid::Recursion))));
    }

    /// Marked text is read and judged as deep as `json::MAX_DEPTH`, past serde_json's 127
    /// levels; deeper, it is not JSON in serde_json's words.
    #[test]
    fn marked_text_is_judged_at_any_depth_up_to_the_limit() {
        use crate::json::MAX_DEPTH;
        let validator = Validator::compile(
            &json!({"type": "array", "items": {"$ref": "#"}, "maxItems": 1}),
            Side::Output,
        )
        .expect("compiles");
        let nested = |depth: usize| "[".repeat(depth) + &"]".repeat(depth);
        for depth in [1, 127, 128, 1_000, MAX_DEPTH] {
            let judged = validator
                .judge_marked(&nested(depth))
                .map(|(judged, _)| judged);
            assert_eq!(judged.ok(), Some(Judged::Valid(Vec::new())), "{depth}");
        }
        let two = "[".repeat(400) + "[],[]" + &"]".repeat(400);
        match validator.judge_marked(&two) {
            Ok((Judged::Invalid(issues), false)) => {
                assert!(issues_json(&issues)
                    .contains(&format!(r#""instancePath":"{}""#, "/0".repeat(399))))
            }
            other => panic!("{other:?}"),
        }
        let refused = validator.judge_marked(&nested(MAX_DEPTH + 1)).map(|_| ());
        assert!(refused.is_err_and(|e| e.to_string().starts_with("recursion limit exceeded")));
        let marked = r#"[{"\u0000js": "throws", "i": 0}]"#;
        let reads = Validator::compile(
            &json!({"type": "array", "items": {"type": "object"}}),
            Side::Output,
        )
        .expect("compiles");
        assert!(matches!(
            reads.judge_marked(marked),
            Ok((Judged::Threw(_), false))
        ));
    }
}

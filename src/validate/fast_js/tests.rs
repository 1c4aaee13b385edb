//! What the fast path writes, and which schemas it leaves to the validator.
use crate::validate::{Side, Validator};
use serde_json::{json, Value};

fn body(schema: Value, side: Side) -> Option<String> {
    Validator::compile(&schema, side)
        .expect("compiles")
        .fast_js()
}

#[test]
fn common_keywords_are_written() {
    let written = body(
        json!({"type": "object", "required": ["id"], "additionalProperties": false,
               "properties": {"id": {"type": "string", "format": "uuid"},
                              "n": {"type": "integer", "minimum": 1, "default": 3},
                              "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "uniqueItems": true},
                              "at": {"type": "string", "format": "date-time"},
                              "one": {"oneOf": [{"type": "string"}, {"type": "number"}]}}}),
        Side::Input,
    )
    .expect("a fast path");
    // uuid is one regular expression, ajv-formats' with its counted classes written out;
    // date-time is a function, run by `formatter`.
    assert!(written.contains(r#"new RegExp("^(?:urn:uuid:)?[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-"#));
    assert!(written.contains(r#"formatter("date-time")"#));
    assert!(written.contains(r#"if (v["n"] === undefined) v["n"] = (3);"#));
    assert!(written.contains(r#"uniqueScalars(v, 8)"#) || written.contains("unique(v)"));
    assert!(written.contains("++passed === 2"));
}

#[test]
fn keywords_without_a_fast_form_leave_the_schema_to_the_validator() {
    for schema in [
        json!({"type": "object", "unevaluatedProperties": false, "properties": {"a": true}}),
        json!({"$dynamicAnchor": "n", "type": "object"}),
        json!({"type": "string", "format": "date", "formatMinimum": "2020-01-01"}),
    ] {
        assert_eq!(body(schema.clone(), Side::Output), None, "{schema}");
    }
}

#[test]
fn a_subschema_applied_to_its_own_value_forever_has_no_fast_path() {
    assert_eq!(
        body(
            json!({"anyOf": [{"type": "string"}, {"$ref": "#"}]}),
            Side::Output
        ),
        None
    );
    // Recursion through the data is bounded by the data: written.
    assert!(body(
        json!({"type": "object", "properties": {"child": {"$ref": "#"}}}),
        Side::Output
    )
    .is_some());
}

#[test]
fn defaults_reached_from_a_branch_that_may_fail_have_no_fast_path() {
    let schema = json!({
        "$defs": {"d": {"type": "object", "properties": {"a": {"default": 1}, "d": {"$ref": "#/$defs/d"}}}},
        "anyOf": [{"$ref": "#/$defs/d"}, {"type": "string"}]
    });
    assert_eq!(body(schema.clone(), Side::Input), None);
    // The output side fills nothing: written.
    assert!(body(schema, Side::Output).is_some());
}

#[test]
fn literals_make_members_named_proto() {
    let mut out = String::new();
    super::write_literal(
        &mut out,
        &json!({"__proto__": {"a": [1, -0.5, "x"]}, "b": null}),
    );
    assert_eq!(out, r#"{["__proto__"]:{"a":[(1),(-0.5),"x"]},"b":null}"#);
}

#[test]
fn patterns_naming_surrogates_leave_lone_ones_to_the_validator() {
    assert!(super::names_surrogates(r"^[\ud800-\udfff]$"));
    assert!(super::names_surrogates(r"^\u{DC00}$"));
    assert!(!super::names_surrogates(r"^\u00e9+$"));
    assert!(!super::names_surrogates("^[a-z]+$"));
    let written = body(
        json!({"type": "string", "pattern": "^\\ud83d"}),
        Side::Output,
    )
    .expect("a fast path");
    assert!(written.contains("wellFormed(v) &&"), "{written}");
}

#[test]
fn only_called_nodes_get_a_function() {
    let written = body(
        json!({"type": "object", "properties": {
            "id": {"type": "string", "minLength": 1},
            "tags": {"type": "array", "items": {"type": "string"}},
            "kid": {"$ref": "#"}}}),
        Side::Output,
    )
    .expect("a fast path");
    // The root, `tags` and `kid`; `id` and `tags`' items are written in place.
    assert_eq!(written.matches("function n").count(), 3, "{written}");
    assert!(written.contains("return n0;"), "{written}");
}

#[test]
fn type_groups_with_nothing_to_check_are_not_written() {
    for schema in [
        json!({"type": ["object", "null"], "properties": {"a": true}}),
        json!({"type": ["array", "null"], "items": true}),
        json!({"type": ["string", "null"], "format": "password"}),
        json!({"type": ["string", "null"], "format": "int32"}),
    ] {
        let written = body(schema.clone(), Side::Output).expect("a fast path");
        assert!(!written.contains("if (k ==="), "{schema}: {written}");
    }
    // A group with something to check is still written.
    let written = body(
        json!({"type": ["object", "null"], "required": ["a"], "properties": {"a": true}}),
        Side::Output,
    )
    .expect("a fast path");
    assert!(written.contains("if (k === 32) {"), "{written}");
}

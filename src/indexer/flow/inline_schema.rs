//! `@kindgi/schema`'s `compileInlineSchema`, which the loader runs on every output schema: a
//! fresh Ajv 2020 (strict, allErrors, allowUnionTypes, ajv-formats) that also knows the
//! annotation keyword `x-kindgi-tunable`. `crate::validate` compiles as that Ajv does except
//! for the annotation, which its strict mode would call an unknown keyword; Ajv reads nothing
//! from a keyword added without a definition (no rule, no type, no subschema), so dropping it
//! from every schema object first gives Ajv's answer.

use crate::validate::{Side, Validator};
use serde_json::Value;

/// Keywords Kindgi reads off a schema that validate nothing.
const ANNOTATIONS: [&str; 1] = ["x-kindgi-tunable"];

/// Keywords whose value is a subschema.
const ONE_SCHEMA: [&str; 11] = [
    "additionalProperties",
    "propertyNames",
    "items",
    "contains",
    "if",
    "then",
    "else",
    "not",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contentSchema",
];

/// Keywords whose value maps names to subschemas (`dependencies` also holds arrays of names,
/// which are left alone).
const SCHEMA_MAPS: [&str; 6] = [
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
    "dependencies",
];

/// Keywords whose value is a list of subschemas.
const SCHEMA_LISTS: [&str; 4] = ["allOf", "anyOf", "oneOf", "prefixItems"];

/// Ajv's message when `schema` does not compile (the thrown error's `message`), else `None`.
pub(super) fn compile_error(schema: &Value) -> Option<String> {
    let result = if mentions_annotation(schema) {
        let mut plain = schema.clone();
        drop_annotations(&mut plain);
        Validator::compile(&plain, Side::Output)
    } else {
        Validator::compile(schema, Side::Output)
    };
    result.err().map(|error| error.message)
}

/// Why an output schema does not compile, as Ajv says it.
pub(super) fn schema_problem(schema: Option<&Value>) -> Option<String> {
    compile_error(schema.unwrap_or(&Value::Null))
}

/// Whether any object in `value` has an annotation key (a cheap test before copying).
fn mentions_annotation(value: &Value) -> bool {
    match value {
        Value::Object(map) => map
            .iter()
            .any(|(key, v)| ANNOTATIONS.contains(&key.as_str()) || mentions_annotation(v)),
        Value::Array(list) => list.iter().any(mentions_annotation),
        _ => false,
    }
}

/// Removes the annotations from `schema` and every subschema in it, keeping key order (Ajv
/// reports the first unknown keyword in key order). Values that are data (`const`, `enum`,
/// `default`, `examples`) are not schemas and keep theirs.
fn drop_annotations(schema: &mut Value) {
    let Value::Object(map) = schema else {
        return;
    };
    for annotation in ANNOTATIONS {
        map.shift_remove(annotation);
    }
    for keyword in ONE_SCHEMA {
        if let Some(sub) = map.get_mut(keyword) {
            drop_annotations(sub);
        }
    }
    for keyword in SCHEMA_MAPS {
        if let Some(Value::Object(subs)) = map.get_mut(keyword) {
            subs.values_mut().for_each(drop_annotations);
        }
    }
    for keyword in SCHEMA_LISTS {
        if let Some(Value::Array(subs)) = map.get_mut(keyword) {
            subs.iter_mut().for_each(drop_annotations);
        }
    }
}

//! The class of schemas a `jsonschema` fast path could serve: none of the keywords or names on
//! which its verdicts were seen to differ from Ajv's.

use serde_json::Value;

/// Keywords whose verdicts differ: `unevaluated*` (Ajv's code generator, not the
/// specification), `$dynamicRef` (Ajv's own rule), `multipleOf` (Ajv divides in floating point).
const EXCLUDED_KEYWORDS: &[&str] = &[
    "unevaluatedProperties",
    "unevaluatedItems",
    "$dynamicRef",
    "$dynamicAnchor",
    "multipleOf",
];

/// ajv-formats' number formats: the crate's custom-format API checks strings only.
const NUMBER_FORMATS: &[&str] = &["int32", "int64", "float", "double"];

/// Names every JavaScript object answers through `Object.prototype` (and `__proto__`): Ajv's
/// `properties`, `required` and the like see them as present in any object.
const PROTOTYPE_NAMES: &[&str] = &[
    "toString",
    "constructor",
    "hasOwnProperty",
    "__proto__",
    "valueOf",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "toLocaleString",
    "__defineGetter__",
    "__defineSetter__",
    "__lookupGetter__",
    "__lookupSetter__",
];

/// Whether `schema` is in the class: no excluded keyword, no number format, and no
/// `Object.prototype` name anywhere in it (as a key or a string).
pub fn in_class(schema: &Value) -> bool {
    match schema {
        Value::String(s) => !PROTOTYPE_NAMES.contains(&s.as_str()),
        Value::Array(items) => items.iter().all(in_class),
        Value::Object(map) => map.iter().all(|(key, value)| {
            let excluded = EXCLUDED_KEYWORDS.contains(&key.as_str())
                || PROTOTYPE_NAMES.contains(&key.as_str())
                || (key == "format" && value.as_str().is_some_and(|f| NUMBER_FORMATS.contains(&f)));
            !excluded && in_class(value)
        }),
        _ => true,
    }
}

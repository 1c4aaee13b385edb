//! Ajv's keyword tables: every keyword it knows, the group its code runs in, the data types it
//! applies to, and the order of the groups and of the keywords inside each.

use super::program::{DataType, Group};

/// Every keyword with a rule in Ajv 2020 (with ajv-formats), in registration order, with the
/// group its code runs in (`None`: no code) and the data types it applies to (for strictTypes).
pub const RULES: &[(&str, Option<Group>, &[DataType])] = &[
    ("$dynamicAnchor", Some(Group::Any), &[]),
    ("$dynamicRef", Some(Group::Any), &[]),
    ("$recursiveAnchor", Some(Group::Any), &[]),
    ("$recursiveRef", Some(Group::Any), &[]),
    ("$comment", None, &[]),
    ("id", Some(Group::Any), &[]),
    ("$ref", Some(Group::Any), &[]),
    ("maximum", Some(Group::Number), &[DataType::Number]),
    ("minimum", Some(Group::Number), &[DataType::Number]),
    ("exclusiveMaximum", Some(Group::Number), &[DataType::Number]),
    ("exclusiveMinimum", Some(Group::Number), &[DataType::Number]),
    ("multipleOf", Some(Group::Number), &[DataType::Number]),
    ("maxLength", Some(Group::String), &[DataType::String]),
    ("minLength", Some(Group::String), &[DataType::String]),
    ("pattern", Some(Group::String), &[DataType::String]),
    ("maxProperties", Some(Group::Object), &[DataType::Object]),
    ("minProperties", Some(Group::Object), &[DataType::Object]),
    ("required", Some(Group::Object), &[DataType::Object]),
    ("maxItems", Some(Group::Array), &[DataType::Array]),
    ("minItems", Some(Group::Array), &[DataType::Array]),
    ("uniqueItems", Some(Group::Array), &[DataType::Array]),
    ("type", None, &[]),
    ("nullable", None, &[]),
    ("const", Some(Group::Any), &[]),
    ("enum", Some(Group::Any), &[]),
    ("not", Some(Group::Any), &[]),
    ("anyOf", Some(Group::Any), &[]),
    ("oneOf", Some(Group::Any), &[]),
    ("allOf", Some(Group::Any), &[]),
    ("if", Some(Group::Any), &[]),
    ("then", Some(Group::Any), &[]),
    ("else", Some(Group::Any), &[]),
    ("propertyNames", Some(Group::Object), &[DataType::Object]),
    (
        "additionalProperties",
        Some(Group::Object),
        &[DataType::Object],
    ),
    ("dependencies", Some(Group::Object), &[DataType::Object]),
    ("properties", Some(Group::Object), &[DataType::Object]),
    (
        "patternProperties",
        Some(Group::Object),
        &[DataType::Object],
    ),
    ("prefixItems", Some(Group::Array), &[DataType::Array]),
    ("items", Some(Group::Array), &[DataType::Array]),
    ("contains", Some(Group::Array), &[DataType::Array]),
    (
        "format",
        Some(Group::Number),
        &[DataType::Number, DataType::String],
    ),
    (
        "dependentRequired",
        Some(Group::Object),
        &[DataType::Object],
    ),
    ("dependentSchemas", Some(Group::Object), &[DataType::Object]),
    ("maxContains", Some(Group::Array), &[DataType::Array]),
    ("minContains", Some(Group::Array), &[DataType::Array]),
    (
        "unevaluatedProperties",
        Some(Group::Object),
        &[DataType::Object],
    ),
    ("unevaluatedItems", Some(Group::Array), &[DataType::Array]),
    ("formatMaximum", Some(Group::String), &[DataType::String]),
    ("formatMinimum", Some(Group::String), &[DataType::String]),
    (
        "formatExclusiveMaximum",
        Some(Group::String),
        &[DataType::String],
    ),
    (
        "formatExclusiveMinimum",
        Some(Group::String),
        &[DataType::String],
    ),
];

/// Keywords Ajv knows without a rule (they configure or annotate): they neither make a schema
/// "have rules" nor run.
const PLAIN_KEYWORDS: &[&str] = &[
    "$async",
    "$schema",
    "$id",
    "$defs",
    "$vocabulary",
    "definitions",
    "title",
    "description",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
    "examples",
    "contentMediaType",
    "contentEncoding",
    "contentSchema",
];

/// The order in which keywords run inside each group (`format` runs in both the number and the
/// string group; the array and object groups have `before` insertions applied).
pub const GROUP_ORDER: &[(Group, &[&str])] = &[
    (
        Group::Any,
        &[
            "$dynamicAnchor",
            "$dynamicRef",
            "$recursiveAnchor",
            "$recursiveRef",
            "id",
            "$ref",
            "const",
            "enum",
            "not",
            "anyOf",
            "oneOf",
            "allOf",
            "if",
            "then",
            "else",
        ],
    ),
    (
        Group::Number,
        &[
            "maximum",
            "minimum",
            "exclusiveMaximum",
            "exclusiveMinimum",
            "multipleOf",
            "format",
        ],
    ),
    (
        Group::String,
        &[
            "maxLength",
            "minLength",
            "pattern",
            "format",
            "formatMaximum",
            "formatMinimum",
            "formatExclusiveMaximum",
            "formatExclusiveMinimum",
        ],
    ),
    (
        Group::Array,
        &[
            "maxItems",
            "minItems",
            "prefixItems",
            "items",
            "contains",
            "uniqueItems",
            "maxContains",
            "minContains",
            "unevaluatedItems",
        ],
    ),
    (
        Group::Object,
        &[
            "maxProperties",
            "minProperties",
            "required",
            "propertyNames",
            "additionalProperties",
            "dependencies",
            "properties",
            "patternProperties",
            "dependentRequired",
            "dependentSchemas",
            "unevaluatedProperties",
        ],
    ),
];

pub fn is_known_keyword(key: &str) -> bool {
    PLAIN_KEYWORDS.contains(&key) || RULES.iter().any(|(k, _, _)| *k == key)
}

pub fn has_rule(key: &str) -> bool {
    RULES.iter().any(|(k, _, _)| *k == key)
}

//! Names the cause of a disagreement: the keyword behind a verdict, the class of a refusal.

use serde_json::Value;

/// Keywords that only report that a subschema failed: the cause is the keyword under them.
const WRAPPERS: &[&str] = &[
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "$ref",
    "propertyNames",
    "dependentSchemas",
    "contains",
];

/// Keywords whose semantics are known to differ between Ajv and the crate: a schema path through
/// one of them names it as the cause (the one nearest the failing leaf wins).
const NOTABLE: &[&str] = &[
    "unevaluatedProperties",
    "unevaluatedItems",
    "patternProperties",
    "pattern",
    "format",
    "multipleOf",
];

/// Property names every JavaScript object has through `Object.prototype`: Ajv's `properties`
/// and `required` see them as present where JSON has no such member.
const PROTOTYPE_NAMES: &[&str] = &[
    "toString",
    "constructor",
    "hasOwnProperty",
    "__proto__",
    "valueOf",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "toLocaleString",
];

fn segments(path: &str) -> impl DoubleEndedIterator<Item = &str> {
    path.trim_start_matches('#')
        .split('/')
        .filter(|s| !s.is_empty())
}

/// The schema path that decided a verdict: the first of `paths` not ending in a wrapper.
pub fn deciding_path(paths: &[String]) -> Option<&str> {
    paths
        .iter()
        .find(|p| {
            segments(p)
                .last()
                .is_some_and(|leaf| !WRAPPERS.contains(&leaf))
        })
        .or_else(|| paths.first())
        .map(String::as_str)
}

/// The group a verdict disagreement is counted in: what the schema or value is known to differ
/// on (`$dynamicRef`, JavaScript's object names), else the keyword on the deciding schema path.
pub fn verdict_group(path: Option<&str>, schema: &Value, value: &Value) -> String {
    if mentions_key(schema, "$dynamicRef") {
        return "$dynamicRef: Ajv's non-standard resolution".into();
    }
    if mentions_prototype_name(schema) || mentions_prototype_name(value) {
        return "JavaScript objects: Object.prototype names and own __proto__".into();
    }
    let Some(path) = path else {
        return "(no error reported)".into();
    };
    let keyword = segments(path)
        .rev()
        .find(|s| NOTABLE.contains(s))
        .or_else(|| segments(path).last())
        .unwrap_or("(root)");
    let group = match keyword {
        "pattern" | "patternProperties" => "regex dialect (pattern, patternProperties)",
        "format" => "formats",
        "unevaluatedProperties" | "unevaluatedItems" => "unevaluated*",
        "multipleOf" => "multipleOf: Ajv divides in floating point (x / m !== parseInt(x / m))",
        other => return format!("keyword {other}"),
    };
    group.into()
}

fn mentions_key(value: &Value, key: &str) -> bool {
    match value {
        Value::Array(items) => items.iter().any(|v| mentions_key(v, key)),
        Value::Object(map) => map.iter().any(|(k, v)| k == key || mentions_key(v, key)),
        _ => false,
    }
}

fn mentions_prototype_name(value: &Value) -> bool {
    match value {
        Value::String(s) => PROTOTYPE_NAMES.contains(&s.as_str()),
        Value::Array(items) => items.iter().any(mentions_prototype_name),
        Value::Object(map) => map
            .iter()
            .any(|(k, v)| PROTOTYPE_NAMES.contains(&k.as_str()) || mentions_prototype_name(v)),
        _ => false,
    }
}

/// The class of a refusal by Ajv (`Name: message`), as its strict mode names them.
pub fn ajv_refusal_group(error: &str) -> String {
    let classes: &[(&str, &str)] = &[
        ("(strictTypes)", "strict mode: strictTypes"),
        ("(strictRequired)", "strict mode: strictRequired"),
        ("(strictTuples)", "strict mode: strictTuples"),
        ("-tuple, but minItems", "strict mode: strictTuples"),
        ("without \"if\"", "strict mode: if/then/else ignored"),
        (
            "without \"then\" and \"else\"",
            "strict mode: if/then/else ignored",
        ),
        ("\"minContains\" == 0", "strict mode: contains ignored"),
        (
            "allowMatchingProperties",
            "strict mode: property matches a pattern",
        ),
        (
            "only supports hash fragment",
            "$dynamicRef: Ajv takes only fragments",
        ),
        (
            "resolves to more than one schema",
            "$id in an unknown keyword",
        ),
        ("must have non-empty array", "keyword value (empty enum)"),
        ("unknown keyword", "strict mode: unknown keyword"),
        ("unknown format", "strict mode: unknown format"),
        ("default is ignored", "strict mode: default ignored"),
        (
            "can't resolve reference",
            "unresolvable $ref (no remotes registered)",
        ),
        ("schema is invalid", "meta-schema check"),
        ("Invalid regular expression", "regex refused by V8"),
        ("no schema with key or ref", "$schema not known to Ajv 2020"),
        ("RangeError", "Ajv's stack overflow"),
    ];
    classes
        .iter()
        .find(|(needle, _)| error.contains(needle))
        .map_or_else(
            || format!("other: {}", shorten(error, 60)),
            |(_, group)| (*group).into(),
        )
}

/// The class of a refusal by the `jsonschema` crate: its message up to the first quote or
/// colon (what follows names the place).
pub fn jsonschema_refusal_group(error: &str) -> String {
    let head = error.split(['\'', '"', ':']).next().unwrap_or(error).trim();
    shorten(head, 70)
}

/// `text` cut to `max` characters, marked when cut.
pub fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.into();
    }
    let cut: String = text.chars().take(max).collect();
    format!("{cut}…")
}

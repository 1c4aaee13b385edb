//! Randomized schemas and values through the validator: whatever a pack's index holds, the
//! compiler either accepts the schema or refuses it with an error, and a compiled schema
//! answers every value the same way twice, with issues that are JSON. A panic here would be a
//! crashed pack service (schemas come from the index, values from callers and handlers).
//!
//! The differential suite in `__test__/` checks the answers themselves against Ajv; this one
//! looks for inputs that break the validator at all.

mod common;

use common::random::Rng;
use kindgi_handler_runtime_native::json::parse_borrowed;
use kindgi_handler_runtime_native::validate::{issues_json, Invalid, Side, Validator};
use serde_json::{json, Map, Value};

/// Member names shared by schemas and values, so that `properties`, `required` and the like
/// meet the values they talk about (`__proto__` and `constructor` are special to JavaScript).
const NAMES: &[&str] = &["a", "b", "x", "1", "", "__proto__", "constructor", "é"];

const PATTERNS: &[&str] = &[
    "^a+$",
    "a",
    "^[0-9]{2,3}$",
    "\\d",
    "\\p{L}",
    "(?<n>x)\\k<n>",
    "^$",
    "[",
    "(",
    "a{2,1}",
    "\\",
    "(?=a)",
    "(?<!b)c",
    "[\\w-]",
    "\\u{1F600}",
    "^.$",
    "*",
    "\\cJ",
];

const FORMATS: &[&str] = &[
    "date",
    "time",
    "date-time",
    "duration",
    "uri",
    "uri-reference",
    "uri-template",
    "url",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "regex",
    "uuid",
    "json-pointer",
    "relative-json-pointer",
    "byte",
    "int32",
    "int64",
    "float",
    "double",
    "password",
    "binary",
    "iso-time",
    "iso-date-time",
    "unknown-format",
    "toString",
];

const STRINGS: &[&str] = &[
    "",
    "a",
    "aa",
    "hello",
    "12",
    "2020-02-29",
    "2021-02-29",
    "23:59:60Z",
    "2020-01-01T00:00:00Z",
    "P1D",
    "x@y.z",
    "192.168.0.1",
    "::1",
    "http://a.b/c?d#e",
    "not a uri",
    "é",
    "\u{1F600}",
    "/a~1b",
    "0/a",
    "aGk=",
    "2147483648",
    "1e3",
    "(",
    "^a+$",
    "550e8400-e29b-41d4-a716-446655440000",
];

const NUMBERS: &[f64] = &[
    0.0,
    -0.0,
    1.0,
    -1.0,
    2.0,
    1.5,
    0.1,
    3.0,
    1e308,
    -1e308,
    1e-308,
    9007199254740993.0,
    1e21,
    2147483648.0,
];

fn number(rng: &mut Rng) -> Value {
    if rng.one_in(3) {
        json!(rng.below(20) as i64 - 5)
    } else {
        json!(*rng.pick(NUMBERS))
    }
}

fn value(rng: &mut Rng, depth: usize) -> Value {
    let kinds = if depth == 0 { 5 } else { 7 };
    match rng.below(kinds) {
        0 => Value::Null,
        1 => Value::Bool(rng.one_in(2)),
        2 => number(rng),
        3 | 4 => json!(*rng.pick(STRINGS)),
        5 => Value::Array((0..rng.below(4)).map(|_| value(rng, depth - 1)).collect()),
        _ => Value::Object(
            (0..rng.below(4))
                .map(|_| (rng.pick(NAMES).to_string(), value(rng, depth - 1)))
                .collect(),
        ),
    }
}

/// A count keyword's value: mostly sensible, sometimes what Ajv refuses.
fn count(rng: &mut Rng) -> Value {
    match rng.below(8) {
        0 => json!(-1),
        1 => json!(1.5),
        2 => json!("2"),
        3 => json!(1e20),
        _ => json!(rng.below(4)),
    }
}

/// Up to two schemas (none is what Ajv refuses for `allOf` and its kin).
fn schemas(rng: &mut Rng, depth: usize) -> Value {
    Value::Array((0..rng.below(3)).map(|_| schema(rng, depth)).collect())
}

fn named_schemas(rng: &mut Rng, depth: usize) -> Value {
    Value::Object(
        (0..1 + rng.below(3))
            .map(|_| (rng.pick(NAMES).to_string(), schema(rng, depth)))
            .collect(),
    )
}

const TYPES: &[&str] = &[
    "string", "number", "integer", "object", "array", "boolean", "null",
];

/// One keyword of the family `family` (0 object, 1 array, 2 string, 3 number, else any type).
fn keyword(rng: &mut Rng, family: usize, depth: usize) -> (&'static str, Value) {
    match family {
        0 => match rng.below(11) {
            0 => ("properties", named_schemas(rng, depth)),
            1 => (
                "patternProperties",
                Value::Object(
                    (0..1 + rng.below(2))
                        .map(|_| (rng.pick(PATTERNS).to_string(), schema(rng, depth)))
                        .collect(),
                ),
            ),
            2 => ("additionalProperties", schema(rng, depth)),
            3 => (
                "required",
                Value::Array((0..rng.below(3)).map(|_| json!(*rng.pick(NAMES))).collect()),
            ),
            4 => ("minProperties", count(rng)),
            5 => ("maxProperties", count(rng)),
            6 => (
                "dependentRequired",
                json!({*rng.pick(NAMES): [*rng.pick(NAMES)]}),
            ),
            7 => ("dependentSchemas", named_schemas(rng, depth)),
            8 => ("propertyNames", schema(rng, depth)),
            _ => ("unevaluatedProperties", schema(rng, depth)),
        },
        1 => match rng.below(9) {
            0 | 1 => ("items", schema(rng, depth)),
            2 => ("prefixItems", schemas(rng, depth)),
            3 => ("contains", schema(rng, depth)),
            4 => ("minContains", count(rng)),
            5 => ("maxContains", count(rng)),
            6 => (*rng.pick(&["minItems", "maxItems"]), count(rng)),
            7 => ("uniqueItems", Value::Bool(rng.one_in(2))),
            _ => ("unevaluatedItems", schema(rng, depth)),
        },
        2 => match rng.below(4) {
            0 => (*rng.pick(&["minLength", "maxLength"]), count(rng)),
            1 => ("pattern", json!(*rng.pick(PATTERNS))),
            _ => ("format", json!(*rng.pick(FORMATS))),
        },
        3 => match rng.below(5) {
            0 => (
                "multipleOf",
                if rng.one_in(8) {
                    json!("x")
                } else {
                    number(rng)
                },
            ),
            _ => (
                *rng.pick(&["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]),
                number(rng),
            ),
        },
        _ => match rng.below(14) {
            0 => ("allOf", schemas(rng, depth)),
            1 => ("anyOf", schemas(rng, depth)),
            2 => ("oneOf", schemas(rng, depth)),
            3 => ("not", schema(rng, depth)),
            4 => ("if", schema(rng, depth)),
            5 => (*rng.pick(&["then", "else"]), schema(rng, depth)),
            6 => (
                "$ref",
                json!(*rng.pick(&[
                    "#",
                    "#/$defs/a",
                    "#/$defs/b",
                    "#/properties/a",
                    "#/nope",
                    "other.json",
                    "#a"
                ])),
            ),
            7 => ("$defs", named_schemas(rng, depth)),
            8 => (
                "enum",
                Value::Array((0..rng.below(4)).map(|_| value(rng, 2)).collect()),
            ),
            9 => ("const", value(rng, 2)),
            10 => ("default", value(rng, 2)),
            11 => (
                *rng.pick(&["$anchor", "$dynamicAnchor", "$id"]),
                json!(*rng.pick(&["a", "#a", "https://x.test/s", "b"])),
            ),
            12 => (
                *rng.pick(&["$dynamicRef", "title", "$comment"]),
                json!(*rng.pick(&["#a", "t"])),
            ),
            _ => (
                "type",
                json!([
                    "string",
                    *rng.pick(&["number", "null", "integer", "string", "nope"])
                ]),
            ),
        },
    }
}

/// A schema of up to `depth` levels. Most keep to one type and its keywords, as Ajv's strict
/// mode asks; now and then a keyword of another type or one Ajv does not know is mixed in.
fn schema(rng: &mut Rng, depth: usize) -> Value {
    if depth == 0 || rng.one_in(6) {
        return match rng.below(4) {
            0 => Value::Bool(rng.one_in(2)),
            1 => json!({}),
            _ => json!({"type": *rng.pick(TYPES)}),
        };
    }
    let family = rng.below(6);
    let mut out = Map::new();
    match family {
        0 => out.insert("type".into(), json!("object")),
        1 => out.insert("type".into(), json!("array")),
        2 => out.insert("type".into(), json!("string")),
        3 => out.insert("type".into(), json!(*rng.pick(&["number", "integer"]))),
        _ => None,
    };
    for _ in 0..1 + rng.below(3) {
        let (key, val) = if rng.one_in(12) {
            (
                *rng.pick(&["nonsense", "items", "minLength", "required"]),
                json!(1),
            )
        } else if family < 4 && rng.one_in(3) {
            keyword(rng, 4, depth - 1)
        } else {
            keyword(rng, family, depth - 1)
        };
        out.insert(key.to_owned(), val);
    }
    Value::Object(out)
}

/// One validation's answer, as text, to compare two runs.
fn answer(validator: &Validator, mut instance: Value) -> String {
    match validator.validate(&mut instance) {
        Ok(()) => format!("ok {instance}"),
        Err(Invalid::Recursion) => "recursion".to_owned(),
        Err(Invalid::Issues(issues)) => {
            let text = issues_json(&issues);
            let parsed: Value = serde_json::from_str(&text).expect("issues are JSON");
            assert!(
                parsed.as_array().is_some_and(|a| !a.is_empty()),
                "an invalid value has issues"
            );
            format!("issues {text}")
        }
    }
}

#[test]
fn random_schemas_are_accepted_or_refused_and_answer_every_value() {
    let schemas = common::random::cases(4000);
    let mut refused = 0;
    let mut valid = 0;
    let mut invalid = 0;
    for case in 0..schemas {
        let seed = 0x6b69_6e64_6769 + case as u64;
        let mut rng = Rng::new(seed);
        let schema = schema(&mut rng, 3);
        let side = if rng.one_in(2) {
            Side::Input
        } else {
            Side::Output
        };
        let validator = match Validator::compile(&schema, side) {
            Ok(validator) => validator,
            Err(error) => {
                assert!(!error.message.is_empty(), "seed {seed}: a refusal says why");
                refused += 1;
                continue;
            }
        };
        for _ in 0..6 {
            let instance = value(&mut rng, 3);
            let first = answer(&validator, instance.clone());
            assert_eq!(
                first,
                answer(&validator, instance.clone()),
                "seed {seed}: {schema} on {instance} answered twice differently"
            );
            // The pack service validates a body read into its borrowed tree: the same answer.
            let text = instance.to_string();
            let mut tree = parse_borrowed(&text).expect("JSON reads");
            let borrowed = match validator.validate_recording_defaults(&mut tree) {
                Ok(_) => format!("ok {}", tree.to_value()),
                Err(Invalid::Recursion) => "recursion".to_owned(),
                Err(Invalid::Issues(issues)) => format!("issues {}", issues_json(&issues)),
            };
            assert_eq!(
                borrowed, first,
                "seed {seed}: {schema} on {instance}, borrowed"
            );
            if first.starts_with("ok") {
                valid += 1;
            } else {
                invalid += 1;
            }
        }
    }
    // The generator reaches all three outcomes (a generator that only made refused schemas
    // would test nothing).
    eprintln!("{schemas} schemas: {refused} refused; values: {valid} valid, {invalid} invalid");
    assert!(refused > schemas / 20, "refused {refused}");
    assert!(refused < schemas * 19 / 20, "refused {refused}");
    assert!(
        valid > 1000 && invalid > 1000,
        "valid {valid}, invalid {invalid}"
    );
}

//! The validator on small generated schemas and values: compiling and validating never panic,
//! and give the same answer twice. Hangs are caught by libFuzzer's `-timeout`.

#![no_main]

use arbitrary::{Result, Unstructured};
use kindgi_handler_runtime_native::validate::{Side, Validator};
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Map, Value};

const KEYS: &[&str] = &["a", "b", "", "0", "__proto__", "é"];
const TYPES: &[&str] = &[
    "null", "boolean", "integer", "number", "string", "array", "object",
];
const FORMATS: &[&str] = &[
    "date",
    "time",
    "date-time",
    "duration",
    "uri",
    "uri-reference",
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
    "iri",
    "url",
    "unknown",
];
const PATTERNS: &[&str] = &[
    "^a",
    "b$",
    "[0-9]+",
    "\\p{L}",
    "(a|b)*c",
    "^.{2,4}$",
    "[",
    "\\u{1F600}",
];
const STRINGS: &[&str] = &[
    "",
    "a",
    "ab",
    "2024-02-30",
    "2024-01-01T00:00:00Z",
    "12:00:00+01:00",
    "P1D",
    "x@y.z",
    "::1",
    "1.2.3.4",
    "http://a/b",
    "/a/b",
    "0/a",
    "AAAA",
    "\u{0}",
    "\u{1F600}",
    "😀a",
];

fn pick<'a>(u: &mut Unstructured<'_>, from: &[&'a str]) -> Result<&'a str> {
    u.choose(from).copied()
}

fn number(u: &mut Unstructured<'_>) -> Result<Value> {
    Ok(match u.int_in_range(0..=3)? {
        0 => json!(u.int_in_range(-3i64..=10)?),
        1 => json!(f64::from(u.int_in_range(-40i32..=40)?) / 4.0),
        2 => json!(u.arbitrary::<i64>()?),
        _ => serde_json::Number::from_f64(u.arbitrary::<f64>()?).map_or(Value::Null, Value::Number),
    })
}

fn instance(u: &mut Unstructured<'_>, depth: u32) -> Result<Value> {
    let top = if depth == 0 { 4 } else { 6 };
    Ok(match u.int_in_range(0..=top)? {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => number(u)?,
        3 => Value::String(pick(u, STRINGS)?.to_owned()),
        4 => Value::String(u.arbitrary::<String>()?),
        5 => {
            let n = u.int_in_range(0..=3)?;
            Value::Array(
                (0..n)
                    .map(|_| instance(u, depth - 1))
                    .collect::<Result<_>>()?,
            )
        }
        _ => {
            let mut map = Map::new();
            for _ in 0..u.int_in_range(0..=3)? {
                map.insert(pick(u, KEYS)?.to_owned(), instance(u, depth - 1)?);
            }
            Value::Object(map)
        }
    })
}

fn schemas(u: &mut Unstructured<'_>, depth: u32) -> Result<Value> {
    let n = u.int_in_range(1..=3)?;
    Ok(Value::Array(
        (0..n).map(|_| schema(u, depth)).collect::<Result<_>>()?,
    ))
}

fn schema(u: &mut Unstructured<'_>, depth: u32) -> Result<Value> {
    if depth == 0 || u.ratio(1, 6)? {
        return Ok(match u.int_in_range(0..=3)? {
            0 => Value::Bool(u.arbitrary()?),
            1 => json!({}),
            2 => json!({ "type": pick(u, TYPES)? }),
            _ => {
                json!({ "$ref": pick(u, &["#", "#/$defs/a", "#/$defs/b", "#/properties/a", "other.json"])? })
            }
        });
    }
    let mut map = Map::new();
    for _ in 0..u.int_in_range(1..=4)? {
        let (key, value) = match u.int_in_range(0..=29)? {
            0 => ("type", json!(pick(u, TYPES)?)),
            1 => ("type", json!([pick(u, TYPES)?, pick(u, TYPES)?])),
            2 => ("properties", {
                let mut props = Map::new();
                for _ in 0..u.int_in_range(0..=2)? {
                    props.insert(pick(u, KEYS)?.to_owned(), schema(u, depth - 1)?);
                }
                Value::Object(props)
            }),
            3 => ("required", json!([pick(u, KEYS)?])),
            4 => ("items", schema(u, depth - 1)?),
            5 => ("prefixItems", schemas(u, depth - 1)?),
            6 => ("additionalProperties", schema(u, depth - 1)?),
            7 => ("anyOf", schemas(u, depth - 1)?),
            8 => ("allOf", schemas(u, depth - 1)?),
            9 => ("oneOf", schemas(u, depth - 1)?),
            10 => ("not", schema(u, depth - 1)?),
            11 => ("if", schema(u, depth - 1)?),
            12 => ("then", schema(u, depth - 1)?),
            13 => ("else", schema(u, depth - 1)?),
            14 => ("enum", json!([instance(u, 1)?, instance(u, 1)?])),
            15 => ("const", instance(u, 2)?),
            16 => (
                *u.choose(&[
                    "minimum",
                    "maximum",
                    "exclusiveMinimum",
                    "exclusiveMaximum",
                    "multipleOf",
                ])?,
                number(u)?,
            ),
            17 => (
                *u.choose(&[
                    "minLength",
                    "maxLength",
                    "minItems",
                    "maxItems",
                    "minProperties",
                    "maxProperties",
                    "minContains",
                    "maxContains",
                ])?,
                number(u)?,
            ),
            18 => ("pattern", json!(pick(u, PATTERNS)?)),
            19 => ("format", json!(pick(u, FORMATS)?)),
            20 => ("uniqueItems", Value::Bool(u.arbitrary()?)),
            21 => ("contains", schema(u, depth - 1)?),
            22 => ("propertyNames", schema(u, depth - 1)?),
            23 => (
                "patternProperties",
                json!({ pick(u, PATTERNS)?: schema(u, depth - 1)? }),
            ),
            24 => (
                "dependentRequired",
                json!({ pick(u, KEYS)?: [pick(u, KEYS)?] }),
            ),
            25 => (
                "dependentSchemas",
                json!({ pick(u, KEYS)?: schema(u, depth - 1)? }),
            ),
            26 => (
                "$defs",
                json!({ "a": schema(u, depth - 1)?, "b": schema(u, depth - 1)? }),
            ),
            27 => ("default", instance(u, 1)?),
            28 => ("unevaluatedProperties", schema(u, depth - 1)?),
            _ => (
                pick(
                    u,
                    &[
                        "$id",
                        "$anchor",
                        "title",
                        "nullable",
                        "discriminator",
                        "x-unknown",
                    ],
                )?,
                instance(u, 1)?,
            ),
        };
        map.insert(key.to_owned(), value);
    }
    Ok(Value::Object(map))
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let (Ok(schema), Ok(value), Ok(output)) = (
        schema(&mut u, 3),
        instance(&mut u, 3),
        u.arbitrary::<bool>(),
    ) else {
        return;
    };
    let side = if output { Side::Output } else { Side::Input };
    let Ok(validator) = Validator::compile(&schema, side) else {
        return;
    };
    let (mut first, mut second) = (value.clone(), value);
    let a = validator.validate_recording_defaults(&mut first);
    let b = validator.validate_recording_defaults(&mut second);
    assert_eq!(format!("{a:?}"), format!("{b:?}"), "schema {schema}");
    assert_eq!(first, second, "schema {schema}");
});

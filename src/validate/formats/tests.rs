//! The formats against ajv-formats: the vectors in `fixtures/` hold its answers (rebuilt by
//! `scripts/format-vectors.mjs` from the installed ajv-formats, in UTC), and a few properties
//! of the table itself.

use super::*;
use crate::js::regexp::{Syntax, PROBES};
use serde_json::Value;
use std::collections::BTreeMap;

/// Format name to its rows, from a fixture of `{"name": [row, …], …}`.
fn fixture(text: &str) -> Vec<(String, Vec<Value>)> {
    let Ok(Value::Object(lists)) = serde_json::from_str::<Value>(text) else {
        panic!("a fixture is a JSON object");
    };
    lists
        .into_iter()
        .map(|(name, rows)| match rows {
            Value::Array(rows) => (name, rows),
            _ => panic!("{name}: rows are an array"),
        })
        .collect()
}

fn text_at(row: &Value, at: usize) -> &str {
    row.get(at)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("{row}: text at {at}"))
}

/// `(passes, input)` per string format.
fn validate_vectors() -> Vec<(String, Vec<Value>)> {
    fixture(include_str!("fixtures/validate.json"))
}

/// `(data, limit, sign of compare(data, limit) or null)` per comparable format.
fn compare_vectors() -> Vec<(String, Vec<Value>)> {
    fixture(include_str!("fixtures/compare.json"))
}

/// `(JSON number text, [int32, int64, float, double])`.
fn number_vectors() -> Vec<Value> {
    fixture(include_str!("fixtures/numbers.json"))
        .into_iter()
        .flat_map(|(_, rows)| rows)
        .collect()
}

fn mismatches(failures: Vec<String>) {
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The RegExp syntax of the Node the vectors were recorded on (`fixtures/recorded.json`: what
/// it answered for each of the syntax probes): the `regex` answers are that V8's.
fn recorded_syntax() -> Syntax {
    let recorded: Value = serde_json::from_str(include_str!("fixtures/recorded.json"))
        .expect("recorded.json is JSON");
    let answers = PROBES.map(|probe| {
        recorded["regexpProbes"][probe.source]
            .as_bool()
            .unwrap_or_else(|| panic!("recorded.json answers the probe {}", probe.source))
    });
    Syntax::from_probes(answers)
}

#[test]
fn validate_vectors_agree_with_ajv_formats() {
    let syntax = recorded_syntax();
    let mut failures = Vec::new();
    for (name, rows) in validate_vectors() {
        let format = lookup(&name).expect("known format");
        assert_eq!(format.kind, FormatType::String);
        for row in &rows {
            let expected = row.get(0).and_then(Value::as_bool).expect("an answer");
            let input = text_at(row, 1);
            let got = match format.check {
                Check::Regex => regex::regex_in(input, syntax),
                _ => format.check_str(input),
            };
            if got != expected {
                failures.push(format!("{name} {input:?}: expected {expected}"));
            }
        }
    }
    mismatches(failures);
}

#[test]
fn compare_vectors_agree_with_ajv_formats() {
    let mut failures = Vec::new();
    for (name, rows) in compare_vectors() {
        let format = lookup(&name).expect("known format");
        assert!(format.can_compare());
        for row in &rows {
            let (a, b) = (text_at(row, 0), text_at(row, 1));
            let expected = row.get(2).and_then(Value::as_i64).map(|sign| sign.cmp(&0));
            let got = format.compare(a, b);
            if got != expected {
                failures.push(format!(
                    "{name} {a:?} {b:?}: expected {expected:?}, got {got:?}"
                ));
            }
        }
    }
    mismatches(failures);
}

#[test]
fn number_vectors_agree_with_ajv_formats() {
    let names = ["int32", "int64", "float", "double"];
    for row in number_vectors() {
        let text = text_at(&row, 0);
        let number: Number = serde_json::from_str(text).expect("JSON number");
        let expected = row.get(1).and_then(Value::as_array).expect("answers");
        assert_eq!(expected.len(), names.len(), "{text}");
        for (name, expected) in names.iter().zip(expected) {
            let format = lookup(name).expect("known format");
            assert_eq!(format.kind, FormatType::Number);
            assert_eq!(
                Some(format.check_number(&number)),
                expected.as_bool(),
                "{name} {text}"
            );
            // A number format does not apply to strings.
            assert!(format.check_str(text));
        }
    }
}

#[test]
fn vector_counts() {
    // Every format of fullFormats has vectors (numbers: 4 formats per row).
    let count = |lists: Vec<(String, Vec<Value>)>| -> BTreeMap<String, usize> {
        lists
            .into_iter()
            .map(|(name, rows)| (name, rows.len()))
            .collect()
    };
    let (validate, compare) = (count(validate_vectors()), count(compare_vectors()));
    let mut total = number_vectors().len() * 4;
    for format in all() {
        let validate = validate.get(format.name).copied().unwrap_or(0);
        let compare = compare.get(format.name).copied().unwrap_or(0);
        if format.kind == FormatType::String {
            assert!(validate >= 40, "{}: {validate} vectors", format.name);
        }
        assert_eq!(format.can_compare(), compare > 0, "{}", format.name);
        total += validate + compare;
    }
    assert!(total > 7000, "{total}");
}

#[test]
fn names_kinds_and_limits() {
    let names: Vec<&str> = all().iter().map(|f| f.name).collect();
    assert_eq!(
        names,
        [
            "date",
            "time",
            "date-time",
            "iso-time",
            "iso-date-time",
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
            "json-pointer-uri-fragment",
            "relative-json-pointer",
            "byte",
            "int32",
            "int64",
            "float",
            "double",
            "password",
            "binary"
        ]
    );
    for unknown in [
        "",
        "Date",
        "toString",
        "__proto__",
        "constructor",
        "datetime",
    ] {
        assert!(lookup(unknown).is_none(), "{unknown}");
    }
    let comparable: Vec<&str> = all()
        .iter()
        .filter(|f| f.can_compare())
        .map(|f| f.name)
        .collect();
    assert_eq!(
        comparable,
        ["date", "time", "date-time", "iso-time", "iso-date-time"]
    );
    let unchecked: Vec<&str> = all()
        .iter()
        .filter(|f| f.is_unchecked())
        .map(|f| f.name)
        .collect();
    assert_eq!(unchecked, ["password", "binary"]);
    let email = lookup("email").expect("known format");
    assert_eq!(email.compare("a", "b"), None);
    // A string format does not apply to numbers.
    assert!(email.check_number(&Number::from(1)));
    assert!(lookup("int32").expect("known format").check_f64(-0.0));
    assert!(!lookup("int64")
        .expect("known format")
        .check_f64(f64::INFINITY));
    assert!(lookup("int64").expect("known format").check_f64(1e300));
}

#[test]
fn long_inputs_stay_fast() {
    // regress backtracks exponentially on hostname's `{0,61}`; the hand-written check must
    // answer these at once (as V8 does).
    let label = "a".repeat(60);
    let host = format!("{label}.{label}.{label}'a");
    assert!(!lookup("hostname").expect("known format").check_str(&host));
    // The url userinfo tries every `:` against every later `@`: quadratic in regress.
    let url = lookup("url").expect("known format");
    assert!(!url.check_str(&format!("http://{}", ":@".repeat(500_000))));
    assert!(url.check_str(&format!("http://{}a.com", ":@".repeat(500_000))));
    let long = "a".repeat(100_000);
    for format in all() {
        let _ = format.check_str(&long);
        let _ = format.compare(&long, &long);
    }
    let pattern = "(?:".repeat(200_000) + &")".repeat(200_000);
    assert!(lookup("regex").expect("known format").check_str(&pattern));
    let too_many = "()".repeat(32_768);
    assert!(!lookup("regex").expect("known format").check_str(&too_many));
    assert!(lookup("regex")
        .expect("known format")
        .check_str(&"()".repeat(32_767)));
}

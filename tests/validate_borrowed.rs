//! The validator over the pack service's borrowed tree (`json::Borrowed`, what a request body
//! is read into) answers exactly as over `serde_json` values (what the in-process validator and
//! the differential suites against Ajv use): the same issues, and the same defaults filled in
//! the same places. Run over every schema and value of the vendored JSON Schema Test Suite, on
//! both sides; `validate_random.rs` does the same for generated schemas.

use kindgi_handler_runtime_native::json::parse_borrowed;
use kindgi_handler_runtime_native::validate::{issues_json, Invalid, Side, Validator};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn suite_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            suite_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

/// An answer as text: the issues, or the value with its defaults and which were filled.
fn answer(
    result: Result<Vec<kindgi_handler_runtime_native::validate::DefaultApplied>, Invalid>,
    filled: Value,
) -> String {
    match result {
        Ok(defaults) => format!("ok {filled} {defaults:?}"),
        Err(Invalid::Recursion) => "recursion".into(),
        Err(Invalid::Issues(issues)) => format!("issues {}", issues_json(&issues)),
    }
}

#[test]
fn the_suite_answers_alike_on_both_forms() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("__test__/fixtures/json-schema-test-suite/tests/draft2020-12");
    let mut files = Vec::new();
    suite_files(&root, &mut files);
    assert!(
        files.len() > 50,
        "the suite is vendored: {} files",
        files.len()
    );
    let mut compared = 0;
    for file in files {
        let text = std::fs::read_to_string(&file).expect("a suite file");
        let groups: Value = serde_json::from_str(&text).expect("suite JSON");
        for group in groups.as_array().into_iter().flatten() {
            for side in [Side::Input, Side::Output] {
                let Ok(validator) = Validator::compile(&group["schema"], side) else {
                    continue;
                };
                for test in group["tests"].as_array().into_iter().flatten() {
                    let data = &test["data"];
                    let mut value = data.clone();
                    let expected = {
                        let result = validator.validate_recording_defaults(&mut value);
                        answer(result, value)
                    };
                    let data_text = data.to_string();
                    let mut tree = parse_borrowed(&data_text).expect("the data reads");
                    let result = validator.validate_recording_defaults(&mut tree);
                    let got = answer(result, tree.to_value());
                    assert_eq!(
                        got,
                        expected,
                        "{}: {} on {data_text}",
                        file.display(),
                        group["description"]
                    );
                    compared += 1;
                }
            }
        }
    }
    assert!(compared > 800, "compared {compared}");
}

//! Evaluates the `jsonschema` crate against Ajv's verdicts and our validator
//! (docs/design.md, "The `jsonschema` crate").
//!
//!   jsonschema-eval verdicts CASES.json   verdicts over the corpora `dump.mjs` wrote
//!   jsonschema-eval speed                 validation and compile time against ours

mod causes;
mod dump;
mod engines;
mod fast_path;
mod speed;
mod tally;
mod tool_schemas;
mod verdicts;

use dump::Case;
use engines::FormatChecks;
use kindgi_handler_runtime_native::validate::Side;
use std::path::Path;
use std::process::ExitCode;
use verdicts::{compare_cases, compare_formats, Engine};

const ENGINES: [Engine; 3] = [
    Engine::Jsonschema(FormatChecks::Builtin),
    Engine::Jsonschema(FormatChecks::Ours),
    Engine::Ours,
];

fn all(cases: &[Case]) -> Vec<&Case> {
    cases.iter().collect()
}

fn in_class(cases: &[Case]) -> Vec<&Case> {
    cases
        .iter()
        .filter(|c| fast_path::in_class(&c.schema))
        .collect()
}

fn report_verdicts(path: &Path) -> Result<(), String> {
    let dump = dump::read(path).map_err(|e| e.to_string())?;
    // A panic inside the crate is counted, not printed.
    std::panic::set_hook(Box::new(|_| {}));
    let suite = "JSON Schema Test Suite (draft 2020-12 with optional/)";
    let generated = format!("generated schemas (seed {})", dump.seed);
    let sets = [
        (suite.to_owned(), all(&dump.corpus)),
        (generated.clone(), all(&dump.generated)),
        ("pattern vectors".to_owned(), all(&dump.patterns)),
        (
            format!("{suite}, fast-path class only"),
            in_class(&dump.corpus),
        ),
        (
            format!("{generated}, fast-path class only"),
            in_class(&dump.generated),
        ),
    ];
    for (title, cases) in &sets {
        for engine in ENGINES {
            for (side, side_name) in [(Side::Output, "output"), (Side::Input, "input")] {
                println!("== {title}, {}, {side_name} side", engine.label());
                let result = compare_cases(cases, engine, side);
                result.compiles.print();
                result.verdicts.print();
            }
        }
    }
    for engine in ENGINES {
        println!("== format vectors, {}", engine.label());
        let result = compare_formats(&dump.formats, engine);
        println!(
            "    values compared {}: agree {}, accepts what Ajv rejects {}, rejects what Ajv accepts {}",
            result.compared,
            result.agree,
            result.accepts.total(),
            result.rejects.total()
        );
        result.refused.print("formats it refuses to compile");
        result.accepts.print("accepts what Ajv rejects, by format");
        result.rejects.print("rejects what Ajv accepts, by format");
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let outcome = match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["verdicts", path] => report_verdicts(Path::new(path)),
        ["speed"] => speed::run(),
        _ => Err("usage: jsonschema-eval verdicts CASES.json | jsonschema-eval speed".into()),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("jsonschema-eval: {message}");
            ExitCode::FAILURE
        }
    }
}

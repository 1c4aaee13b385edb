//! Runs each validator over the dumped corpora and compares its verdicts with Ajv's.

use crate::causes::{
    ajv_refusal_group, deciding_path, jsonschema_refusal_group, shorten, verdict_group,
};
use crate::dump::{AjvCompile, AjvVerdict, Case, FormatVectors};
use crate::engines::{self, FormatChecks};
use crate::tally::{Compiles, Groups, Verdicts};
use kindgi_handler_runtime_native::validate::Side;
use serde_json::{json, Value};

/// A validator under comparison.
#[derive(Debug, Clone, Copy)]
pub enum Engine {
    Jsonschema(FormatChecks),
    Ours,
}

impl Engine {
    pub fn label(self) -> &'static str {
        match self {
            Engine::Jsonschema(checks) => checks.label(),
            Engine::Ours => "ours (src/validate)",
        }
    }
}

/// A schema compiled by one engine for one side.
enum Compiled {
    Jsonschema(jsonschema::Validator),
    Ours(kindgi_handler_runtime_native::validate::Validator),
}

impl Compiled {
    fn new(engine: Engine, schema: &Value, side: Side) -> Result<Compiled, String> {
        match engine {
            Engine::Jsonschema(checks) => {
                engines::compile_jsonschema(schema, checks).map(Compiled::Jsonschema)
            }
            Engine::Ours => engines::compile_ours(schema, side).map(Compiled::Ours),
        }
    }

    fn verdict(&self, value: &Value) -> Option<bool> {
        match self {
            Compiled::Jsonschema(v) => engines::jsonschema_verdict(v, value),
            Compiled::Ours(v) => Some(engines::our_verdict(v, value)),
        }
    }

    fn error_paths(&self, value: &Value) -> Vec<String> {
        match self {
            Compiled::Jsonschema(v) => engines::jsonschema_error_paths(v, value),
            Compiled::Ours(_) => Vec::new(),
        }
    }
}

/// The results of one engine over one set of cases on one side.
#[derive(Debug, Default)]
pub struct SideResult {
    pub compiles: Compiles,
    pub verdicts: Verdicts,
}

fn side_of(case: &Case, side: Side) -> &AjvCompile {
    match side {
        Side::Input => &case.ajv.input,
        Side::Output => &case.ajv.output,
    }
}

fn example(case: &Case, value: Option<&Value>) -> String {
    let schema = shorten(&case.schema.to_string(), 170);
    match value {
        Some(value) => format!(
            "{} | schema {schema} | value {}",
            case.name,
            shorten(&value.to_string(), 90)
        ),
        None => format!("{} | schema {schema}", case.name),
    }
}

/// Ajv's verdict on the output side for value `at`, where it has one.
fn output_verdict(case: &Case, at: usize) -> Option<bool> {
    match &case.ajv.output {
        AjvCompile::Compiled { verdicts } => match verdicts.get(at) {
            Some(AjvVerdict::Judged { valid, .. }) => Some(*valid),
            _ => None,
        },
        AjvCompile::Refused { .. } => None,
    }
}

pub fn compare_cases(cases: &[&Case], engine: Engine, side: Side) -> SideResult {
    let mut result = SideResult::default();
    for &case in cases {
        result.compiles.schemas += 1;
        let compiled = Compiled::new(engine, &case.schema, side);
        match (side_of(case, side), compiled) {
            (AjvCompile::Refused { .. }, Err(_)) => {
                result.compiles.both_refuse += 1;
                continue;
            }
            (AjvCompile::Refused { error }, Ok(_)) => {
                let group = ajv_refusal_group(error);
                result.compiles.only_ajv_refuses.add(group, || {
                    format!("{} ({})", example(case, None), shorten(error, 120))
                });
                continue;
            }
            (AjvCompile::Compiled { .. }, Err(error)) => {
                let group = jsonschema_refusal_group(&error);
                result.compiles.only_this_refuses.add(group, || {
                    format!("{} ({})", example(case, None), shorten(&error, 120))
                });
                continue;
            }
            (AjvCompile::Compiled { verdicts }, Ok(compiled)) => {
                result.compiles.both_compile += 1;
                compare_values(case, verdicts, &compiled, side, &mut result.verdicts);
            }
        }
    }
    result
}

fn compare_values(
    case: &Case,
    ajv: &[AjvVerdict],
    compiled: &Compiled,
    side: Side,
    tally: &mut Verdicts,
) {
    for (at, (value, verdict)) in case.values.iter().zip(ajv).enumerate() {
        let (valid, paths) = match verdict {
            AjvVerdict::Threw { .. } => {
                tally.unjudged += 1;
                continue;
            }
            AjvVerdict::Judged { valid, paths } => (*valid, paths),
        };
        tally.compared += 1;
        let Some(here) = compiled.verdict(value) else {
            tally.panics += 1;
            continue;
        };
        if here == valid {
            tally.agree += 1;
            continue;
        }
        // On the input side Ajv fills defaults first: a verdict that differs from its output
        // side's comes from them.
        let by_defaults = side == Side::Input && output_verdict(case, at) != Some(valid);
        let show = || example(case, Some(value));
        if here {
            let group = if by_defaults {
                "useDefaults: a filled default makes Ajv reject".into()
            } else {
                verdict_group(deciding_path(paths), &case.schema, value)
            };
            tally.accepts.add(group, show);
        } else {
            let group = if by_defaults {
                "useDefaults: a filled default makes Ajv accept".into()
            } else {
                let found = compiled.error_paths(value);
                verdict_group(deciding_path(&found), &case.schema, value)
            };
            tally.rejects.add(group, show);
        }
    }
}

/// The format vectors: per format, how many values each engine judges as Ajv does.
pub struct FormatResult {
    pub compared: usize,
    pub agree: usize,
    pub accepts: Groups,
    pub rejects: Groups,
    pub refused: Groups,
}

pub fn compare_formats(vectors: &[FormatVectors], engine: Engine) -> FormatResult {
    let mut result = FormatResult {
        compared: 0,
        agree: 0,
        accepts: Groups::default(),
        rejects: Groups::default(),
        refused: Groups::default(),
    };
    for set in vectors {
        let schema = json!({"type": set.kind, "format": set.format});
        let compiled = match Compiled::new(engine, &schema, Side::Output) {
            Ok(compiled) => compiled,
            Err(error) => {
                result
                    .refused
                    .add(set.format.clone(), || shorten(&error, 120));
                continue;
            }
        };
        for (value, &valid) in set.values.iter().zip(&set.ajv) {
            result.compared += 1;
            let here = compiled.verdict(value);
            if here == Some(valid) {
                result.agree += 1;
                continue;
            }
            let show = || shorten(&value.to_string(), 90);
            if here == Some(true) {
                result.accepts.add(set.format.clone(), show);
            } else {
                result.rejects.add(set.format.clone(), show);
            }
        }
    }
    result
}

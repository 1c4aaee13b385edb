//! Validation and compile time of the `jsonschema` crate against ours, on parsed values, in one
//! process: per case, many short rounds that each time a batch of calls of every engine in turn.
//! On a machine shared with other work, the fastest round is the estimate least disturbed by
//! it; the median of each round's own ratio checks the speed-up that the fastest rounds give.

use crate::engines::{compile_jsonschema, jsonschema_options, FormatChecks};
use crate::tool_schemas::speed_cases;
use kindgi_handler_runtime_native::validate::{Side, Validator as Ours};
use serde_json::Value;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Rounds per measurement; each is one batch of calls per engine.
const ROUNDS: usize = 401;
/// Time one batch of calls should take, so the clock's resolution does not count.
const BATCH: Duration = Duration::from_micros(250);

/// How many calls of `call` take about [`BATCH`].
fn batch_size(call: &mut dyn FnMut()) -> u32 {
    let mut n = 1u32;
    loop {
        let started = Instant::now();
        for _ in 0..n {
            call();
        }
        if started.elapsed() >= BATCH || n >= 1 << 20 {
            return n;
        }
        n *= 2;
    }
}

/// Per call: the fastest round's time of each of `calls`, and the median over rounds of the
/// first one's time divided by each one's in the same round.
struct Timed {
    fastest: Vec<Duration>,
    ratios: Vec<f64>,
}

/// Times each of `calls`, batches interleaved round by round.
fn timed(calls: &mut [&mut dyn FnMut()]) -> Timed {
    let sizes: Vec<u32> = calls.iter_mut().map(|call| batch_size(*call)).collect();
    let mut times: Vec<Vec<Duration>> = vec![Vec::with_capacity(ROUNDS); calls.len()];
    for _ in 0..ROUNDS {
        for (at, call) in calls.iter_mut().enumerate() {
            let started = Instant::now();
            for _ in 0..sizes[at] {
                call();
            }
            times[at].push(started.elapsed() / sizes[at]);
        }
    }
    let ratios = times
        .iter()
        .map(|theirs| {
            let mut per_round: Vec<f64> = times[0]
                .iter()
                .zip(theirs)
                .map(|(ours, theirs)| ours.as_secs_f64() / theirs.as_secs_f64().max(1e-12))
                .collect();
            per_round.sort_by(f64::total_cmp);
            per_round[per_round.len() / 2]
        })
        .collect();
    let fastest = times
        .into_iter()
        .map(|t| t.into_iter().min().unwrap_or_default())
        .collect();
    Timed { fastest, ratios }
}

fn micros(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us < 10.0 {
        format!("{us:.2} µs")
    } else if us < 1000.0 {
        format!("{us:.1} µs")
    } else {
        format!("{:.2} ms", us / 1000.0)
    }
}

/// One table row: our time, then each other engine's time and its speed-up over ours, from the
/// fastest rounds and (in brackets) the median round (above 1x, the `jsonschema` crate is faster).
fn row(label: &str, timed: &Timed) {
    let mut cells = vec![label.to_owned(), micros(timed.fastest[0])];
    for at in 1..timed.fastest.len() {
        let fastest = timed.fastest[0].as_secs_f64() / timed.fastest[at].as_secs_f64().max(1e-12);
        cells.push(micros(timed.fastest[at]));
        cells.push(format!("{fastest:.2}x ({:.2}x)", timed.ratios[at]));
    }
    println!("| {} |", cells.join(" | "));
}

pub fn run() -> Result<(), String> {
    println!("{ROUNDS} interleaved rounds, each a batch of about {BATCH:?} per engine: per-call time of the fastest round; speed-up of the fastest rounds (median round's); output side (no defaults)");
    println!("| case | ours validate | jsonschema (our formats) | speed-up | jsonschema (its formats) | speed-up |");
    println!("| --- | --: | --: | --: | --: | --: |");
    let cases = speed_cases();
    for case in &cases {
        let ours = Ours::compile(&case.schema, Side::Output)
            .map_err(|e| format!("{}: {e}", case.label))?;
        let with_ours = compile_jsonschema(&case.schema, FormatChecks::Ours)?;
        let with_builtin = compile_jsonschema(&case.schema, FormatChecks::Builtin)?;
        let mut value: Value = case.value.clone();
        if ours.validate(&mut value).is_err()
            || !with_ours.is_valid(&value)
            || !with_builtin.is_valid(&value)
        {
            return Err(format!(
                "{}: a validator refuses the timed value",
                case.label
            ));
        }
        let times = timed(&mut [
            &mut || {
                let _ = black_box(ours.validate(black_box(&mut value)));
            },
            &mut || {
                black_box(with_ours.is_valid(black_box(&case.value)));
            },
            &mut || {
                black_box(with_builtin.is_valid(black_box(&case.value)));
            },
        ]);
        row(&case.label, &times);
    }
    println!();
    println!("compile, same method:");
    println!("| schema | ours compile | jsonschema (our formats) | speed-up | jsonschema (its formats) | speed-up |");
    println!("| --- | --: | --: | --: | --: | --: |");
    // Options are built once, as a caller compiling many schemas would keep them.
    let with_ours = jsonschema_options(FormatChecks::Ours);
    let with_builtin = jsonschema_options(FormatChecks::Builtin);
    for case in &cases {
        let times = timed(&mut [
            &mut || {
                let _ = black_box(Ours::compile(black_box(&case.schema), Side::Output));
            },
            &mut || {
                let _ = black_box(with_ours.build(black_box(&case.schema)));
            },
            &mut || {
                let _ = black_box(with_builtin.build(black_box(&case.schema)));
            },
        ]);
        row(&case.label, &times);
    }
    Ok(())
}

//! The loader's semantic passes on ids, edge endpoints, predicates, edge policies and loops
//! (steps 2 to 11 of the list in `mod.rs`).
//! Several repeat a rule the schema already enforces (the loader keeps them so each pass
//! stands on its own); they are kept here too, with the loader's messages.

use super::inline_schema::schema_problem;
use super::schema::is_printable_ascii;
use super::{body_edges, field, id_of, is_integer, items, js_text, number, text, Flow, FlowError};
use serde_json::Value;
use std::collections::HashSet;

const START: &str = "$start";
const END: &str = "$end";
const SENTINELS: [&str; 4] = [START, END, "$loop-start", "$loop-end"];

const OPERATORS: [&str; 15] = [
    "eq",
    "ne",
    "lt",
    "lte",
    "gt",
    "gte",
    "in",
    "notIn",
    "exists",
    "notExists",
    "truthy",
    "falsy",
    "and",
    "or",
    "not",
];

const TIMEOUT_MS_MAX: f64 = 3_600_000.0;
const CONCURRENCY_KEY_MAX: usize = 256;
const LOOP_CONCURRENCY_CAP: f64 = 32.0;

pub(super) fn reserved_ids(flow: &Flow<'_>) -> Option<FlowError> {
    let id = flow
        .all_nodes
        .iter()
        .map(|node| id_of(node))
        .find(|id| SENTINELS.contains(id))?;
    Some(FlowError::new(format!(
        "Node id \"{id}\" is reserved as a flow sentinel and may not name a node"
    )))
}

pub(super) fn duplicate_nodes(flow: &Flow<'_>) -> Option<FlowError> {
    let id = first_repeat(flow.all_nodes.iter().map(|node| id_of(node)))?;
    Some(FlowError::new(format!(
        "Node id \"{id}\" is used more than once (across outer flow and loop bodies)"
    )))
}

pub(super) fn duplicate_edges(flow: &Flow<'_>) -> Option<FlowError> {
    let body = flow.loops().flat_map(body_edges);
    let id = first_repeat(flow.edges().iter().chain(body).map(id_of))?;
    Some(FlowError::new(format!(
        "Edge id \"{id}\" is used more than once (across outer flow and loop bodies)"
    )))
}

fn first_repeat<'a>(ids: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let mut seen = HashSet::new();
    ids.into_iter().find(|id| !seen.insert(*id))
}

pub(super) fn outer_edge_references(flow: &Flow<'_>) -> Option<FlowError> {
    let known: HashSet<&str> = flow.nodes().iter().map(id_of).collect();
    unknown_endpoint(flow.edges(), &known, START, END).map(|(edge, endpoint, id)| {
        FlowError::new(format!("Edge \"{edge}\" {endpoint} unknown node \"{id}\""))
    })
}

/// The first edge endpoint that is neither a known node nor the scope's sentinel: its edge
/// id, which end, and the id it names (`from` is checked before `to`).
pub(super) fn unknown_endpoint<'a>(
    edges: &'a [Value],
    known: &HashSet<&str>,
    start: &str,
    end: &str,
) -> Option<(&'a str, &'static str, &'a str)> {
    edges.iter().find_map(|edge| {
        let from = text(field(edge, "from"));
        let to = text(field(edge, "to"));
        if from != start && !known.contains(from) {
            Some((id_of(edge), "from", from))
        } else if to != end && !known.contains(to) {
            Some((id_of(edge), "to", to))
        } else {
            None
        }
    })
}

pub(super) fn predicates(flow: &Flow<'_>) -> Option<FlowError> {
    for edge in flow.edges() {
        if let Some(reason) = field(edge, "when").and_then(expr_problem) {
            let id = id_of(edge);
            return Some(FlowError::new(format!(
                "Edge \"{id}\" has an invalid predicate: {reason}"
            )));
        }
    }
    for lp in flow.loops() {
        let loop_id = id_of(lp);
        if text(field(lp, "loopKind")) == "while" {
            if let Some(reason) = expr_problem_of(field(lp, "exitCondition")) {
                return Some(FlowError::new(format!(
                    "Loop node \"{loop_id}\" has an invalid exitCondition: {reason}"
                )));
            }
        }
        for edge in body_edges(lp) {
            if let Some(reason) = field(edge, "when").and_then(expr_problem) {
                let id = id_of(edge);
                return Some(FlowError::new(format!(
                    "Loop \"{loop_id}\" body edge \"{id}\" has an invalid predicate: {reason}"
                )));
            }
        }
    }
    None
}

/// An expression that may be missing (JavaScript would throw reading it; the schema has
/// made it present).
fn expr_problem_of(expr: Option<&Value>) -> Option<String> {
    expr_problem(expr.unwrap_or(&Value::Null))
}

/// What is structurally wrong with a predicate expression, in the loader's words.
pub(super) fn expr_problem(expr: &Value) -> Option<String> {
    let op_value = field(expr, "op");
    let op = op_value.and_then(Value::as_str).unwrap_or("");
    if !op_value.is_some_and(Value::is_string) || !OPERATORS.contains(&op) {
        return Some(format!("unknown operator \"{}\"", js_text(op_value)));
    }
    let pair = |first: &str, second: &str| {
        if let Some(reason) = operand_problem(field(expr, first)) {
            return Some(format!("{first}: {reason}"));
        }
        operand_problem(field(expr, second)).map(|reason| format!("{second}: {reason}"))
    };
    match op {
        "in" | "notIn" => pair("value", "set"),
        "exists" | "notExists" | "truthy" | "falsy" => operand_problem(field(expr, "value")),
        "and" | "or" => {
            let children = items(field(expr, "children"));
            if children.is_empty() {
                return Some(format!("{op} requires at least one child"));
            }
            children.iter().find_map(expr_problem)
        }
        "not" => expr_problem_of(field(expr, "child")),
        _ => pair("left", "right"),
    }
}

/// What is wrong with an operand: it must hold `literal`, or a non-empty string `path`.
pub(super) fn operand_problem(operand: Option<&Value>) -> Option<String> {
    let map = operand.and_then(Value::as_object);
    if map.is_some_and(|m| m.contains_key("literal")) {
        return None;
    }
    match map.and_then(|m| m.get("path")) {
        Some(Value::String(path)) if !path.is_empty() => None,
        Some(_) => Some("path must be a non-empty string".into()),
        None => Some("operand must be a {literal} or {path}".into()),
    }
}

pub(super) fn edge_policies(flow: &Flow<'_>) -> Option<FlowError> {
    // Body edges carry no policy (the schema refuses one there).
    flow.edges().iter().find_map(|edge| {
        let policy = field(edge, "policy")?;
        let (at, reason) = policy_problem(policy)?;
        let id = id_of(edge);
        Some(FlowError::new(format!(
            "Edge \"{id}\" has an invalid policy at {at}: {reason}"
        )))
    })
}

/// The first broken policy field and why, checking `retry`, `timeoutMs`, `concurrencyKey`
/// and `priority` in that order.
pub(super) fn policy_problem(policy: &Value) -> Option<(&'static str, String)> {
    if let Some(retry) = field(policy, "retry") {
        if let Some(problem) = retry_problem(retry) {
            return Some(problem);
        }
    }
    if let Some(timeout) = field(policy, "timeoutMs") {
        let got = js_text(Some(timeout));
        let n = number(Some(timeout));
        let reason = if !is_integer(Some(timeout)) {
            Some(format!("must be an integer (got {got})"))
        } else if n < 1.0 {
            Some(format!("must be >= 1 (got {got})"))
        } else if n > TIMEOUT_MS_MAX {
            Some(format!("must be <= 3600000 (1 hour cap; got {got})"))
        } else {
            None
        };
        if let Some(reason) = reason {
            return Some(("timeoutMs", reason));
        }
    }
    if let Some(key) = field(policy, "concurrencyKey") {
        let reason = match key.as_str() {
            None => Some("must be a string".to_owned()),
            Some("") => Some("must not be empty".to_owned()),
            // `length` counts UTF-16 code units.
            Some(k) if k.encode_utf16().count() > CONCURRENCY_KEY_MAX => Some(format!(
                "must be <= {CONCURRENCY_KEY_MAX} chars (got {})",
                k.encode_utf16().count()
            )),
            Some(k) if !is_printable_ascii(k) => {
                Some("must contain only printable ASCII (0x20..0x7E)".to_owned())
            }
            Some(_) => None,
        };
        if let Some(reason) = reason {
            return Some(("concurrencyKey", reason));
        }
    }
    let priority = field(policy, "priority")?;
    let got = js_text(Some(priority));
    let n = number(Some(priority));
    let reason = if !priority.is_number() {
        format!("must be a number (got {})", js_typeof(priority))
    } else if !is_integer(Some(priority)) {
        format!("must be an integer (got {got})")
    } else if !(-100.0..=100.0).contains(&n) {
        format!("must be within [-100, 100] (got {got})")
    } else {
        return None;
    };
    Some(("priority", reason))
}

fn retry_problem(retry: &Value) -> Option<(&'static str, String)> {
    let attempts = field(retry, "maxAttempts");
    if !is_integer(attempts) {
        return Some(("retry.maxAttempts", "must be an integer".into()));
    }
    if !(1.0..=10.0).contains(&number(attempts)) {
        let got = js_text(attempts);
        return Some((
            "retry.maxAttempts",
            format!("must be within [1, 10] (got {got})"),
        ));
    }
    let non_negative_integer =
        |value: &Value| is_integer(Some(value)) && number(Some(value)) >= 0.0;
    if let Some(delay) = field(retry, "delayMs").filter(|d| !non_negative_integer(d)) {
        let got = js_text(Some(delay));
        return Some((
            "retry.delayMs",
            format!("must be a non-negative integer (got {got})"),
        ));
    }
    let backoff = field(retry, "backoff");
    if let Some(shape) = backoff {
        if !matches!(shape.as_str(), Some("fixed" | "linear" | "exponential")) {
            let got = js_text(Some(shape));
            return Some((
                "retry.backoff",
                format!("must be one of \"fixed\" | \"linear\" | \"exponential\" (got {got})"),
            ));
        }
    }
    let max_delay = field(retry, "maxDelayMs");
    if let Some(ceiling) = max_delay.filter(|d| !non_negative_integer(d)) {
        let got = js_text(Some(ceiling));
        return Some((
            "retry.maxDelayMs",
            format!("must be a non-negative integer (got {got})"),
        ));
    }
    if backoff.and_then(Value::as_str) == Some("exponential") && max_delay.is_none() {
        return Some((
            "retry.maxDelayMs",
            "is required when retry.backoff is \"exponential\" (unbounded growth otherwise)".into(),
        ));
    }
    None
}

/// JavaScript's `typeof` for a JSON value.
fn js_typeof(value: &Value) -> &'static str {
    match value {
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Null | Value::Array(_) | Value::Object(_) => "object",
    }
}

pub(super) fn loop_max_iterations(flow: &Flow<'_>) -> Option<FlowError> {
    flow.loops().find_map(|lp| {
        let max = field(lp, "maxIterations");
        let n = number(max);
        let reason = if !is_integer(max) {
            "maxIterations must be an integer"
        } else if n < 1.0 {
            "maxIterations must be >= 1"
        } else if n > 10_000.0 {
            "maxIterations must be <= 10000"
        } else {
            return None;
        };
        let (id, got) = (id_of(lp), js_text(max));
        Some(FlowError::new(format!(
            "Loop node \"{id}\": {reason} (got {got})"
        )))
    })
}

pub(super) fn loop_variants(flow: &Flow<'_>) -> Option<FlowError> {
    flow.loops().find_map(|lp| {
        let has = |key: &str| field(lp, key).is_some();
        let (loop_kind, problem) = match text(field(lp, "loopKind")) {
            "while" => {
                let timing = field(lp, "evaluationTiming");
                let problem = if !has("exitCondition") {
                    "while-missing-exit-condition"
                } else if has("iterateOver") {
                    "while-has-iterate-over"
                } else if has("concurrency") {
                    // Each iteration of a while loop depends on the one before.
                    "while-has-concurrency"
                } else if timing.is_some_and(|t| !matches!(t.as_str(), Some("before" | "after"))) {
                    "while-has-invalid-evaluation-timing"
                } else {
                    return None;
                };
                ("while", problem)
            }
            "foreach" => {
                let problem = if !has("iterateOver") {
                    "foreach-missing-iterate-over"
                } else if has("exitCondition") {
                    "foreach-has-exit-condition"
                } else if has("evaluationTiming") {
                    "foreach-has-evaluation-timing"
                } else {
                    return None;
                };
                ("foreach", problem)
            }
            _ => return None,
        };
        let id = id_of(lp);
        Some(FlowError::new(format!(
            "Loop node \"{id}\" (loopKind={loop_kind}): {problem}"
        )))
    })
}

pub(super) fn loop_output_schemas(flow: &Flow<'_>) -> Option<FlowError> {
    flow.loops().find_map(|lp| {
        let primary = schema_problem(field(lp, "outputSchema"))?;
        let id = id_of(lp);
        Some(FlowError::new(format!(
            "Loop node \"{id}\" outputSchema failed to compile: {primary}"
        )))
    })
}

pub(super) fn loop_concurrency(flow: &Flow<'_>) -> Option<FlowError> {
    flow.loops().find_map(|lp| {
        if text(field(lp, "loopKind")) != "foreach" {
            return None;
        }
        let concurrency = field(lp, "concurrency")?;
        let value = number(Some(concurrency));
        let max = field(lp, "maxIterations");
        let detail = if !is_integer(Some(concurrency)) {
            "must be an integer".to_owned()
        } else if value < 1.0 {
            "must be >= 1".to_owned()
        } else if value > LOOP_CONCURRENCY_CAP {
            "must be <= 32 (safety cap)".to_owned()
        } else if value > number(max) {
            format!("must be <= maxIterations ({})", js_text(max))
        } else {
            return None;
        };
        let (id, got) = (id_of(lp), js_text(Some(concurrency)));
        Some(FlowError::new(format!(
            "Loop node \"{id}\": concurrency {detail} (got {got})"
        )))
    })
}

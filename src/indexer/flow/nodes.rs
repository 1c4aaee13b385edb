//! The passes on fanout and subgraph nodes, data-flow mappings and the flow's output schema
//! (steps 12 to 15 of the list in `mod.rs`).

use super::checks::operand_problem;
use super::inline_schema::{compile_error, schema_problem};
use super::schema::is_exact_semver;
use super::{
    field, id_of, is_integer, js_entries, js_text, kind_of, number, text, Flow, FlowError,
};
use serde_json::Value;
use std::collections::HashSet;

const FANOUT_CONVERGENCE: [&str; 3] = ["all-succeed", "any-succeed", "settle-all"];
const SUBGRAPH_CONVERGENCE: [&str; 2] = ["success-only", "settle-all"];

pub(super) fn fanout_nodes(flow: &Flow<'_>) -> Option<FlowError> {
    flow.nodes_of_kind("fanout").find_map(fanout_problem)
}

fn fanout_problem(fanout: &Value) -> Option<FlowError> {
    let id = id_of(fanout);
    let error = |branch: Option<&str>, reason: String| {
        let scope = match branch {
            None => format!("Fanout node \"{id}\""),
            Some(b) => format!("Fanout node \"{id}\" branch \"{b}\""),
        };
        Some(FlowError::new(format!("{scope}: {reason}")))
    };
    let branches = match field(fanout, "branches").and_then(Value::as_array) {
        Some(list) if list.len() >= 2 => list,
        _ => return error(None, "must declare at least 2 branches".into()),
    };
    let mut seen = HashSet::new();
    for branch in branches {
        let branch_id = match field(branch, "branchId").and_then(Value::as_str) {
            Some(b) if !b.is_empty() => b,
            _ => {
                let reason = "each branch must declare a non-empty string branchId";
                return error(None, reason.into());
            }
        };
        if !seen.insert(branch_id) {
            let reason = format!("duplicate branchId \"{branch_id}\" within fanout");
            return error(Some(branch_id), reason);
        }
        if text(field(branch, "handler")).is_empty() {
            let reason = format!("branch \"{branch_id}\" must declare a non-empty string handler");
            return error(Some(branch_id), reason);
        }
        let schema = field(branch, "outputSchema").filter(|s| !s.is_null());
        if schema.is_none() {
            let reason = format!(
                "branch \"{branch_id}\" must declare an outputSchema (typed escape contract)"
            );
            return error(Some(branch_id), reason);
        }
        if let Some(primary) = schema_problem(schema) {
            return Some(FlowError::new(format!(
                "Fanout node \"{id}\" branch \"{branch_id}\" outputSchema failed to compile: {primary}"
            )));
        }
    }
    let convergence = field(fanout, "convergence");
    if !convergence
        .and_then(Value::as_str)
        .is_some_and(|c| FANOUT_CONVERGENCE.contains(&c))
    {
        let modes = FANOUT_CONVERGENCE.join(" | ");
        let reason = format!("must be one of {modes} (got {})", js_text(convergence));
        return error(None, reason);
    }
    let concurrency = field(fanout, "concurrency")?;
    let got = js_text(Some(concurrency));
    let value = number(Some(concurrency));
    let reason = if !is_integer(Some(concurrency)) {
        format!("must be an integer (got {got})")
    } else if value < 1.0 {
        format!("must be >= 1 (got {got})")
    } else if value > branches.len() as f64 {
        format!(
            "must be <= branches.length ({}) — a fanout cannot request more concurrent workers than it has branches (got {got})",
            branches.len()
        )
    } else {
        return None;
    };
    error(None, reason)
}

pub(super) fn subgraph_nodes(flow: &Flow<'_>) -> Option<FlowError> {
    flow.nodes_of_kind("subgraph").find_map(subgraph_problem)
}

fn subgraph_problem(node: &Value) -> Option<FlowError> {
    let id = id_of(node);
    let error = |reason: String| Some(FlowError::new(format!("Subgraph node \"{id}\": {reason}")));
    // JavaScript's `typeof … === 'object'` also holds for an array.
    let Some(flow_ref) = field(node, "flowRef").filter(|r| r.is_object() || r.is_array()) else {
        return error("must be an object".into());
    };
    let non_empty = |key: &str| {
        field(flow_ref, key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    if non_empty("flowId").is_none() {
        return error("must be a non-empty string".into());
    }
    let Some(version) = non_empty("version") else {
        return error("must be a non-empty string".into());
    };
    if !is_exact_semver(version) {
        return error(format!(
            "must be an exact semver (no ranges) — got \"{version}\""
        ));
    }
    let Some(mapping) = field(node, "inputMapping").and_then(Value::as_object) else {
        return error("must be an object mapping string keys to Operands".into());
    };
    for (key, value) in js_entries(mapping) {
        if !(value.is_object() || value.is_array()) {
            return error(format!(
                "entry \"{key}\" must be an Operand ({{ path }} or {{ literal }})"
            ));
        }
        if let Some(reason) = operand_problem(Some(value)) {
            return error(format!("entry \"{key}\" is not a valid Operand: {reason}"));
        }
    }
    let schema = field(node, "outputSchema").filter(|s| !s.is_null());
    if schema.is_none() {
        return error("must be a JSON Schema (draft 2020-12) — the typed escape contract".into());
    }
    if let Some(primary) = schema_problem(schema) {
        return Some(FlowError::new(format!(
            "Subgraph node \"{id}\" outputSchema failed to compile: {primary}"
        )));
    }
    let convergence = field(node, "convergence");
    if convergence
        .and_then(Value::as_str)
        .is_some_and(|c| SUBGRAPH_CONVERGENCE.contains(&c))
    {
        return None;
    }
    let modes = SUBGRAPH_CONVERGENCE.join(" | ");
    error(format!(
        "must be one of {modes} (got {})",
        js_text(convergence)
    ))
}

pub(super) fn mappings(flow: &Flow<'_>) -> Option<FlowError> {
    // Node ids are unique flow-wide, so a mapping may name a node at any depth.
    let ids: HashSet<&str> = flow.all_nodes.iter().map(|node| id_of(node)).collect();
    for node in &flow.all_nodes {
        if matches!(kind_of(node), "loop" | "fanout" | "subgraph") {
            continue;
        }
        let Some(mapping) = field(node, "inputMapping") else {
            continue;
        };
        let id = id_of(node);
        if let Some((key, reason)) = first_bad_entry(mapping, &ids, Some(id)) {
            return Some(FlowError::new(format!(
                "Node \"{id}\" inputMapping key \"{key}\": {reason}"
            )));
        }
    }
    let mapping = field(flow.map.get("output")?, "mapping")?;
    let (key, reason) = first_bad_entry(mapping, &ids, None)?;
    Some(FlowError::new(format!(
        "The flow output key \"{key}\": {reason}"
    )))
}

fn first_bad_entry<'a>(
    mapping: &'a Value,
    ids: &HashSet<&str>,
    own: Option<&str>,
) -> Option<(&'a str, String)> {
    let entries = js_entries(mapping.as_object()?);
    entries.into_iter().find_map(|(key, operand)| {
        mapping_path_problem(operand, ids, own).map(|reason| (key.as_str(), reason))
    })
}

/// Why a mapped path can never resolve: a loop-only root, a node the flow lacks, or the
/// node's own output. Literals always resolve.
fn mapping_path_problem(operand: &Value, ids: &HashSet<&str>, own: Option<&str>) -> Option<String> {
    let path = field(operand, "path")?.as_str()?;
    let mut segments = path.split('.');
    let root = segments.next().unwrap_or("");
    let node_id = segments.next().unwrap_or("");
    if root == "iterationIndex" || root == "iterationOutput" {
        return Some(format!(
            "{root} is only available in a loop's exitCondition"
        ));
    }
    if root != "nodeOutputs" {
        return None;
    }
    if !ids.contains(node_id) {
        return Some(format!("nodeOutputs.{node_id} names no node in this flow"));
    }
    (Some(node_id) == own).then(|| "a node cannot map its own output".to_owned())
}

pub(super) fn flow_output_schema(flow: &Flow<'_>) -> Option<FlowError> {
    let schema = field(flow.map.get("output")?, "schema")?;
    let primary = compile_error(schema)?;
    Some(FlowError::new(format!(
        "Flow output schema failed to compile: {primary}"
    )))
}

//! `@kindgi/flow`'s `loadFlow` (flow schema-version 1.9.0): the same verdict, and on a refusal
//! the same `message`, for a flow as the indexer reads it (`JSON.stringify` of the file's
//! default export, parsed with `preserve_order`).
//!
//! The loader stops at the first problem, checking in this order:
//!
//! 1. conformance to `flow.schema.json` (`schema.rs`), one message for any failure;
//! 2. no node, at any depth, named by a sentinel (`checks.rs`, to step 11);
//! 3. node ids unique flow-wide;
//! 4. edge ids unique across the outer flow and every loop body;
//! 5. outer edge endpoints;
//! 6. predicate structure;
//! 7. edge policies;
//! 8. loop `maxIterations`;
//! 9. loop variants;
//! 10. loop output schemas compile;
//! 11. foreach `concurrency`;
//! 12. fanout nodes (`nodes.rs`, to step 15);
//! 13. subgraph nodes;
//! 14. data-flow mappings;
//! 15. the flow output schema compiles;
//! 16. an outer `$start` edge (`graph.rs`, to the end);
//! 17. no outer cycle;
//! 18. each loop body's `$loop-start` edge, endpoints and cycles.
//!
//! It fills in no defaults: a flow that passes comes back as it was given.

mod checks;
mod graph;
mod inline_schema;
mod nodes;
mod schema;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_checks;
#[cfg(test)]
mod tests_graph;

use serde_json::{Map, Value};
use std::fmt;

/// Why `loadFlow` refused a flow: its error's `message`, the only part the indexer reports.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowError {
    pub message: String,
}

impl FlowError {
    fn new(message: impl Into<String>) -> Self {
        FlowError {
            message: message.into(),
        }
    }
}

impl fmt::Display for FlowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for FlowError {}

/// The `$id` of the flow schema; a value that does not conform is refused naming it.
const FLOW_SCHEMA_ID: &str = "https://kindgi.com/schemas/v1/flow.schema.json";

/// One pass after schema conformance: the first problem it finds, if any.
type Check = fn(&Flow<'_>) -> Option<FlowError>;

/// The semantic passes, in the loader's order.
const CHECKS: [Check; 17] = [
    checks::reserved_ids,
    checks::duplicate_nodes,
    checks::duplicate_edges,
    checks::outer_edge_references,
    checks::predicates,
    checks::edge_policies,
    checks::loop_max_iterations,
    checks::loop_variants,
    checks::loop_output_schemas,
    checks::loop_concurrency,
    nodes::fanout_nodes,
    nodes::subgraph_nodes,
    nodes::mappings,
    nodes::flow_output_schema,
    graph::start_edge,
    graph::outer_cycle,
    graph::loop_bodies,
];

/// Validates `raw` as `loadFlow` does and returns the flow's fields unchanged.
pub fn load_flow(raw: &Value) -> Result<Map<String, Value>, FlowError> {
    let map = match raw {
        Value::Object(map) if schema::conforms(raw) => map,
        _ => {
            return Err(FlowError::new(format!(
                "Data does not validate against {FLOW_SCHEMA_ID}"
            )))
        }
    };
    let flow = Flow::new(map);
    match CHECKS.iter().find_map(|check| check(&flow)) {
        Some(error) => Err(error),
        None => Ok(map.clone()),
    }
}

/// A flow that passed the schema, with its nodes walked once: the outer nodes and, depth
/// first, every loop body's (the loader's `collectAllNodes` order).
struct Flow<'a> {
    map: &'a Map<String, Value>,
    all_nodes: Vec<&'a Value>,
}

impl<'a> Flow<'a> {
    fn new(map: &'a Map<String, Value>) -> Self {
        let mut all_nodes = Vec::new();
        collect_nodes(items(map.get("nodes")), &mut all_nodes);
        Flow { map, all_nodes }
    }

    fn id(&self) -> &'a str {
        text(self.map.get("id"))
    }

    fn nodes(&self) -> &'a [Value] {
        items(self.map.get("nodes"))
    }

    fn edges(&self) -> &'a [Value] {
        items(self.map.get("edges"))
    }

    /// Every loop node, outer or nested, in walk order.
    fn loops(&self) -> impl Iterator<Item = &'a Value> + '_ {
        self.nodes_of_kind("loop")
    }

    fn nodes_of_kind(&self, kind: &'static str) -> impl Iterator<Item = &'a Value> + '_ {
        self.all_nodes
            .iter()
            .copied()
            .filter(move |node| kind_of(node) == kind)
    }
}

fn collect_nodes<'a>(nodes: &'a [Value], into: &mut Vec<&'a Value>) {
    for node in nodes {
        into.push(node);
        if kind_of(node) == "loop" {
            collect_nodes(body_nodes(node), into);
        }
    }
}

/// `value[key]` on an object; `None` for a missing key (JavaScript's `undefined`).
fn field<'a>(value: &'a Value, key: &str) -> Option<&'a Value> {
    value.as_object()?.get(key)
}

/// A string member as text; the schema has made every one the loader reads a string.
fn text(value: Option<&Value>) -> &str {
    value.and_then(Value::as_str).unwrap_or("")
}

fn items(value: Option<&Value>) -> &[Value] {
    value.and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn id_of(node: &Value) -> &str {
    text(field(node, "id"))
}

fn kind_of(node: &Value) -> &str {
    text(field(node, "kind"))
}

fn body_nodes(loop_node: &Value) -> &[Value] {
    items(field(loop_node, "body").and_then(|body| field(body, "nodes")))
}

fn body_edges(loop_node: &Value) -> &[Value] {
    items(field(loop_node, "body").and_then(|body| field(body, "edges")))
}

/// JavaScript's `String(value)` (`undefined` for a missing member), as a template literal
/// writes a value into a message.
fn js_text(value: Option<&Value>) -> String {
    crate::js::js_string(value)
}

/// `Number.isInteger(value)`.
fn is_integer(value: Option<&Value>) -> bool {
    value
        .and_then(Value::as_f64)
        .is_some_and(|n| n.is_finite() && n.fract() == 0.0)
}

/// A number member as JavaScript holds it (`NaN` for anything else, which compares false).
fn number(value: Option<&Value>) -> f64 {
    value.and_then(Value::as_f64).unwrap_or(f64::NAN)
}

/// An object's own keys in JavaScript's order (`Object.entries`, `for…in`): array-index keys
/// ascending, then the rest as inserted.
fn js_entries(map: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut indexed: Vec<(u32, (&String, &Value))> = map
        .iter()
        .filter_map(|entry| crate::json::array_index(entry.0).map(|at| (at, entry)))
        .collect();
    indexed.sort_by_key(|(at, _)| *at);
    let mut entries: Vec<(&String, &Value)> = indexed.into_iter().map(|(_, e)| e).collect();
    entries.extend(
        map.iter()
            .filter(|(key, _)| crate::json::array_index(key).is_none()),
    );
    entries
}

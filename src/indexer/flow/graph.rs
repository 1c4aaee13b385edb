//! The graph passes that close the loader: the outer flow's `$start` edge and cycles, then
//! each loop body's `$loop-start` edge, endpoints and cycles.

use super::checks::unknown_endpoint;
use super::{body_edges, body_nodes, field, id_of, text, Flow, FlowError};
use serde_json::Value;
use std::collections::{HashMap, HashSet, VecDeque};

const START: &str = "$start";
const END: &str = "$end";
const LOOP_START: &str = "$loop-start";
const LOOP_END: &str = "$loop-end";

pub(super) fn start_edge(flow: &Flow<'_>) -> Option<FlowError> {
    if flow
        .edges()
        .iter()
        .any(|edge| text(field(edge, "from")) == START)
    {
        return None;
    }
    let id = flow.id();
    Some(FlowError::new(format!(
        "Flow \"{id}\" has no edge originating at $start"
    )))
}

pub(super) fn outer_cycle(flow: &Flow<'_>) -> Option<FlowError> {
    let cycle = find_cycle(flow.nodes(), flow.edges(), START, END)?;
    let id = flow.id();
    Some(FlowError::new(format!(
        "Flow \"{id}\" contains a cycle: {cycle}"
    )))
}

pub(super) fn loop_bodies(flow: &Flow<'_>) -> Option<FlowError> {
    flow.loops().find_map(|lp| {
        let id = id_of(lp);
        let edges = body_edges(lp);
        if !edges
            .iter()
            .any(|edge| text(field(edge, "from")) == LOOP_START)
        {
            return Some(FlowError::new(format!(
                "Loop node \"{id}\" body has no edge originating at $loop-start"
            )));
        }
        let nodes = body_nodes(lp);
        let known: HashSet<&str> = nodes.iter().map(id_of).collect();
        if let Some((edge, endpoint, named)) = unknown_endpoint(edges, &known, LOOP_START, LOOP_END)
        {
            return Some(FlowError::new(format!(
                "Loop \"{id}\" body edge \"{edge}\" {endpoint} unknown node \"{named}\""
            )));
        }
        let cycle = find_cycle(nodes, edges, LOOP_START, LOOP_END)?;
        Some(FlowError::new(format!(
            "Loop node \"{id}\" body contains a cycle: {cycle}"
        )))
    })
}

/// The loader's cycle witness for one scope, joined with ` → `, when Kahn's algorithm leaves
/// nodes undrained; `None` for a DAG. Edges from the start sentinel or to the end sentinel
/// are left out, as are edges from an unknown node (earlier passes refused those).
fn find_cycle(nodes: &[Value], edges: &[Value], start: &str, end: &str) -> Option<String> {
    // Node order is the loader's `Map` insertion order, which decides both the drain and
    // where the witness starts.
    let order: Vec<&str> = nodes.iter().map(id_of).collect();
    let mut successors: HashMap<&str, Vec<&str>> =
        order.iter().map(|id| (*id, Vec::new())).collect();
    let mut in_degree: HashMap<&str, usize> = order.iter().map(|id| (*id, 0)).collect();
    for edge in edges {
        let (from, to) = (text(field(edge, "from")), text(field(edge, "to")));
        if from == start || to == end {
            continue;
        }
        let Some(next) = successors.get_mut(from) else {
            continue;
        };
        next.push(to);
        *in_degree.entry(to).or_insert(0) += 1;
    }
    let mut ready: VecDeque<&str> = order
        .iter()
        .copied()
        .filter(|id| in_degree.get(id) == Some(&0))
        .collect();
    while let Some(current) = ready.pop_front() {
        for next in successors.get(current).map_or(&[][..], Vec::as_slice) {
            if let Some(degree) = in_degree.get_mut(next) {
                *degree = degree.saturating_sub(1);
                if *degree == 0 {
                    ready.push_back(next);
                }
            }
        }
    }
    let remaining: Vec<&str> = order
        .iter()
        .copied()
        .filter(|id| in_degree.get(id).is_some_and(|d| *d > 0))
        .collect();
    if remaining.is_empty() {
        return None;
    }
    Some(witness(&successors, &remaining).join(" → "))
}

/// The loader's walk for a witness: from the first undrained node, always to its first
/// undrained successor, until it meets a node already on the path (the cycle is the path from
/// there, closed by that node). A first node with no undrained successor gives an empty
/// witness, as the loader's does.
///
/// A dead end deeper in the walk never ends in the loader: it backs up to the parent, which
/// picks the same successor again, forever. Here the search goes on depth first instead, so
/// the refusal still names a cycle.
fn witness<'a>(successors: &HashMap<&'a str, Vec<&'a str>>, remaining: &[&'a str]) -> Vec<&'a str> {
    let undrained: HashSet<&str> = remaining.iter().copied().collect();
    let first_next = |node: &str| {
        successors
            .get(node)
            .and_then(|list| list.iter().copied().find(|next| undrained.contains(next)))
    };
    let Some(&first) = remaining.first() else {
        return Vec::new();
    };
    let mut path = vec![first];
    loop {
        let Some(&node) = path.last() else {
            return Vec::new();
        };
        match first_next(node) {
            Some(next) => {
                if let Some(at) = path.iter().position(|on| *on == next) {
                    let mut cycle = path.split_off(at);
                    cycle.push(next);
                    return cycle;
                }
                path.push(next);
            }
            None if path.len() == 1 => return Vec::new(),
            None => return depth_first_witness(successors, &undrained, remaining),
        }
    }
}

/// A cycle among the undrained nodes (Kahn's algorithm leaves one whenever it leaves any),
/// by depth-first searches from each of them in order, trying successors in edge order and
/// leaving a dead end behind for good.
fn depth_first_witness<'a>(
    successors: &HashMap<&'a str, Vec<&'a str>>,
    undrained: &HashSet<&'a str>,
    remaining: &[&'a str],
) -> Vec<&'a str> {
    let mut finished: HashSet<&str> = HashSet::new();
    for &first in remaining {
        if finished.contains(first) {
            continue;
        }
        // Each frame: a node on the path and how many of its successors were tried.
        let mut stack: Vec<(&str, usize)> = vec![(first, 0)];
        while let Some((node, tried)) = stack.last().copied() {
            let next = successors
                .get(node)
                .and_then(|list| list.get(tried).copied());
            let Some(next) = next else {
                finished.insert(node);
                stack.pop();
                continue;
            };
            if let Some(top) = stack.last_mut() {
                top.1 += 1;
            }
            if !undrained.contains(next) || finished.contains(next) {
                continue;
            }
            if let Some(at) = stack.iter().position(|(on, _)| *on == next) {
                let mut cycle: Vec<&str> = stack[at..].iter().map(|(on, _)| *on).collect();
                cycle.push(next);
                return cycle;
            }
            stack.push((next, 0));
        }
    }
    Vec::new()
}

//! Cycles (the loader's witness, node order and edge order included) and loop bodies.

use super::tests::{edge, flow, foreach, leaf};
use super::*;
use serde_json::json;

fn message(value: Value) -> String {
    match load_flow(&value) {
        Ok(_) => "OK".to_owned(),
        Err(error) => error.message,
    }
}

/// Leaves named `ids`, with `$start` into the first and `edges` (`(from, to)`) between them.
fn graph(ids: &[&str], edges: &[(&str, &str)]) -> Value {
    let nodes: Vec<Value> = ids.iter().map(|id| leaf(id)).collect();
    let mut list = vec![edge("s", "$start", ids[0])];
    for (at, (from, to)) in edges.iter().enumerate() {
        list.push(edge(&format!("e{at}"), from, to));
    }
    flow(Value::Array(nodes), Value::Array(list))
}

#[test]
fn a_dag_passes_with_fan_in_and_parallel_edges() {
    let diamond = graph(
        &["a", "b", "c", "d"],
        &[
            ("a", "b"),
            ("a", "c"),
            ("b", "d"),
            ("c", "d"),
            ("d", "$end"),
            ("a", "d"),
        ],
    );
    assert_eq!(message(diamond), "OK");
    // Two edges between the same nodes count twice in the in-degree, and drain twice.
    assert_eq!(message(graph(&["a", "b"], &[("a", "b"), ("a", "b")])), "OK");
}

#[test]
fn the_witness_walks_first_successors_from_the_first_undrained_node() {
    assert_eq!(
        message(graph(&["a", "b"], &[("a", "b"), ("b", "a")])),
        "Flow \"acme.flow\" contains a cycle: a → b → a"
    );
    assert_eq!(
        message(graph(
            &["a", "b", "c"],
            &[("a", "b"), ("b", "c"), ("c", "a")]
        )),
        "Flow \"acme.flow\" contains a cycle: a → b → c → a"
    );
    assert_eq!(
        message(graph(&["a"], &[("a", "a")])),
        "Flow \"acme.flow\" contains a cycle: a → a"
    );
    // Drained nodes are not walked: `x` feeds the cycle but has in-degree 0.
    assert_eq!(
        message(graph(
            &["x", "b", "c"],
            &[("x", "b"), ("b", "c"), ("c", "b")]
        )),
        "Flow \"acme.flow\" contains a cycle: b → c → b"
    );
    // The walk enters at the first node in node order; the witness starts where it closes.
    assert_eq!(
        message(graph(
            &["q", "p", "r"],
            &[("r", "p"), ("p", "q"), ("q", "r")]
        )),
        "Flow \"acme.flow\" contains a cycle: q → r → p → q"
    );
    assert_eq!(
        message(graph(
            &["p", "q", "r", "t"],
            &[("p", "q"), ("q", "r"), ("r", "q"), ("t", "p"), ("r", "t")]
        )),
        "Flow \"acme.flow\" contains a cycle: q → r → q"
    );
}

#[test]
fn a_first_undrained_node_without_undrained_successors_gives_an_empty_witness() {
    // `c` comes first and only hangs off the cycle: the loader's walk backs out of it at once.
    assert_eq!(
        message(graph(
            &["c", "a", "b"],
            &[("a", "b"), ("b", "a"), ("a", "c")]
        )),
        "Flow \"acme.flow\" contains a cycle: "
    );
}

#[test]
fn a_dead_end_deeper_in_the_walk_still_names_a_cycle() {
    // The loader never returns here (it re-enters the dead end `x` from `a` forever); the
    // depth-first fallback names the cycle instead.
    assert_eq!(
        message(graph(
            &["a", "b", "x"],
            &[("a", "x"), ("a", "b"), ("b", "a")]
        )),
        "Flow \"acme.flow\" contains a cycle: a → b → a"
    );
    // Starting from a node that only leads to dead ends, the fallback tries the next one.
    assert_eq!(
        message(graph(
            &["c", "d", "a", "b"],
            &[("a", "b"), ("b", "a"), ("a", "c"), ("c", "d")]
        )),
        "Flow \"acme.flow\" contains a cycle: a → b → a"
    );
}

#[test]
fn a_loop_body_has_its_own_start_edge_endpoints_and_cycles() {
    let outer = |lp: Value| flow(json!([lp]), json!([edge("e1", "$start", "l")]));
    let body = |edges: Value| outer(foreach("l", json!([leaf("b"), leaf("c")]), edges));
    assert_eq!(
        message(body(json!([edge("b1", "b", "$loop-end")]))),
        "Loop node \"l\" body has no edge originating at $loop-start"
    );
    assert_eq!(
        message(body(json!([
            edge("b1", "$loop-start", "b"),
            edge("b2", "b", "$end")
        ]))),
        "Loop \"l\" body edge \"b2\" to unknown node \"$end\""
    );
    assert_eq!(
        message(body(json!([
            edge("b1", "$loop-start", "b"),
            edge("b2", "ghost", "c")
        ]))),
        "Loop \"l\" body edge \"b2\" from unknown node \"ghost\""
    );
    assert_eq!(
        message(body(json!([
            edge("b1", "$loop-start", "b"),
            edge("b2", "b", "c"),
            edge("b3", "c", "b"),
            edge("b4", "c", "$loop-end")
        ]))),
        "Loop node \"l\" body contains a cycle: b → c → b"
    );
    assert_eq!(
        message(body(json!([
            edge("b1", "$loop-start", "b"),
            edge("b2", "b", "c"),
            edge("b3", "c", "$loop-end")
        ]))),
        "OK"
    );
    // The outer flow's nodes are not body nodes.
    let lp = foreach(
        "l",
        json!([leaf("b")]),
        json!([edge("b1", "$loop-start", "a")]),
    );
    let value = flow(
        json!([leaf("a"), lp]),
        json!([edge("e1", "$start", "a"), edge("e2", "a", "l")]),
    );
    assert_eq!(
        message(value),
        "Loop \"l\" body edge \"b1\" to unknown node \"a\""
    );
}

#[test]
fn nested_loop_bodies_are_checked_after_their_parent() {
    let inner = foreach(
        "inner",
        json!([leaf("x")]),
        json!([edge("i1", "x", "$loop-end")]),
    );
    let outer_loop = foreach(
        "outer",
        json!([inner, leaf("y")]),
        json!([edge("o1", "$loop-start", "inner"), edge("o2", "y", "y")]),
    );
    // The parent's body cycle is found before the nested body's missing start edge.
    let value = flow(json!([outer_loop]), json!([edge("e1", "$start", "outer")]));
    assert_eq!(
        message(value),
        "Loop node \"outer\" body contains a cycle: y → y"
    );
}

//! `load_flow` end to end: what passes, the one schema message, and each later pass's message.
//! The expected output-schema messages are what Ajv 8 (configured as `compileInlineSchema`
//! configures it) throws for the same schema.

use super::*;
use serde_json::json;

const SCHEMA_FAILED: &str =
    "Data does not validate against https://kindgi.com/schemas/v1/flow.schema.json";

pub(super) fn leaf(id: &str) -> Value {
    json!({"id": id, "kind": "tool", "ref": "acme.noop"})
}

pub(super) fn edge(id: &str, from: &str, to: &str) -> Value {
    json!({"id": id, "from": from, "to": to})
}

pub(super) fn flow(nodes: Value, edges: Value) -> Value {
    json!({"id": "acme.flow", "version": "1.0.0", "nodes": nodes, "edges": edges})
}

/// `$start → a → $end`.
pub(super) fn linear() -> Value {
    flow(
        json!([leaf("a")]),
        json!([edge("e1", "$start", "a"), edge("e2", "a", "$end")]),
    )
}

/// `base` with `key` set (added last if new).
pub(super) fn with(mut base: Value, key: &str, value: Value) -> Value {
    if let Some(map) = base.as_object_mut() {
        map.insert(key.to_owned(), value);
    }
    base
}

/// A loop node around `body_nodes`, entered at the first and left from the last.
pub(super) fn foreach(id: &str, body_nodes: Value, body_edges: Value) -> Value {
    json!({
        "id": id, "kind": "loop", "loopKind": "foreach", "iterateOver": {"path": "runInput.items"},
        "maxIterations": 5, "outputSchema": {"type": "object"},
        "body": {"nodes": body_nodes, "edges": body_edges}
    })
}

fn message(value: Value) -> String {
    match load_flow(&value) {
        Ok(_) => "OK".to_owned(),
        Err(error) => error.message,
    }
}

/// A flow whose one node runs `a`, with `output` declared.
fn with_output(output: Value) -> Value {
    with(linear(), "output", output)
}

/// Every node kind, policy field, predicate shape and mapping, all valid.
fn rich() -> Value {
    json!({
        "$schema": "https://kindgi.com/schemas/v1/flow.schema.json",
        "id": "acme.rich", "version": "1.2.3-rc.1", "name": "Rich", "description": "All of it",
        "maxParallelism": 4, "metadata": {"owner": "acme", "tags": ["x"]},
        "nodes": [
            {"id": "load", "kind": "tool", "ref": "acme.load", "config": {"a": 1},
             "inputMapping": {"q": {"path": "runInput.q"}, "limit": {"literal": 3}}},
            {"id": "w", "kind": "loop", "loopKind": "while", "evaluationTiming": "before",
             "maxIterations": 5, "collectAllIterations": true, "outputSchema": {"type": "object"},
             "exitCondition": {"op": "and", "children": [
                 {"op": "gte", "left": {"path": "iterationIndex"}, "right": {"literal": 3}},
                 {"op": "not", "child": {"op": "truthy", "value": {"path": "iterationOutput.more"}}}]},
             "body": {"nodes": [{"id": "step", "kind": "agent", "ref": "acme.agent"}],
                      "edges": [{"id": "b1", "from": "$loop-start", "to": "step"},
                                {"id": "b2", "from": "step", "to": "$loop-end",
                                 "when": {"op": "exists", "value": {"path": "state.x"}}}]}},
            {"id": "fan", "kind": "fanout", "convergence": "all-succeed", "concurrency": 2,
             "branches": [
                 {"branchId": "a", "handler": "acme.a", "outputSchema": {"type": "object"}},
                 {"branchId": "b", "handler": "acme.b", "outputSchema": {"type": "string"}}]},
            {"id": "sub", "kind": "subgraph", "flowRef": {"flowId": "acme.child", "version": "2.0.0"},
             "inputMapping": {"a": {"path": "nodeOutputs.fan"}, "b": {"literal": null}},
             "outputSchema": {"type": "object"}, "convergence": "settle-all"}
        ],
        "edges": [
            {"id": "e1", "from": "$start", "to": "load", "policy": {
                "retry": {"maxAttempts": 3, "delayMs": 100, "backoff": "exponential", "maxDelayMs": 1000},
                "timeoutMs": 5000, "concurrencyKey": "per-tenant:openai", "priority": -5}},
            {"id": "e2", "from": "load", "to": "w",
             "when": {"op": "in", "value": {"path": "runInput.mode"}, "set": {"literal": ["a"]}}},
            {"id": "e3", "from": "w", "to": "fan",
             "when": {"op": "ne", "left": {"path": "state.s"}, "right": {"path": "nodeOutputs.w.x"}}},
            {"id": "e4", "from": "fan", "to": "sub"},
            {"id": "e5", "from": "sub", "to": "$end"}
        ],
        "output": {"mapping": {"r": {"path": "nodeOutputs.sub.output"}},
                   "schema": {"type": "object", "properties": {"r": {"type": "object"}}, "required": ["r"]}}
    })
}

#[test]
fn a_valid_flow_comes_back_unchanged_in_its_order() {
    let value = rich();
    let loaded = load_flow(&value).expect("valid");
    assert_eq!(Value::Object(loaded.clone()), value);
    // No schema defaults are filled in (`evaluationTiming`, `collectAllIterations`, `backoff`).
    let minimal = linear();
    let loaded = load_flow(&minimal).expect("valid");
    assert_eq!(
        loaded.keys().collect::<Vec<_>>(),
        ["id", "version", "nodes", "edges"]
    );
    assert_eq!(Value::Object(loaded), minimal);
}

#[test]
fn numbers_strings_and_patterns_are_judged_as_ajv_judges_them() {
    let accepted = [
        // `type: integer` is any finite number without a fraction, however it was written.
        with(linear(), "maxParallelism", json!(2.0)),
        with(linear(), "maxParallelism", json!(1e21)),
        // `minLength` counts code points: one emoji is one.
        with(linear(), "name", json!("")),
        with(linear(), "id", json!("😀")),
        with(linear(), "version", json!("10.20.30-alpha-1.x-y.0")),
        with(linear(), "metadata", json!({})),
        with_output(json!({"mapping": {}})),
    ];
    for value in accepted {
        assert_eq!(message(value.clone()), "OK", "{value}");
    }
}

#[test]
fn every_schema_violation_has_the_one_schema_message() {
    let policy = |policy: Value| {
        flow(
            json!([leaf("a")]),
            json!([{"id": "e1", "from": "$start", "to": "a", "policy": policy}]),
        )
    };
    let when = |expr: Value| {
        flow(
            json!([leaf("a")]),
            json!([{"id": "e1", "from": "$start", "to": "a", "when": expr}]),
        )
    };
    let mapped = |mapping: Value| {
        flow(
            json!([{"id": "a", "kind": "tool", "ref": "r", "inputMapping": mapping}]),
            json!([edge("e1", "$start", "a")]),
        )
    };
    let node = |node: Value| flow(json!([node]), json!([edge("e1", "$start", "a")]));
    let looped = |extra: Value| {
        let mut lp = foreach(
            "a",
            json!([leaf("b")]),
            json!([edge("b1", "$loop-start", "b")]),
        );
        if let (Some(map), Some(more)) = (lp.as_object_mut(), extra.as_object()) {
            map.extend(more.clone());
        }
        node(lp)
    };
    let sub = |key: &str, value: Value| {
        let base = json!({"id": "a", "kind": "subgraph", "flowRef": {"flowId": "c", "version": "1.0.0"},
                          "inputMapping": {}, "outputSchema": {}, "convergence": "settle-all"});
        node(with(base, key, value))
    };
    let refused = [
        json!([]),
        json!("flow"),
        Value::Null,
        json!({"id": "x", "version": "1.0.0", "edges": []}),
        flow(json!([]), json!([])),
        with(linear(), "version", json!("v1")),
        with(linear(), "version", json!("1.0")),
        with(linear(), "version", json!("1.0.0+build.1")),
        with(linear(), "version", json!("1.0.0-")),
        with(linear(), "version", json!("1.0.0-a..b")),
        with(linear(), "version", json!("１.0.0")),
        with(linear(), "id", json!("")),
        with(linear(), "name", json!(7)),
        with(linear(), "triggers", json!([])),
        with(linear(), "maxParallelism", json!(0)),
        with(linear(), "maxParallelism", json!(1.5)),
        with(linear(), "maxParallelism", json!("2")),
        with(linear(), "metadata", json!([])),
        node(json!({"id": "a", "kind": "llm", "ref": "x"})),
        node(json!({"id": "a", "kind": "tool", "ref": ""})),
        node(json!({"id": "a", "kind": "tool", "ref": "x", "extra": 1})),
        flow(json!([leaf("a")]), json!([{"id": "e1", "from": "$start"}])),
        flow(
            json!([leaf("a")]),
            json!([{"id": "e1", "from": "$start", "to": ""}]),
        ),
        when(json!({"op": "always", "value": {"literal": true}})),
        when(json!({"op": "and", "children": []})),
        when(json!({"op": "truthy", "value": {"path": "facts.x"}})),
        when(json!({"op": "truthy", "value": {"path": "runInput."}})),
        when(json!({"op": "truthy", "value": {"literal": 1, "path": "state"}})),
        when(json!({"op": "eq", "left": {"literal": 1}})),
        when(json!({"op": "not", "child": {"op": "exists", "value": {"path": "state"}}, "x": 1})),
        mapped(json!({"bad": {"path": "input.x"}})),
        mapped(json!({"bad": {"path": "nodeOutputs"}})),
        mapped(json!({"": {"literal": 1}})),
        mapped(json!({"x": "runInput.x"})),
        with_output(json!({"schema": {"type": "object"}})),
        with_output(json!({"mapping": {}, "schema": true})),
        with_output(json!({"mapping": {}, "extra": 1})),
        policy(json!({"retry": {"maxAttempts": 0}})),
        policy(json!({"retry": {"maxAttempts": 11}})),
        policy(json!({"retry": {"delayMs": 1}})),
        policy(json!({"retry": {"maxAttempts": 3, "delayMs": -50}})),
        policy(json!({"retry": {"maxAttempts": 3, "backoff": "quantum"}})),
        policy(json!({"timeoutMs": 0})),
        policy(json!({"timeoutMs": 3_600_001})),
        policy(json!({"timeoutMs": 100.5})),
        policy(json!({"concurrencyKey": ""})),
        policy(json!({"concurrencyKey": "x".repeat(257)})),
        policy(json!({"concurrencyKey": "k€y"})),
        policy(json!({"concurrencyKey": "k\n1"})),
        policy(json!({"concurrencyKey": 42})),
        policy(json!({"priority": 101})),
        policy(json!({"priority": -101})),
        policy(json!({"priority": 0.5})),
        policy(json!({"suspend": true})),
        looped(json!({"maxIterations": 0})),
        looped(json!({"maxIterations": 10_001})),
        looped(json!({"maxIterations": 2.5})),
        looped(json!({"concurrency": 33})),
        looped(json!({"concurrency": 0})),
        looped(json!({"exitCondition": {"op": "truthy", "value": {"literal": 1}}})),
        looped(json!({"evaluationTiming": "after"})),
        looped(json!({"outputSchema": []})),
        looped(json!({"loopKind": "while"})),
        node(
            json!({"id": "a", "kind": "fanout", "convergence": "settle-all",
                    "branches": [{"branchId": "x", "handler": "h", "outputSchema": {}}]}),
        ),
        sub("convergence", json!("all-succeed")),
        sub("flowRef", json!({"flowId": "c", "version": "^1.0.0"})),
        sub("flowRef", json!({"flowId": "c"})),
        sub("outputSchema", json!(null)),
    ];
    for value in refused {
        assert_eq!(message(value.clone()), SCHEMA_FAILED, "{value}");
    }
}

#[test]
fn a_sentinel_may_not_name_a_node_at_any_depth() {
    assert_eq!(
        message(flow(
            json!([leaf("$end")]),
            json!([edge("e1", "$start", "$end")])
        )),
        "Node id \"$end\" is reserved as a flow sentinel and may not name a node"
    );
    let lp = foreach(
        "l",
        json!([leaf("$loop-start")]),
        json!([edge("b", "$loop-start", "$loop-end")]),
    );
    assert_eq!(
        message(flow(json!([lp]), json!([edge("e1", "$start", "l")]))),
        "Node id \"$loop-start\" is reserved as a flow sentinel and may not name a node"
    );
}

#[test]
fn node_and_edge_ids_are_unique_across_loop_bodies() {
    let lp = foreach(
        "l",
        json!([leaf("a")]),
        json!([edge("e1", "$loop-start", "a")]),
    );
    let value = flow(json!([leaf("a"), lp]), json!([edge("e1", "$start", "a")]));
    assert_eq!(
        message(value),
        "Node id \"a\" is used more than once (across outer flow and loop bodies)"
    );
    let lp = foreach(
        "l",
        json!([leaf("b")]),
        json!([edge("e1", "$loop-start", "b")]),
    );
    let value = flow(json!([leaf("a"), lp]), json!([edge("e1", "$start", "a")]));
    assert_eq!(
        message(value),
        "Edge id \"e1\" is used more than once (across outer flow and loop bodies)"
    );
}

#[test]
fn outer_edges_name_outer_nodes_or_the_outer_sentinels() {
    let value = flow(
        json!([leaf("a")]),
        json!([edge("e1", "$start", "a"), edge("e2", "a", "ghost")]),
    );
    assert_eq!(message(value), "Edge \"e2\" to unknown node \"ghost\"");
    // A body node is not an outer node, and `$loop-start` is not an outer sentinel.
    let lp = foreach(
        "l",
        json!([leaf("b")]),
        json!([edge("b1", "$loop-start", "b")]),
    );
    let value = flow(json!([lp]), json!([edge("e1", "$start", "b")]));
    assert_eq!(message(value), "Edge \"e1\" to unknown node \"b\"");
    let value = flow(
        json!([leaf("a")]),
        json!([edge("e1", "$loop-start", "$start")]),
    );
    assert_eq!(
        message(value),
        "Edge \"e1\" from unknown node \"$loop-start\""
    );
}

#[test]
fn exponential_backoff_needs_a_ceiling() {
    let value = flow(
        json!([leaf("a")]),
        json!([{"id": "e1", "from": "$start", "to": "a",
                "policy": {"retry": {"maxAttempts": 5, "delayMs": 100, "backoff": "exponential"}}}]),
    );
    assert_eq!(
        message(value),
        "Edge \"e1\" has an invalid policy at retry.maxDelayMs: is required when retry.backoff is \"exponential\" (unbounded growth otherwise)"
    );
}

#[test]
fn foreach_concurrency_may_not_exceed_max_iterations() {
    let mut lp = foreach(
        "l",
        json!([leaf("b")]),
        json!([edge("b1", "$loop-start", "b")]),
    );
    lp["concurrency"] = json!(8);
    let value = flow(json!([lp]), json!([edge("e1", "$start", "l")]));
    assert_eq!(
        message(value),
        "Loop node \"l\": concurrency must be <= maxIterations (5) (got 8)"
    );
}

#[test]
fn each_output_schema_must_compile_as_ajv_compiles_it() {
    let mut lp = foreach(
        "l",
        json!([leaf("b")]),
        json!([edge("b1", "$loop-start", "b")]),
    );
    lp["outputSchema"] = json!({"type": "object", "example": 1});
    let value = flow(json!([lp]), json!([edge("e1", "$start", "l")]));
    assert_eq!(
        message(value),
        "Loop node \"l\" outputSchema failed to compile: strict mode: unknown keyword: \"example\""
    );
    let fanout = json!({"id": "f", "kind": "fanout", "convergence": "settle-all", "branches": [
        {"branchId": "x", "handler": "h", "outputSchema": {"type": "object"}},
        {"branchId": "y", "handler": "h", "outputSchema": {"properties": {"a": {}}}}]});
    let value = flow(json!([fanout]), json!([edge("e1", "$start", "f")]));
    assert_eq!(
        message(value),
        "Fanout node \"f\" branch \"y\" outputSchema failed to compile: strict mode: missing type \"object\" for keyword \"properties\" at \"#\" (strictTypes)"
    );
    let sub = json!({"id": "s", "kind": "subgraph", "flowRef": {"flowId": "c", "version": "1.0.0"},
                     "inputMapping": {}, "outputSchema": {"type": "object", "required": ["b"]},
                     "convergence": "success-only"});
    let value = flow(json!([sub]), json!([edge("e1", "$start", "s")]));
    assert_eq!(
        message(value),
        "Subgraph node \"s\" outputSchema failed to compile: strict mode: required property \"b\" is not defined at \"#\" (strictRequired)"
    );
    let value = with_output(json!({"mapping": {}, "schema": {"type": "not-a-type"}}));
    assert_eq!(
        message(value),
        "Flow output schema failed to compile: schema is invalid: data/type must be equal to one of the allowed values, data/type must be array, data/type must match a schema in anyOf"
    );
    let value = with_output(json!({"mapping": {}, "schema": {"type": "string", "format": "nope"}}));
    assert_eq!(
        message(value),
        "Flow output schema failed to compile: unknown format \"nope\" ignored in schema at path \"#\""
    );
}

#[test]
fn the_tunable_annotation_is_a_known_keyword_wherever_a_schema_is() {
    let schema = json!({
        "type": "object", "x-kindgi-tunable": "anything",
        "properties": {
            "recency": {"type": "number", "minimum": 0, "maximum": 1, "x-kindgi-tunable": true},
            "x-kindgi-tunable": {"type": "string"},
            "tone": {"$ref": "#/$defs/tone"}
        },
        "required": ["x-kindgi-tunable"],
        "$defs": {"tone": {"enum": ["plain", "formal"], "x-kindgi-tunable": true}},
        "anyOf": [{"x-kindgi-tunable": 1, "minProperties": 1}, true]
    });
    assert_eq!(
        message(with_output(json!({"mapping": {}, "schema": schema}))),
        "OK"
    );
    // Still one keyword among others: an unknown one beside it is refused.
    let schema = json!({"type": "number", "x-kindgi-tunable": true, "x-other": true});
    assert_eq!(
        message(with_output(json!({"mapping": {}, "schema": schema}))),
        "Flow output schema failed to compile: strict mode: unknown keyword: \"x-other\""
    );
}

#[test]
fn fanout_branch_ids_are_unique_and_concurrency_fits_the_branches() {
    let fanout = |concurrency: Value, second: &str| {
        let node = json!({"id": "f", "kind": "fanout", "convergence": "any-succeed",
            "concurrency": concurrency, "branches": [
                {"branchId": "x", "handler": "h", "outputSchema": {}},
                {"branchId": second, "handler": "h", "outputSchema": {}}]});
        flow(json!([node]), json!([edge("e1", "$start", "f")]))
    };
    assert_eq!(
        message(fanout(json!(2), "x")),
        "Fanout node \"f\" branch \"x\": duplicate branchId \"x\" within fanout"
    );
    assert_eq!(
        message(fanout(json!(3), "y")),
        "Fanout node \"f\": must be <= branches.length (2) — a fanout cannot request more concurrent workers than it has branches (got 3)"
    );
    assert_eq!(message(fanout(json!(2), "y")), "OK");
}

#[test]
fn mappings_name_nodes_of_the_flow_and_never_their_own() {
    let mapped = |mapping: Value| {
        let lp = foreach(
            "l",
            json!([leaf("inner")]),
            json!([edge("b1", "$loop-start", "inner")]),
        );
        flow(
            json!([leaf("load"), {"id": "rank", "kind": "agent", "ref": "r", "inputMapping": mapping}, lp]),
            json!([
                edge("e0", "$start", "load"),
                edge("e1", "load", "rank"),
                edge("e2", "rank", "l")
            ]),
        )
    };
    let ok = json!({"a": {"path": "nodeOutputs.load.x"}, "b": {"path": "nodeOutputs.inner"},
                    "c": {"path": "state"}, "d": {"literal": {"path": "nodeOutputs.ghost"}}});
    assert_eq!(message(mapped(ok)), "OK");
    let cases = [
        (json!({"bad": {"path": "nodeOutputs.missing.x"}}),
         "Node \"rank\" inputMapping key \"bad\": nodeOutputs.missing names no node in this flow"),
        (json!({"bad": {"path": "nodeOutputs.rank.x"}}),
         "Node \"rank\" inputMapping key \"bad\": a node cannot map its own output"),
        (json!({"bad": {"path": "iterationIndex"}}),
         "Node \"rank\" inputMapping key \"bad\": iterationIndex is only available in a loop's exitCondition"),
        (json!({"ok": {"literal": 1}, "bad": {"path": "iterationOutput.x"}}),
         "Node \"rank\" inputMapping key \"bad\": iterationOutput is only available in a loop's exitCondition"),
        // The node id is the second dot-separated segment, so `..` names the empty id.
        (json!({"bad": {"path": "nodeOutputs..load"}}),
         "Node \"rank\" inputMapping key \"bad\": nodeOutputs. names no node in this flow"),
        // Entries are read in JavaScript's key order: array-index keys first.
        (json!({"z": {"path": "nodeOutputs.z1"}, "10": {"path": "nodeOutputs.z2"}, "2": {"path": "nodeOutputs.z3"}}),
         "Node \"rank\" inputMapping key \"2\": nodeOutputs.z3 names no node in this flow"),
    ];
    for (mapping, expected) in cases {
        assert_eq!(message(mapped(mapping)), expected);
    }
    // A node inside a loop body is checked too.
    let lp = foreach(
        "l",
        json!([{"id": "inner", "kind": "tool", "ref": "r", "inputMapping": {"x": {"path": "nodeOutputs.ghost"}}}]),
        json!([edge("b1", "$loop-start", "inner")]),
    );
    assert_eq!(
        message(flow(json!([lp]), json!([edge("e1", "$start", "l")]))),
        "Node \"inner\" inputMapping key \"x\": nodeOutputs.ghost names no node in this flow"
    );
    let value = with_output(json!({"mapping": {"x": {"path": "nodeOutputs.nope"}}}));
    assert_eq!(
        message(value),
        "The flow output key \"x\": nodeOutputs.nope names no node in this flow"
    );
    // The flow output has no node of its own: any node's output may be mapped.
    let value = with_output(json!({"mapping": {"x": {"path": "nodeOutputs.a.deep"}}}));
    assert_eq!(message(value), "OK");
}

#[test]
fn the_outer_flow_starts_at_start() {
    let value = flow(json!([leaf("a")]), json!([edge("e1", "a", "$end")]));
    assert_eq!(
        message(value),
        "Flow \"acme.flow\" has no edge originating at $start"
    );
    assert_eq!(
        message(flow(json!([leaf("a")]), json!([]))),
        "Flow \"acme.flow\" has no edge originating at $start"
    );
}

#[test]
fn the_passes_run_in_the_loaders_order() {
    // A duplicate edge id is found before a missing `$start` edge.
    let value = flow(
        json!([leaf("a"), leaf("b")]),
        json!([edge("e1", "a", "b"), edge("e1", "b", "$end")]),
    );
    assert!(message(value).starts_with("Edge id \"e1\" is used more than once"));
    // A loop's output schema is compiled before its concurrency is bounded.
    let mut lp = foreach(
        "l",
        json!([leaf("b")]),
        json!([edge("b1", "$loop-start", "b")]),
    );
    lp["concurrency"] = json!(8);
    lp["outputSchema"] = json!({"type": "wrong"});
    let value = flow(json!([lp]), json!([edge("e1", "$start", "l")]));
    assert!(message(value).starts_with("Loop node \"l\" outputSchema failed to compile"));
    // Mappings come before the start edge, the outer cycle before loop bodies.
    let value = flow(
        json!([{"id": "a", "kind": "tool", "ref": "r", "inputMapping": {"x": {"path": "nodeOutputs.a"}}}]),
        json!([]),
    );
    assert!(message(value).ends_with("a node cannot map its own output"));
    let lp = foreach("l", json!([leaf("b")]), json!([]));
    let value = flow(
        json!([lp, leaf("a")]),
        json!([
            edge("e1", "$start", "l"),
            edge("e2", "l", "a"),
            edge("e3", "a", "l")
        ]),
    );
    assert_eq!(
        message(value),
        "Flow \"acme.flow\" contains a cycle: l → a → l"
    );
}

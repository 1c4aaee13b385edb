//! The passes that repeat a schema rule can't be reached through `load_flow` (the schema step
//! refuses first); their messages are checked here on values given to them directly.

use super::checks::{self, expr_problem, operand_problem, policy_problem};
use super::nodes;
use super::tests::{edge, flow, leaf};
use super::*;
use serde_json::json;

/// What `check` says of `value`, skipping the schema step.
fn run(check: Check, value: Value) -> Option<String> {
    let map = value.as_object()?;
    check(&Flow::new(map)).map(|error| error.message)
}

fn one_node(node: Value) -> Value {
    flow(json!([node]), json!([edge("e1", "$start", "n")]))
}

#[test]
fn predicate_structure() {
    let cases = [
        (json!({"op": "always"}), "unknown operator \"always\""),
        (
            json!({"value": {"literal": 1}}),
            "unknown operator \"undefined\"",
        ),
        (json!({"op": 5}), "unknown operator \"5\""),
        (
            json!({"op": "or", "children": []}),
            "or requires at least one child",
        ),
        (
            json!({"op": "eq", "left": {"path": ""}, "right": {"literal": 1}}),
            "left: path must be a non-empty string",
        ),
        (
            json!({"op": "lt", "left": {"literal": 1}, "right": {}}),
            "right: operand must be a {literal} or {path}",
        ),
        (
            json!({"op": "in", "value": {"path": 3}, "set": {"literal": []}}),
            "value: path must be a non-empty string",
        ),
        (
            json!({"op": "notIn", "value": {"literal": 1}, "set": []}),
            "set: operand must be a {literal} or {path}",
        ),
        (
            json!({"op": "falsy", "value": {"x": 1}}),
            "operand must be a {literal} or {path}",
        ),
        (
            json!({"op": "and", "children": [{"op": "truthy", "value": {"literal": 0}}, {"op": "not", "child": {"op": "nope"}}]}),
            "unknown operator \"nope\"",
        ),
    ];
    for (expr, reason) in cases {
        assert_eq!(expr_problem(&expr).as_deref(), Some(reason), "{expr}");
    }
    assert_eq!(
        expr_problem(&json!({"op": "exists", "value": {"path": "state.x"}})),
        None
    );
    // `'literal' in operand` holds whatever the literal is.
    assert_eq!(
        operand_problem(Some(&json!({"literal": null, "path": ""}))),
        None
    );
}

#[test]
fn predicate_messages_name_the_edge_or_loop() {
    let bad = json!({"op": "or", "children": []});
    let value = flow(
        json!([leaf("a")]),
        json!([{"id": "e1", "from": "$start", "to": "a", "when": bad}]),
    );
    assert_eq!(
        run(checks::predicates, value).as_deref(),
        Some("Edge \"e1\" has an invalid predicate: or requires at least one child")
    );
    let lp = json!({"id": "n", "kind": "loop", "loopKind": "while", "exitCondition": bad,
        "body": {"nodes": [], "edges": [{"id": "b1", "from": "$loop-start", "to": "x", "when": bad}]}});
    assert_eq!(
        run(checks::predicates, one_node(lp.clone())).as_deref(),
        Some("Loop node \"n\" has an invalid exitCondition: or requires at least one child")
    );
    let mut foreach = lp;
    foreach["loopKind"] = json!("foreach");
    assert_eq!(
        run(checks::predicates, one_node(foreach)).as_deref(),
        Some(
            "Loop \"n\" body edge \"b1\" has an invalid predicate: or requires at least one child"
        )
    );
}

#[test]
fn edge_policy_bounds() {
    let cases = [
        (
            json!({"retry": {"maxAttempts": 1.5}}),
            "retry.maxAttempts",
            "must be an integer",
        ),
        (
            json!({"retry": {}}),
            "retry.maxAttempts",
            "must be an integer",
        ),
        (
            json!({"retry": {"maxAttempts": 11}}),
            "retry.maxAttempts",
            "must be within [1, 10] (got 11)",
        ),
        (
            json!({"retry": {"maxAttempts": 2, "delayMs": -1}}),
            "retry.delayMs",
            "must be a non-negative integer (got -1)",
        ),
        (
            json!({"retry": {"maxAttempts": 2, "delayMs": "5"}}),
            "retry.delayMs",
            "must be a non-negative integer (got 5)",
        ),
        (
            json!({"retry": {"maxAttempts": 2, "backoff": "quantum"}}),
            "retry.backoff",
            "must be one of \"fixed\" | \"linear\" | \"exponential\" (got quantum)",
        ),
        (
            json!({"retry": {"maxAttempts": 2, "backoff": null}}),
            "retry.backoff",
            "must be one of \"fixed\" | \"linear\" | \"exponential\" (got null)",
        ),
        (
            json!({"retry": {"maxAttempts": 2, "maxDelayMs": 0.5}}),
            "retry.maxDelayMs",
            "must be a non-negative integer (got 0.5)",
        ),
        (
            json!({"retry": {"maxAttempts": 2, "backoff": "exponential"}}),
            "retry.maxDelayMs",
            "is required when retry.backoff is \"exponential\" (unbounded growth otherwise)",
        ),
        (
            json!({"timeoutMs": 1.25}),
            "timeoutMs",
            "must be an integer (got 1.25)",
        ),
        (json!({"timeoutMs": 0}), "timeoutMs", "must be >= 1 (got 0)"),
        (
            json!({"timeoutMs": 3_600_001}),
            "timeoutMs",
            "must be <= 3600000 (1 hour cap; got 3600001)",
        ),
        (
            json!({"concurrencyKey": 42}),
            "concurrencyKey",
            "must be a string",
        ),
        (
            json!({"concurrencyKey": ""}),
            "concurrencyKey",
            "must not be empty",
        ),
        (
            json!({"concurrencyKey": "k\u{1}"}),
            "concurrencyKey",
            "must contain only printable ASCII (0x20..0x7E)",
        ),
        (
            json!({"priority": "high"}),
            "priority",
            "must be a number (got string)",
        ),
        (
            json!({"priority": null}),
            "priority",
            "must be a number (got object)",
        ),
        (
            json!({"priority": 2.5}),
            "priority",
            "must be an integer (got 2.5)",
        ),
        (
            json!({"priority": -101}),
            "priority",
            "must be within [-100, 100] (got -101)",
        ),
        // The first broken field in the loader's order wins.
        (
            json!({"priority": 500, "timeoutMs": 0}),
            "timeoutMs",
            "must be >= 1 (got 0)",
        ),
    ];
    for (policy, field, reason) in cases {
        let got = policy_problem(&policy);
        assert_eq!(got, Some((field, reason.to_owned())), "{policy}");
    }
    // `length` is in UTF-16 code units: a 200-emoji key is 400 long.
    let key = "😀".repeat(200);
    assert_eq!(
        policy_problem(&json!({"concurrencyKey": key})),
        Some((
            "concurrencyKey",
            "must be <= 256 chars (got 400)".to_owned()
        ))
    );
    let ok = json!({"retry": {"maxAttempts": 10, "delayMs": 0, "backoff": "linear"},
                    "timeoutMs": 3_600_000, "concurrencyKey": "~ ok", "priority": 100});
    assert_eq!(policy_problem(&ok), None);
    let value = flow(
        json!([leaf("a")]),
        json!([{"id": "e9", "from": "$start", "to": "a", "policy": {"priority": 101}}]),
    );
    assert_eq!(
        run(checks::edge_policies, value).as_deref(),
        Some("Edge \"e9\" has an invalid policy at priority: must be within [-100, 100] (got 101)")
    );
}

#[test]
fn loop_bounds_and_variants() {
    let lp = |extra: Value| {
        let mut node = json!({"id": "n", "kind": "loop", "loopKind": "while", "maxIterations": 3,
                              "exitCondition": {"op": "truthy", "value": {"literal": 1}},
                              "body": {"nodes": [], "edges": []}});
        if let (Some(map), Some(more)) = (node.as_object_mut(), extra.as_object()) {
            map.extend(more.clone());
        }
        one_node(node)
    };
    let max = |n: Value| run(checks::loop_max_iterations, lp(json!({"maxIterations": n})));
    assert_eq!(
        max(json!(2.5)).as_deref(),
        Some("Loop node \"n\": maxIterations must be an integer (got 2.5)")
    );
    assert_eq!(
        max(json!("3")).as_deref(),
        Some("Loop node \"n\": maxIterations must be an integer (got 3)")
    );
    assert_eq!(
        max(json!(0)).as_deref(),
        Some("Loop node \"n\": maxIterations must be >= 1 (got 0)")
    );
    assert_eq!(
        max(json!(10_001)).as_deref(),
        Some("Loop node \"n\": maxIterations must be <= 10000 (got 10001)")
    );
    assert_eq!(max(json!(10_000)), None);

    let variant = |extra: Value| run(checks::loop_variants, lp(extra));
    let cases = [
        (json!({"exitCondition": null}), None),
        (
            json!({"iterateOver": {"literal": []}}),
            Some("Loop node \"n\" (loopKind=while): while-has-iterate-over"),
        ),
        (
            json!({"concurrency": 2}),
            Some("Loop node \"n\" (loopKind=while): while-has-concurrency"),
        ),
        (
            json!({"evaluationTiming": "during"}),
            Some("Loop node \"n\" (loopKind=while): while-has-invalid-evaluation-timing"),
        ),
        (json!({"evaluationTiming": "before"}), None),
        (
            json!({"loopKind": "foreach"}),
            Some("Loop node \"n\" (loopKind=foreach): foreach-missing-iterate-over"),
        ),
        (
            json!({"loopKind": "foreach", "iterateOver": {"literal": []}}),
            Some("Loop node \"n\" (loopKind=foreach): foreach-has-exit-condition"),
        ),
        (json!({"loopKind": "other"}), None),
    ];
    for (extra, expected) in cases {
        assert_eq!(variant(extra.clone()).as_deref(), expected, "{extra}");
    }
    let mut no_exit = lp(json!({}));
    if let Some(node) = no_exit["nodes"][0].as_object_mut() {
        node.remove("exitCondition");
    }
    assert_eq!(
        run(checks::loop_variants, no_exit).as_deref(),
        Some("Loop node \"n\" (loopKind=while): while-missing-exit-condition")
    );
    let mut timed = lp(
        json!({"loopKind": "foreach", "iterateOver": {"literal": []}, "evaluationTiming": "after"}),
    );
    if let Some(node) = timed["nodes"][0].as_object_mut() {
        node.remove("exitCondition");
    }
    assert_eq!(
        run(checks::loop_variants, timed).as_deref(),
        Some("Loop node \"n\" (loopKind=foreach): foreach-has-evaluation-timing")
    );

    let concurrency = |c: Value| {
        run(
            checks::loop_concurrency,
            lp(json!({"loopKind": "foreach", "concurrency": c})),
        )
    };
    assert_eq!(
        concurrency(json!(1.5)).as_deref(),
        Some("Loop node \"n\": concurrency must be an integer (got 1.5)")
    );
    assert_eq!(
        concurrency(json!(0)).as_deref(),
        Some("Loop node \"n\": concurrency must be >= 1 (got 0)")
    );
    assert_eq!(
        concurrency(json!(33)).as_deref(),
        Some("Loop node \"n\": concurrency must be <= 32 (safety cap) (got 33)")
    );
    assert_eq!(concurrency(json!(3)), None);
    // A while loop's concurrency is a variant problem, not a bound.
    assert_eq!(
        run(checks::loop_concurrency, lp(json!({"concurrency": 99}))),
        None
    );
}

#[test]
fn fanout_rules() {
    let fanout = |branches: Value, extra: Value| {
        let mut node =
            json!({"id": "n", "kind": "fanout", "convergence": "settle-all", "branches": branches});
        if let (Some(map), Some(more)) = (node.as_object_mut(), extra.as_object()) {
            map.extend(more.clone());
        }
        run(nodes::fanout_nodes, one_node(node))
    };
    let b = |id: &str| json!({"branchId": id, "handler": "h", "outputSchema": {}});
    let two = json!([b("x"), b("y")]);
    let cases = [
        (json!([b("x")]), json!({}), "Fanout node \"n\": must declare at least 2 branches"),
        (json!({}), json!({}), "Fanout node \"n\": must declare at least 2 branches"),
        (json!([b("x"), {"handler": "h"}]), json!({}), "Fanout node \"n\": each branch must declare a non-empty string branchId"),
        (json!([b("x"), b("")]), json!({}), "Fanout node \"n\": each branch must declare a non-empty string branchId"),
        (json!([b("x"), {"branchId": "y", "handler": ""}]), json!({}),
         "Fanout node \"n\" branch \"y\": branch \"y\" must declare a non-empty string handler"),
        (json!([b("x"), {"branchId": "y", "handler": "h", "outputSchema": null}]), json!({}),
         "Fanout node \"n\" branch \"y\": branch \"y\" must declare an outputSchema (typed escape contract)"),
        (two.clone(), json!({"convergence": "first"}), "Fanout node \"n\": must be one of all-succeed | any-succeed | settle-all (got first)"),
        (two.clone(), json!({"convergence": ["a", null]}), "Fanout node \"n\": must be one of all-succeed | any-succeed | settle-all (got a,)"),
        (two.clone(), json!({"concurrency": "2"}), "Fanout node \"n\": must be an integer (got 2)"),
        (two.clone(), json!({"concurrency": 0}), "Fanout node \"n\": must be >= 1 (got 0)"),
    ];
    for (branches, extra, expected) in cases {
        assert_eq!(
            fanout(branches.clone(), extra).as_deref(),
            Some(expected),
            "{branches}"
        );
    }
    let no_convergence = json!({"id": "n", "kind": "fanout", "branches": two});
    assert_eq!(
        run(nodes::fanout_nodes, one_node(no_convergence)).as_deref(),
        Some("Fanout node \"n\": must be one of all-succeed | any-succeed | settle-all (got undefined)")
    );
}

#[test]
fn subgraph_rules() {
    // `None` leaves the member out.
    let sub = |key: &str, value: Option<Value>| {
        let mut node = json!({"id": "n", "kind": "subgraph", "flowRef": {"flowId": "c", "version": "1.0.0"},
                              "inputMapping": {"a": {"literal": 1}}, "outputSchema": {}, "convergence": "settle-all"});
        if let Some(map) = node.as_object_mut() {
            match value {
                Some(value) => map.insert(key.to_owned(), value),
                None => map.remove(key),
            };
        }
        run(nodes::subgraph_nodes, one_node(node))
    };
    let cases = [
        ("flowRef", None, "must be an object"),
        ("flowRef", Some(json!(null)), "must be an object"),
        ("flowRef", Some(json!("c@1.0.0")), "must be an object"),
        // An array is an object to `typeof`; its `flowId` is missing.
        ("flowRef", Some(json!([])), "must be a non-empty string"),
        (
            "flowRef",
            Some(json!({"flowId": "", "version": "1.0.0"})),
            "must be a non-empty string",
        ),
        (
            "flowRef",
            Some(json!({"flowId": "c", "version": 1})),
            "must be a non-empty string",
        ),
        (
            "flowRef",
            Some(json!({"flowId": "c", "version": "~1.0"})),
            "must be an exact semver (no ranges) — got \"~1.0\"",
        ),
        (
            "inputMapping",
            Some(json!([])),
            "must be an object mapping string keys to Operands",
        ),
        (
            "inputMapping",
            Some(json!(null)),
            "must be an object mapping string keys to Operands",
        ),
        (
            "inputMapping",
            Some(json!({"a": "runInput.x"})),
            "entry \"a\" must be an Operand ({ path } or { literal })",
        ),
        (
            "inputMapping",
            Some(json!({"a": {"literal": 1}, "b": []})),
            "entry \"b\" is not a valid Operand: operand must be a {literal} or {path}",
        ),
        // JavaScript's key order: `1` is read before `b`.
        (
            "inputMapping",
            Some(json!({"b": {"path": ""}, "1": {"x": 0}})),
            "entry \"1\" is not a valid Operand: operand must be a {literal} or {path}",
        ),
        (
            "outputSchema",
            None,
            "must be a JSON Schema (draft 2020-12) — the typed escape contract",
        ),
        (
            "outputSchema",
            Some(json!(null)),
            "must be a JSON Schema (draft 2020-12) — the typed escape contract",
        ),
        (
            "convergence",
            Some(json!("all-succeed")),
            "must be one of success-only | settle-all (got all-succeed)",
        ),
        (
            "convergence",
            Some(json!(true)),
            "must be one of success-only | settle-all (got true)",
        ),
    ];
    for (key, value, reason) in cases {
        assert_eq!(
            sub(key, value.clone()),
            Some(format!("Subgraph node \"n\": {reason}")),
            "{key}: {value:?}"
        );
    }
    assert_eq!(sub("convergence", Some(json!("success-only"))), None);
}

//! Conformance to `flow.schema.json` (schema-version 1.9.0), the loader's first step. Only the
//! verdict matters: the loader reports any failure with one fixed message, whatever failed.
//!
//! The schema is Draft 2020-12 run by Ajv, so: `minLength`/`maxLength` count code points,
//! `integer` is a finite number with no fraction, and every object closes its properties
//! (`additionalProperties: false`) except `metadata`, `config` and the output schemas. Its
//! three patterns are simple enough to match by hand; each matcher below accepts exactly what
//! the JavaScript regular expression (flag `u`, `$` at the very end) accepts.

use serde_json::{Map, Value};

/// The whole document.
pub(super) fn conforms(value: &Value) -> bool {
    let Some(map) = value.as_object() else {
        return false;
    };
    const KEYS: &[&str] = &[
        "$schema",
        "id",
        "version",
        "name",
        "description",
        "nodes",
        "edges",
        "metadata",
        "maxParallelism",
        "output",
    ];
    has_all(map, &["id", "version", "nodes", "edges"])
        && only(map, KEYS)
        && optional(map, "$schema", is_string)
        && optional(map, "id", is_non_empty_string)
        && optional(map, "version", is_semver)
        && optional(map, "name", is_string)
        && optional(map, "description", is_string)
        && optional(map, "nodes", |v| array_of(v, 1, node))
        && optional(map, "edges", |v| array_of(v, 0, edge))
        && optional(map, "metadata", Value::is_object)
        && optional(map, "maxParallelism", |v| integer_in(v, Some(1.0), None))
        && optional(map, "output", flow_output)
}

/// `oneOf` leaf / loop / fanout / subgraph.
fn node(value: &Value) -> bool {
    exactly_one(value, &[leaf_node, loop_node, fanout_node, subgraph_node])
}

fn leaf_node(value: &Value) -> bool {
    let Some(map) = value.as_object() else {
        return false;
    };
    has_all(map, &["id", "kind", "ref"])
        && only(map, &["id", "kind", "ref", "config", "inputMapping"])
        && optional(map, "id", is_non_empty_string)
        && optional(map, "kind", |v| one_of_strings(v, &["tool", "agent"]))
        && optional(map, "ref", is_non_empty_string)
        && optional(map, "config", Value::is_object)
        && optional(map, "inputMapping", mapping)
}

fn subgraph_node(value: &Value) -> bool {
    let Some(map) = value.as_object() else {
        return false;
    };
    const KEYS: &[&str] = &[
        "id",
        "kind",
        "flowRef",
        "inputMapping",
        "outputSchema",
        "convergence",
    ];
    has_all(map, KEYS)
        && only(map, KEYS)
        && optional(map, "id", is_non_empty_string)
        && optional(map, "kind", |v| one_of_strings(v, &["subgraph"]))
        && optional(map, "flowRef", flow_ref)
        && optional(map, "inputMapping", mapping)
        && optional(map, "outputSchema", Value::is_object)
        && optional(map, "convergence", |v| {
            one_of_strings(v, &["success-only", "settle-all"])
        })
}

fn flow_ref(value: &Value) -> bool {
    let Some(map) = value.as_object() else {
        return false;
    };
    has_all(map, &["flowId", "version"])
        && only(map, &["flowId", "version"])
        && optional(map, "flowId", is_non_empty_string)
        && optional(map, "version", is_semver)
}

/// `oneOf` while / foreach.
fn loop_node(value: &Value) -> bool {
    exactly_one(value, &[while_loop, foreach_loop])
}

fn while_loop(value: &Value) -> bool {
    let Some(map) = value.as_object() else {
        return false;
    };
    const REQUIRED: &[&str] = &[
        "id",
        "kind",
        "loopKind",
        "body",
        "exitCondition",
        "maxIterations",
        "outputSchema",
    ];
    const KEYS: &[&str] = &[
        "id",
        "kind",
        "loopKind",
        "body",
        "exitCondition",
        "evaluationTiming",
        "maxIterations",
        "outputSchema",
        "collectAllIterations",
    ];
    has_all(map, REQUIRED)
        && only(map, KEYS)
        && loop_common(map, "while")
        && optional(map, "exitCondition", expr)
        && optional(map, "evaluationTiming", |v| {
            one_of_strings(v, &["before", "after"])
        })
}

fn foreach_loop(value: &Value) -> bool {
    let Some(map) = value.as_object() else {
        return false;
    };
    const REQUIRED: &[&str] = &[
        "id",
        "kind",
        "loopKind",
        "body",
        "iterateOver",
        "maxIterations",
        "outputSchema",
    ];
    const KEYS: &[&str] = &[
        "id",
        "kind",
        "loopKind",
        "body",
        "iterateOver",
        "maxIterations",
        "outputSchema",
        "collectAllIterations",
        "concurrency",
    ];
    has_all(map, REQUIRED)
        && only(map, KEYS)
        && loop_common(map, "foreach")
        && optional(map, "iterateOver", operand)
        && optional(map, "concurrency", |v| integer_in(v, Some(1.0), Some(32.0)))
}

/// The members both loop variants declare alike.
fn loop_common(map: &Map<String, Value>, loop_kind: &str) -> bool {
    optional(map, "id", is_non_empty_string)
        && optional(map, "kind", |v| one_of_strings(v, &["loop"]))
        && optional(map, "loopKind", |v| one_of_strings(v, &[loop_kind]))
        && optional(map, "body", loop_body)
        && optional(map, "maxIterations", |v| {
            integer_in(v, Some(1.0), Some(10_000.0))
        })
        && optional(map, "outputSchema", Value::is_object)
        && optional(map, "collectAllIterations", Value::is_boolean)
}

fn loop_body(value: &Value) -> bool {
    let Some(map) = value.as_object() else {
        return false;
    };
    has_all(map, &["nodes", "edges"])
        && only(map, &["nodes", "edges"])
        && optional(map, "nodes", |v| array_of(v, 1, node))
        && optional(map, "edges", |v| array_of(v, 0, loop_edge))
}

fn fanout_node(value: &Value) -> bool {
    let Some(map) = value.as_object() else {
        return false;
    };
    has_all(map, &["id", "kind", "branches", "convergence"])
        && only(
            map,
            &["id", "kind", "branches", "concurrency", "convergence"],
        )
        && optional(map, "id", is_non_empty_string)
        && optional(map, "kind", |v| one_of_strings(v, &["fanout"]))
        && optional(map, "branches", |v| array_of(v, 2, fanout_branch))
        && optional(map, "concurrency", |v| integer_in(v, Some(1.0), None))
        && optional(map, "convergence", |v| {
            one_of_strings(v, &["all-succeed", "any-succeed", "settle-all"])
        })
}

fn fanout_branch(value: &Value) -> bool {
    let Some(map) = value.as_object() else {
        return false;
    };
    const KEYS: &[&str] = &["branchId", "handler", "outputSchema"];
    has_all(map, KEYS)
        && only(map, KEYS)
        && optional(map, "branchId", is_non_empty_string)
        && optional(map, "handler", is_non_empty_string)
        && optional(map, "outputSchema", Value::is_object)
}

fn edge(value: &Value) -> bool {
    let Some(map) = value.as_object() else {
        return false;
    };
    has_all(map, &["id", "from", "to"])
        && only(map, &["id", "from", "to", "when", "policy"])
        && edge_common(map)
        && optional(map, "policy", edge_policy)
}

fn loop_edge(value: &Value) -> bool {
    let Some(map) = value.as_object() else {
        return false;
    };
    has_all(map, &["id", "from", "to"])
        && only(map, &["id", "from", "to", "when"])
        && edge_common(map)
}

fn edge_common(map: &Map<String, Value>) -> bool {
    optional(map, "id", is_non_empty_string)
        && optional(map, "from", is_non_empty_string)
        && optional(map, "to", is_non_empty_string)
        && optional(map, "when", expr)
}

fn edge_policy(value: &Value) -> bool {
    let Some(map) = value.as_object() else {
        return false;
    };
    only(map, &["retry", "timeoutMs", "concurrencyKey", "priority"])
        && optional(map, "retry", retry_policy)
        && optional(map, "timeoutMs", |v| {
            integer_in(v, Some(1.0), Some(3_600_000.0))
        })
        && optional(map, "concurrencyKey", |v| {
            v.as_str()
                .is_some_and(|key| key.chars().count() <= 256 && is_printable_ascii(key))
        })
        && optional(map, "priority", |v| {
            integer_in(v, Some(-100.0), Some(100.0))
        })
}

fn retry_policy(value: &Value) -> bool {
    let Some(map) = value.as_object() else {
        return false;
    };
    has_all(map, &["maxAttempts"])
        && only(map, &["maxAttempts", "delayMs", "backoff", "maxDelayMs"])
        && optional(map, "maxAttempts", |v| integer_in(v, Some(1.0), Some(10.0)))
        && optional(map, "delayMs", |v| integer_in(v, Some(0.0), None))
        && optional(map, "backoff", |v| {
            one_of_strings(v, &["fixed", "linear", "exponential"])
        })
        && optional(map, "maxDelayMs", |v| integer_in(v, Some(0.0), None))
}

/// `oneOf` over the five expression shapes (their `op` sets are disjoint).
fn expr(value: &Value) -> bool {
    const SHAPES: [(&[&str], &[&str]); 5] = [
        (&["eq", "ne", "lt", "lte", "gt", "gte"], &["left", "right"]),
        (&["in", "notIn"], &["value", "set"]),
        (&["exists", "notExists", "truthy", "falsy"], &["value"]),
        (&["and", "or"], &["children"]),
        (&["not"], &["child"]),
    ];
    let passing = SHAPES
        .iter()
        .filter(|(ops, members)| expr_shape(value, ops, members))
        .count();
    passing == 1
}

fn expr_shape(value: &Value, ops: &[&str], members: &[&str]) -> bool {
    let Some(map) = value.as_object() else {
        return false;
    };
    let in_shape = |key: &str| key == "op" || members.contains(&key);
    map.contains_key("op")
        && members.iter().all(|m| map.contains_key(*m))
        && map.keys().all(|key| in_shape(key))
        && optional(map, "op", |v| one_of_strings(v, ops))
        && members.iter().all(|m| match *m {
            "children" => optional(map, m, |v| array_of(v, 1, expr)),
            "child" => optional(map, m, expr),
            _ => optional(map, m, operand),
        })
}

/// `oneOf` `{ literal }` (any value) / `{ path }`.
fn operand(value: &Value) -> bool {
    let Some(map) = value.as_object() else {
        return false;
    };
    let literal = map.len() == 1 && map.contains_key("literal");
    let path = map.len() == 1 && map.get("path").and_then(Value::as_str).is_some_and(is_path);
    literal != path
}

/// An object whose every key is non-empty and every value an operand.
fn mapping(value: &Value) -> bool {
    value
        .as_object()
        .is_some_and(|map| map.iter().all(|(key, v)| !key.is_empty() && operand(v)))
}

fn flow_output(value: &Value) -> bool {
    let Some(map) = value.as_object() else {
        return false;
    };
    has_all(map, &["mapping"])
        && only(map, &["mapping", "schema"])
        && optional(map, "mapping", mapping)
        && optional(map, "schema", Value::is_object)
}

fn has_all(map: &Map<String, Value>, keys: &[&str]) -> bool {
    keys.iter().all(|key| map.contains_key(*key))
}

/// `additionalProperties: false` beside `properties` naming `keys`.
fn only(map: &Map<String, Value>, keys: &[&str]) -> bool {
    map.keys().all(|key| keys.contains(&key.as_str()))
}

/// A property's subschema, which holds when the property is absent.
fn optional(map: &Map<String, Value>, key: &str, check: impl Fn(&Value) -> bool) -> bool {
    map.get(key).is_none_or(check)
}

fn exactly_one(value: &Value, branches: &[fn(&Value) -> bool]) -> bool {
    branches.iter().filter(|branch| branch(value)).count() == 1
}

fn array_of(value: &Value, min_items: usize, each: fn(&Value) -> bool) -> bool {
    value
        .as_array()
        .is_some_and(|items| items.len() >= min_items && items.iter().all(each))
}

fn is_string(value: &Value) -> bool {
    value.is_string()
}

/// `minLength: 1` (one code point is one character to Ajv; only the empty string fails).
fn is_non_empty_string(value: &Value) -> bool {
    value.as_str().is_some_and(|s| !s.is_empty())
}

fn one_of_strings(value: &Value, allowed: &[&str]) -> bool {
    value.as_str().is_some_and(|s| allowed.contains(&s))
}

/// `type: integer` (Ajv: a finite number with no fraction) within the bounds given.
fn integer_in(value: &Value, minimum: Option<f64>, maximum: Option<f64>) -> bool {
    let Some(n) = value.as_f64() else {
        return false;
    };
    n.is_finite()
        && n.fract() == 0.0
        && minimum.is_none_or(|min| n >= min)
        && maximum.is_none_or(|max| n <= max)
}

/// `^\d+\.\d+\.\d+(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$` on a string value.
fn is_semver(value: &Value) -> bool {
    value.as_str().is_some_and(is_exact_semver)
}

/// The exact-semver pattern (`\d` is ASCII only, even with flag `u`).
pub(super) fn is_exact_semver(text: &str) -> bool {
    let (core, pre_release) = match text.split_once('-') {
        Some((core, rest)) => (core, Some(rest)),
        None => (text, None),
    };
    let mut numbers = core.split('.');
    let core_ok = (0..3).all(|_| {
        numbers
            .next()
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    }) && numbers.next().is_none();
    // The pre-release's identifiers may hold `-` themselves, so only the first `-` splits.
    let pre_ok = pre_release.is_none_or(|rest| {
        rest.split('.').all(|ident| {
            !ident.is_empty()
                && ident
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
    });
    core_ok && pre_ok
}

/// `^(runInput|state|nodeOutputs\.[A-Za-z0-9_.-]+|iterationIndex|iterationOutput)(\.[A-Za-z0-9_-]+)*$`.
fn is_path(path: &str) -> bool {
    let segment_char = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
    // The node-id part takes dots too, so after `nodeOutputs.` any such run matches whole.
    if let Some(rest) = path.strip_prefix("nodeOutputs.") {
        return !rest.is_empty() && rest.bytes().all(|b| segment_char(b) || b == b'.');
    }
    ["runInput", "state", "iterationIndex", "iterationOutput"]
        .iter()
        .any(|root| match path.strip_prefix(root) {
            Some("") => true,
            Some(rest) => rest.strip_prefix('.').is_some_and(|segments| {
                segments
                    .split('.')
                    .all(|s| !s.is_empty() && s.bytes().all(segment_char))
            }),
            None => false,
        })
}

/// `^[\x20-\x7E]+$`.
pub(super) fn is_printable_ascii(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| (0x20..=0x7e).contains(&b))
}

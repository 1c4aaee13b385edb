//! What the JSON targets share: JavaScript's idea of two values being the same.

#![allow(dead_code)]

use kindgi_handler_runtime_native::json::{Node, MAX_DEPTH};
use serde_json::Value;

/// A JSON value as `JSON.parse` builds it: numbers as doubles, objects as their last member
/// per key (key order aside, which JavaScript derives from the keys).
#[derive(Debug, PartialEq)]
pub enum Js {
    Null,
    Bool(bool),
    Number(f64),
    /// UTF-16 code units, lone surrogates included.
    String(Vec<u16>),
    Array(Vec<Js>),
    /// Sorted by key, one member per key.
    Object(Vec<(Vec<u16>, Js)>),
}

fn object(members: impl Iterator<Item = (Vec<u16>, Js)>) -> Js {
    let mut out: Vec<(Vec<u16>, Js)> = Vec::new();
    for (key, value) in members {
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => out.push((key, value)),
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Js::Object(out)
}

/// `-0` and `0` are one value to JSON text (`JSON.stringify(-0)` is `0`).
fn number(n: f64) -> Js {
    Js::Number(if n == 0.0 { 0.0 } else { n })
}

pub fn from_node(node: &Node<'_>) -> Js {
    match node {
        Node::Null => Js::Null,
        Node::Bool(b) => Js::Bool(*b),
        Node::Number(token) => number(token.parse::<f64>().expect("a number token parses")),
        Node::String(s) => Js::String(s.units()),
        Node::OwnedString(s) => Js::String(s.encode_utf16().collect()),
        Node::Array(items) => Js::Array(items.iter().map(from_node).collect()),
        Node::Object(members) => object(members.iter().map(|(k, v)| (k.units(), from_node(v)))),
    }
}

pub fn from_value(value: &Value) -> Js {
    match value {
        Value::Null => Js::Null,
        Value::Bool(b) => Js::Bool(*b),
        Value::Number(n) => number(n.as_f64().expect("a JSON number is finite")),
        Value::String(s) => Js::String(s.encode_utf16().collect()),
        Value::Array(items) => Js::Array(items.iter().map(from_value).collect()),
        Value::Object(map) => object(
            map.iter()
                .map(|(k, v)| (k.encode_utf16().collect(), from_value(v))),
        ),
    }
}

/// The deepest nesting serde_json reads: its recursion limit of 128 counts the level it
/// refuses, so a document 128 levels deep is refused. Below ours ([`MAX_DEPTH`]).
pub const SERDE_DEPTH: usize = 127;
const _: () = assert!(SERDE_DEPTH < MAX_DEPTH);

/// How deeply the brackets of `text` nest, outside strings (an upper bound for invalid text).
pub fn bracket_depth(text: &str) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0, false, false);
    for b in text.bytes() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

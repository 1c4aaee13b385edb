//! The index writer's canonical JSON: the exact text the TypeScript indexer writes,
//! `JSON.stringify(canonicalize(value), null, 2) + "\n"`.
//!
//! `canonicalize` copies every object with its keys sorted by UTF-16 code units; the copy then
//! enumerates array-index keys first, in numeric order, because that is how JavaScript objects
//! work. It assigns `out[key] = …`, so a `__proto__` key sets the copy's prototype instead of a
//! property and disappears from the output. Duplicate keys in the input keep the last value, as
//! `JSON.parse` does.

mod index;
mod time;

pub use index::{write_index, FsFailure, IndexWriteError, IndexWriteRequest, IndexWritten};
pub use time::{iso_utc_millis, utc_yyyymmdd};

use crate::json::{
    array_index, cmp_utf16, decode_json_string, nesting_depth, parse, with_stack_for,
    write_js_number_text, write_json_str, write_json_utf16, JsonKey, JsonStr, Node, ParseError,
    MAX_DEPTH,
};
use std::cmp::Ordering;

/// The canonical text of a JSON document.
pub fn canonical_json(text: &str) -> Result<String, ParseError> {
    let depth = nesting_depth(text);
    if depth > MAX_DEPTH {
        return Err(ParseError::TooDeep);
    }
    with_stack_for(depth, || {
        parse(text).map(|node| canonical_text(&node, text.len()))
    })
    .unwrap_or(Err(ParseError::TooDeep))
}

/// The canonical text of a parsed document; `size_hint` is the input's length.
pub fn canonical_text(node: &Node<'_>, size_hint: usize) -> String {
    // Two-space indentation roughly doubles a compact document.
    let mut out = String::with_capacity(size_hint * 2 + 16);
    write_node(&mut out, node, 0);
    out.push('\n');
    out
}

fn newline_indent(out: &mut String, level: usize) {
    out.push('\n');
    for _ in 0..level {
        out.push_str("  ");
    }
}

fn write_str(out: &mut String, s: &JsonStr<'_>) {
    if s.escaped {
        // Re-escape the decoded units: the input may escape what JSON.stringify would not.
        write_json_utf16(out, &decode_json_string(s.raw));
    } else {
        // Valid JSON string text without a backslash holds no `"`, `\` or control character:
        // it is already what JSON.stringify writes.
        out.push('"');
        out.push_str(s.raw);
        out.push('"');
    }
}

fn write_node(out: &mut String, node: &Node<'_>, level: usize) {
    match node {
        Node::Null => out.push_str("null"),
        Node::Bool(true) => out.push_str("true"),
        Node::Bool(false) => out.push_str("false"),
        Node::Number(token) => write_js_number_text(out, token),
        Node::String(s) => write_str(out, s),
        Node::OwnedString(s) => write_json_str(out, s),
        Node::Array(items) if items.is_empty() => out.push_str("[]"),
        Node::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline_indent(out, level + 1);
                write_node(out, item, level + 1);
            }
            newline_indent(out, level);
            out.push(']');
        }
        Node::Object(members) => {
            let order = canonical_order(members);
            if order.is_empty() {
                out.push_str("{}");
                return;
            }
            out.push('{');
            for (i, &member) in order.iter().enumerate() {
                let (key, value) = &members[member];
                if i > 0 {
                    out.push(',');
                }
                newline_indent(out, level + 1);
                write_str(out, key);
                out.push_str(": ");
                write_node(out, value, level + 1);
            }
            newline_indent(out, level);
            out.push('}');
        }
    }
}

/// A key as JavaScript sees it: decoded, with its array-index value when it has one.
struct SortKey<'a> {
    units: KeyUnits<'a>,
    index: Option<u32>,
    member: usize,
}

enum KeyUnits<'a> {
    Plain(&'a str),
    Decoded(Vec<u16>),
}

impl KeyUnits<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (KeyUnits::Plain(a), KeyUnits::Plain(b)) => cmp_utf16(a, b),
            _ => self.units().cmp(other.units()),
        }
    }

    fn units(&self) -> Box<dyn Iterator<Item = u16> + '_> {
        match self {
            KeyUnits::Plain(s) => Box::new(s.encode_utf16()),
            KeyUnits::Decoded(units) => Box::new(units.iter().copied()),
        }
    }

    fn is_proto(&self) -> bool {
        match self {
            KeyUnits::Plain(s) => *s == "__proto__",
            KeyUnits::Decoded(units) => units.iter().copied().eq("__proto__".encode_utf16()),
        }
    }

    fn array_index(&self) -> Option<u32> {
        match self {
            KeyUnits::Plain(s) => array_index(s),
            KeyUnits::Decoded(units) => {
                let ascii: Option<String> = units
                    .iter()
                    .map(|&u| u8::try_from(u).ok().filter(u8::is_ascii).map(char::from))
                    .collect();
                ascii.as_deref().and_then(array_index)
            }
        }
    }
}

/// The order in which the canonical copy of an object enumerates its members: indices into
/// `members`, one per distinct key (its last occurrence), `__proto__` left out.
fn canonical_order(members: &[(JsonKey<'_>, Node<'_>)]) -> Vec<usize> {
    let mut keys: Vec<SortKey<'_>> = members
        .iter()
        .enumerate()
        .map(|(member, (key, _))| {
            let units = if key.escaped {
                KeyUnits::Decoded(decode_json_string(key.raw))
            } else {
                KeyUnits::Plain(key.raw)
            };
            SortKey {
                index: units.array_index(),
                units,
                member,
            }
        })
        .filter(|key| !key.units.is_proto())
        .collect();
    // Array indices first by value, then the rest by code units; equal keys keep document order
    // (the sort is stable), so the last of a run is the one JSON.parse keeps.
    keys.sort_by(|a, b| match (a.index, b.index) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.units.cmp(&b.units),
    });
    let mut order: Vec<usize> = Vec::with_capacity(keys.len());
    let mut previous: Option<&SortKey<'_>> = None;
    for key in &keys {
        let duplicate = previous.is_some_and(|p| p.units.cmp(&key.units) == Ordering::Equal);
        if duplicate {
            if let Some(last) = order.last_mut() {
                *last = key.member;
            }
        } else {
            order.push(key.member);
        }
        previous = Some(key);
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon(text: &str) -> String {
        canonical_json(text).unwrap()
    }

    #[test]
    fn sorts_and_indents() {
        assert_eq!(
            canon(r#"{"b":1,"a":{"d":[],"c":{}}}"#),
            "{\n  \"a\": {\n    \"c\": {},\n    \"d\": []\n  },\n  \"b\": 1\n}\n"
        );
        assert_eq!(canon("[1,[2]]"), "[\n  1,\n  [\n    2\n  ]\n]\n");
        assert_eq!(canon("\"x\""), "\"x\"\n");
        assert_eq!(canon("{}"), "{}\n");
    }

    #[test]
    fn integer_like_keys_come_first_in_numeric_order() {
        let text = canon(r#"{"a":0,"10":1,"2":2,"01":3,"-1":4,"4294967295":5,"4294967294":6}"#);
        let keys: Vec<&str> = text
            .lines()
            .filter_map(|l| l.trim().split('"').nth(1))
            .collect();
        assert_eq!(
            keys,
            ["2", "10", "4294967294", "-1", "01", "4294967295", "a"]
        );
    }

    #[test]
    fn astral_keys_sort_by_code_units() {
        let text = canon("{\"\u{FFFF}\":1,\"\u{1F600}\":2}");
        assert!(text.find('\u{1F600}') < text.find('\u{FFFF}'));
    }

    #[test]
    fn duplicates_keep_the_last_value_and_proto_is_dropped() {
        assert_eq!(
            canon(r#"{"a":1,"b":2,"a":3}"#),
            "{\n  \"a\": 3,\n  \"b\": 2\n}\n"
        );
        assert_eq!(
            canon(r#"{"__proto__":{"x":1},"y":2}"#),
            "{\n  \"y\": 2\n}\n"
        );
        assert_eq!(canon(r#"{"\u005f_proto__":1}"#), "{}\n");
    }

    #[test]
    fn escapes_are_rewritten_the_javascript_way() {
        assert_eq!(
            canon(r#"["\u0041\/\ud800\u001F\u2028"]"#),
            "[\n  \"A/\\ud800\\u001f\u{2028}\"\n]\n"
        );
        assert_eq!(
            canon(r#"{"\u0031":1,"0":2}"#),
            "{\n  \"0\": 2,\n  \"1\": 1\n}\n"
        );
    }

    #[test]
    fn numbers_use_ecmascript_formatting() {
        assert_eq!(
            canon("[1.0,1e21,1e-7,-0,0.1,1E2]"),
            "[\n  1,\n  1e+21,\n  1e-7,\n  0,\n  0.1,\n  100\n]\n"
        );
    }
}

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

pub use index::{
    node_fs_message, write_index, FsFailure, IndexWriteError, IndexWriteRequest, IndexWritten,
};
pub use time::{iso_utc_millis, utc_yyyymmdd, write_iso_utc_millis};

use crate::json::{
    array_index, cmp_utf16, decode_json_string, with_parsed, write_js_number_text, write_json_str,
    write_json_utf16, JsonKey, JsonStr, Node, ParseError,
};
use std::cmp::Ordering;

/// The canonical text of a JSON document.
pub fn canonical_json(text: &str) -> Result<String, ParseError> {
    with_parsed(text, |node| canonical_text(&node, text.len()))
}

/// The canonical text of a parsed document; `size_hint` is the input's length.
pub fn canonical_text(node: &Node<'_>, size_hint: usize) -> String {
    // Two-space indentation roughly doubles a compact document.
    let mut writer = Writer {
        out: String::with_capacity(size_hint * 2 + 16),
        scratch: Vec::new(),
    };
    writer.node(node, 0);
    writer.out.push('\n');
    writer.out
}

const SPACES: &str = "                                                                ";

/// Writes a tree, reusing one sort buffer per nesting level.
struct Writer<'a> {
    out: String,
    scratch: Vec<Vec<SortKey<'a>>>,
}

impl<'a> Writer<'a> {
    fn newline_indent(&mut self, level: usize) {
        self.out.push('\n');
        let mut width = level * 2;
        while width > 0 {
            let run = width.min(SPACES.len());
            self.out.push_str(&SPACES[..run]);
            width -= run;
        }
    }

    fn string(&mut self, s: &JsonStr<'_>) {
        if s.escaped {
            // Re-escape the decoded units: the input may escape what JSON.stringify would not.
            write_json_utf16(&mut self.out, &decode_json_string(s.raw));
        } else {
            // Valid JSON string text without a backslash holds no `"`, `\` or control
            // character: it is already what JSON.stringify writes.
            self.out.push('"');
            self.out.push_str(s.raw);
            self.out.push('"');
        }
    }

    fn node(&mut self, node: &'a Node<'a>, level: usize) {
        match node {
            Node::Null => self.out.push_str("null"),
            Node::Bool(true) => self.out.push_str("true"),
            Node::Bool(false) => self.out.push_str("false"),
            Node::Number(token) => write_js_number_text(&mut self.out, token),
            Node::String(s) => self.string(s),
            Node::OwnedString(s) => write_json_str(&mut self.out, s),
            Node::Array(items) if items.is_empty() => self.out.push_str("[]"),
            Node::Array(items) => {
                self.out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.newline_indent(level + 1);
                    self.node(item, level + 1);
                }
                self.newline_indent(level);
                self.out.push(']');
            }
            Node::Object(members) => self.object(members, level),
        }
    }

    fn object(&mut self, members: &'a [(JsonKey<'a>, Node<'a>)], level: usize) {
        if self.scratch.len() <= level {
            self.scratch.resize_with(level + 1, Vec::new);
        }
        let mut keys = std::mem::take(&mut self.scratch[level]);
        canonical_order(members, &mut keys);
        if keys.is_empty() {
            self.out.push_str("{}");
        } else {
            self.out.push('{');
            for (i, key) in keys.iter().enumerate() {
                let (name, value) = &members[key.member];
                if i > 0 {
                    self.out.push(',');
                }
                self.newline_indent(level + 1);
                self.string(name);
                self.out.push_str(": ");
                self.node(value, level + 1);
            }
            self.newline_indent(level);
            self.out.push('}');
        }
        keys.clear();
        self.scratch[level] = keys;
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

/// Fills `keys` with the members of the canonical copy of an object, in the order it
/// enumerates them: one per distinct key (its last occurrence), `__proto__` left out.
fn canonical_order<'a>(members: &'a [(JsonKey<'a>, Node<'a>)], keys: &mut Vec<SortKey<'a>>) {
    keys.reserve(members.len());
    for (member, (key, _)) in members.iter().enumerate() {
        let units = if key.escaped {
            KeyUnits::Decoded(decode_json_string(key.raw))
        } else {
            KeyUnits::Plain(key.raw)
        };
        if !units.is_proto() {
            keys.push(SortKey {
                index: units.array_index(),
                units,
                member,
            });
        }
    }
    // Array indices first by value, then the rest by code units; equal keys keep document
    // order (the sort is stable), so the last of a run is the one JSON.parse keeps.
    keys.sort_by(|a, b| match (a.index, b.index) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.units.cmp(&b.units),
    });
    let mut kept = 0;
    for next in 0..keys.len() {
        let duplicate = kept > 0 && keys[kept - 1].units.cmp(&keys[next].units) == Ordering::Equal;
        if duplicate {
            keys[kept - 1].member = keys[next].member;
        } else {
            keys.swap(kept, next);
            kept += 1;
        }
    }
    keys.truncate(kept);
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

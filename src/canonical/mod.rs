//! The index writer's canonical JSON: the exact text the TypeScript indexer writes,
//! `JSON.stringify(canonicalize(value), null, 2) + "\n"`.
//!
//! `canonicalize` copies every object with its keys sorted by UTF-16 code units; the copy then
//! enumerates array-index keys first, in numeric order, because that is how JavaScript objects
//! work. It assigns `out[key] = …`, so a `__proto__` key sets the copy's prototype instead of a
//! property and disappears from the output. Duplicate keys in the input keep the last value, as
//! `JSON.parse` does.

mod index;
mod pieces;
mod temp_files;
mod time;

pub use index::{
    node_fs_message, write_index, FsFailure, IndexWriteError, IndexWriteRequest, IndexWritten,
};
pub use pieces::{IndexPieces, ListPieces};
pub use time::{iso_utc_millis, utc_yyyymmdd, write_iso_utc_millis};

use crate::json::{
    array_index, cmp_utf16, decode_json_string, rewrite_json_string, with_tape,
    write_js_number_text, write_json_str, JsonKey, JsonStr, ParseError, Tape, Token,
    DEEP_STACK_BYTES,
};
use std::cmp::Ordering;

/// The canonical text of a JSON document.
pub fn canonical_json(text: &str) -> Result<String, ParseError> {
    with_tape(text, |tape| canonical_text(&tape, text.len()))
}

/// The canonical text of a parsed document; `size_hint` is the input's length.
pub fn canonical_text(tape: &Tape<'_>, size_hint: usize) -> String {
    let mut writer = Writer::new(tape, size_hint);
    writer.value(Tape::ROOT, 0);
    writer.finish()
}

/// A member of an object put together from a tape's values (the index writer's top level).
pub enum Part<'t> {
    /// The value at this index of the tape.
    Value(usize),
    /// An array of the values at these indices.
    Items(Vec<usize>),
    /// A string that is not in the text.
    Text(&'t str),
    /// An array of items already written, each as an item of a top-level member is
    /// ([`LISTED_ITEM_LEVEL`]).
    Rendered(Vec<&'t str>),
}

/// The nesting level of an item of an array that is a member of the top-level object.
pub const LISTED_ITEM_LEVEL: usize = 2;

/// A canonical text with texts written before to be put in at places in it, so that they are
/// not copied again: the document is `text[..at₀] + insert₀ + text[at₀..at₁] + insert₁ + …`.
pub struct SplicedText<'t> {
    pub text: String,
    /// Where each insert goes in `text`, in order.
    pub inserts: Vec<(usize, &'t str)>,
}

impl SplicedText<'_> {
    /// The document, in pieces.
    pub fn pieces(&self) -> Vec<&str> {
        let mut pieces = Vec::with_capacity(self.inserts.len() * 2 + 1);
        let mut from = 0;
        for &(at, insert) in &self.inserts {
            // Inserts go between two things the writer wrote, on character boundaries.
            pieces.push(self.text.get(from..at).unwrap_or_default());
            pieces.push(insert);
            from = at;
        }
        pieces.push(self.text.get(from..).unwrap_or_default());
        pieces
    }

    pub fn len(&self) -> usize {
        self.text.len() + self.inserts.iter().map(|(_, s)| s.len()).sum::<usize>()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The canonical text of an object of `members` (in document order, duplicates included),
/// whose values come from `tape`; `capacity` is room for the text (without the inserts).
pub fn canonical_object_text<'t>(
    tape: &Tape<'_>,
    members: &[(JsonKey<'_>, Part<'t>)],
    capacity: usize,
) -> SplicedText<'t> {
    let mut writer = Writer::with_capacity(tape, capacity);
    let mut inserts = Vec::new();
    let keys = members.iter().enumerate().map(|(i, (key, _))| (*key, i));
    writer.object(keys, 0, |writer, member, level| match &members[member].1 {
        Part::Value(at) => writer.value(*at, level),
        Part::Items(items) => writer.array_of(items, level),
        Part::Text(text) => write_json_str(&mut writer.out, text),
        Part::Rendered(items) => writer.rendered(items, level, &mut inserts),
    });
    SplicedText {
        text: writer.finish(),
        inserts,
    }
}

/// Appends to `out` the canonical text of the value at `at`, as an item of a top-level
/// member is written ([`LISTED_ITEM_LEVEL`]), without a line break before it.
pub fn write_listed_item(out: &mut String, tape: &Tape<'_>, at: usize) {
    let mut writer = Writer {
        tape,
        out: std::mem::take(out),
        scratch: Vec::new(),
    };
    writer.value(at, LISTED_ITEM_LEVEL);
    *out = writer.out;
}

/// An array whose items span this many tokens is written by two threads: below it, a thread
/// costs more than it saves.
const PARALLEL_TOKENS: usize = 1 << 18;

/// A comma, a newline and the deepest indentation written in one piece.
const LINE_BREAK: &str = concat!(
    ",\n",
    "                                                                ",
    "                                                                ",
);

/// Writes a tape's values, reusing one sort buffer per nesting level.
struct Writer<'t, 'a> {
    tape: &'t Tape<'a>,
    out: String,
    scratch: Vec<Vec<SortKey<'a>>>,
}

impl<'t, 'a> Writer<'t, 'a> {
    fn new(tape: &'t Tape<'a>, size_hint: usize) -> Self {
        // Two-space indentation roughly doubles a compact document.
        Self::with_capacity(tape, size_hint * 2 + 16)
    }

    fn with_capacity(tape: &'t Tape<'a>, capacity: usize) -> Self {
        Writer {
            tape,
            out: String::with_capacity(capacity),
            scratch: Vec::new(),
        }
    }

    fn finish(mut self) -> String {
        self.out.push('\n');
        self.out
    }

    /// Ends a line (after a comma when `comma`) and indents the next to `level`.
    fn line_break(&mut self, comma: bool, level: usize) {
        let start = if comma { 0 } else { 1 };
        let width = level * 2;
        let spaces = LINE_BREAK.len() - 2;
        if width <= spaces {
            self.out.push_str(&LINE_BREAK[start..2 + width]);
            return;
        }
        self.out.push_str(&LINE_BREAK[start..]);
        let mut rest = width - spaces;
        while rest > 0 {
            let run = rest.min(spaces);
            self.out.push_str(&LINE_BREAK[2..2 + run]);
            rest -= run;
        }
    }

    fn string(&mut self, s: &JsonStr<'_>) {
        if s.escaped {
            // Re-escape the decoded text: the input may escape what JSON.stringify would not.
            rewrite_json_string(&mut self.out, s.raw);
        } else {
            // Valid JSON string text without a backslash holds no `"`, `\` or control
            // character: it is already what JSON.stringify writes.
            self.out.push('"');
            self.out.push_str(s.raw);
            self.out.push('"');
        }
    }

    fn value(&mut self, at: usize, level: usize) {
        let tape = self.tape;
        match tape.token(at) {
            Token::Null => self.out.push_str("null"),
            Token::Bool(true) => self.out.push_str("true"),
            Token::Bool(false) => self.out.push_str("false"),
            Token::Number(token) => write_js_number_text(&mut self.out, token),
            Token::String(s) => self.string(&s),
            Token::Array { end } if end - at >= PARALLEL_TOKENS => {
                let items: Vec<usize> = tape.items(at).collect();
                self.array_of(&items, level);
            }
            Token::Array { .. } => self.array(tape.items(at), level),
            Token::Object { .. } => {
                self.object(tape.members(at), level, |writer, value, level| {
                    writer.value(value, level)
                });
            }
        }
    }

    fn array(&mut self, items: impl Iterator<Item = usize>, level: usize) {
        let mut empty = true;
        for item in items {
            if empty {
                self.out.push('[');
            }
            self.line_break(!empty, level + 1);
            empty = false;
            self.value(item, level + 1);
        }
        if empty {
            self.out.push_str("[]");
        } else {
            self.line_break(false, level);
            self.out.push(']');
        }
    }

    /// Writes the array of the values at `items`; a large one in two halves at once, the
    /// second on another thread, joined in order.
    fn array_of(&mut self, items: &[usize], level: usize) {
        let tape = self.tape;
        let span: usize = items.iter().map(|&item| tape.after(item) - item).sum();
        if items.len() < 2 || span < PARALLEL_TOKENS {
            return self.array(items.iter().copied(), level);
        }
        let (head, tail) = items.split_at(items.len() / 2);
        self.out.push('[');
        let tail_text = std::thread::scope(|scope| {
            let worker = std::thread::Builder::new()
                .name("kindgi-canonical".into())
                .stack_size(DEEP_STACK_BYTES)
                .spawn_scoped(scope, move || {
                    let mut writer = Writer::new(tape, span * 2);
                    writer.items(tail, true, level + 1);
                    writer.out
                });
            self.items(head, false, level + 1);
            worker.ok().and_then(|worker| worker.join().ok())
        });
        match tail_text {
            Some(text) => self.out.push_str(&text),
            // No thread could be started: this one writes the rest.
            None => self.items(tail, true, level + 1),
        }
        self.line_break(false, level);
        self.out.push(']');
    }

    /// Writes an array of items already written at `level + 1`, each as an insert.
    fn rendered<'r>(
        &mut self,
        items: &[&'r str],
        level: usize,
        inserts: &mut Vec<(usize, &'r str)>,
    ) {
        if items.is_empty() {
            self.out.push_str("[]");
            return;
        }
        self.out.push('[');
        for (i, item) in items.iter().enumerate() {
            self.line_break(i > 0, level + 1);
            inserts.push((self.out.len(), item));
        }
        self.line_break(false, level);
        self.out.push(']');
    }

    /// Writes the values at `items` on lines of their own, the first after a comma when `comma`.
    fn items(&mut self, items: &[usize], comma: bool, level: usize) {
        for (i, &item) in items.iter().enumerate() {
            self.line_break(comma || i > 0, level);
            self.value(item, level);
        }
    }

    /// Writes an object of `members` (keys with a handle on their values, in document order);
    /// `write` writes the value of a handle.
    fn object(
        &mut self,
        members: impl Iterator<Item = (JsonKey<'a>, usize)>,
        level: usize,
        mut write: impl FnMut(&mut Self, usize, usize),
    ) {
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
                self.line_break(i > 0, level + 1);
                self.string(&key.name);
                self.out.push_str(": ");
                write(self, key.member, level + 1);
            }
            self.line_break(false, level);
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
    name: JsonKey<'a>,
    /// The handle on the member's value.
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
fn canonical_order<'a>(
    members: impl Iterator<Item = (JsonKey<'a>, usize)>,
    keys: &mut Vec<SortKey<'a>>,
) {
    for (name, member) in members {
        let units = if name.escaped {
            KeyUnits::Decoded(decode_json_string(name.raw))
        } else {
            KeyUnits::Plain(name.raw)
        };
        if !units.is_proto() {
            keys.push(SortKey {
                index: units.array_index(),
                units,
                name,
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
            keys[kept - 1].name = keys[next].name;
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
    fn deep_documents_indent_every_level() {
        // Past the inline indentation and past the depth parsed on the caller's stack.
        for depth in [1, 3, 63, 64, 65, 130, 300] {
            let text = format!("{}1{}", "[{\"a\":".repeat(depth), "}]".repeat(depth));
            let mut expected = String::new();
            for level in 0..depth {
                let inner = "  ".repeat(2 * level + 1);
                expected.push_str(&format!("[\n{inner}{{\n{inner}  \"a\": "));
            }
            expected.push('1');
            for level in (0..depth).rev() {
                let outer = "  ".repeat(2 * level);
                let inner = "  ".repeat(2 * level + 1);
                expected.push_str(&format!("\n{inner}}}\n{outer}]"));
            }
            expected.push('\n');
            assert_eq!(canon(&text), expected, "depth {depth}");
        }
    }

    #[test]
    fn a_large_array_written_in_halves_reads_as_one() {
        // Items of every kind, nested, enough of them to pass the parallel threshold.
        let item = r#"{"b":[1,{"y":"\u00e9","x":null}],"a":true,"10":-0.0}"#;
        let count = PARALLEL_TOKENS / 8 + 3;
        let text = format!("[{}]", vec![item; count].join(","));
        let one = canon(&format!("[{item}]"));
        let body = one
            .strip_prefix("[\n")
            .and_then(|rest| rest.strip_suffix("\n]\n"))
            .unwrap();
        let expected = format!("[\n{}\n]\n", vec![body; count].join(",\n"));
        assert_eq!(canon(&text), expected);
    }

    #[test]
    fn numbers_use_ecmascript_formatting() {
        assert_eq!(
            canon("[1.0,1e21,1e-7,-0,0.1,1E2]"),
            "[\n  1,\n  1e+21,\n  1e-7,\n  0,\n  0.1,\n  100\n]\n"
        );
    }
}

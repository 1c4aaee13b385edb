//! Lone surrogates across a Rust parse. `JSON.parse` takes a string escape such as `"\ud800"`
//! on its own (what `JSON.stringify` writes for a string cut between the halves of a pair), but
//! a Rust `String` cannot hold it. Before such text is parsed, each lone surrogate escape is
//! replaced by a stand-in from Plane 15's private use area (U+F0000 + its offset from U+D800),
//! one code point like the surrogate, so lengths, patterns and equality judge as Ajv judges the
//! JavaScript string. JSON text written from the parsed value gets the escapes back.
//!
//! Only a document that had a lone surrogate is restored; one that also held the stand-ins
//! themselves would get them back as surrogates.

use super::{parse_borrowed_on, BorrowedError, ParseError, Stack};
use serde_json::Value;
use std::borrow::Cow;

use crate::js::utf16::{is_lead_surrogate, is_trail_surrogate, SURROGATES};

const STAND_IN_BASE: u32 = 0xF0000;
/// The first byte of every stand-in's UTF-8 (U+F0000..U+F07FF is F3 B0 80 80..F3 B0 9F BF).
const STAND_IN_LEAD: u8 = 0xF3;

/// The four hex digits at `at`, as a code unit.
fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = std::str::from_utf8(bytes.get(at..at + 4)?).ok()?;
    u32::from_str_radix(digits, 16).ok()
}

/// The `\uXXXX` escape at `at`, as a code unit.
fn escape_at(bytes: &[u8], at: usize) -> Option<u32> {
    (bytes.get(at) == Some(&b'\\') && bytes.get(at + 1) == Some(&b'u'))
        .then(|| hex4(bytes, at + 2))
        .flatten()
}

/// `text` parsed as `JSON.parse` reads it, lone surrogates as stand-ins, and whether it held any
/// (so that what is written from it can put them back).
pub fn parse_with_lone_surrogates(text: &str) -> (serde_json::Result<Value>, bool) {
    let protected = protect_lone_surrogates(text);
    let held = matches!(protected, Cow::Owned(_));
    (serde_json::from_str(&protected), held)
}

/// Why [`parse_with_lone_surrogates_on`] read no value.
#[derive(Debug)]
pub enum ValueUnread {
    /// Not JSON, in serde_json's words.
    NotJson(serde_json::Error),
    /// Nested deeper than the caller's stack holds: read it on [`Stack::Deep`].
    OutgrewStack,
}

/// [`parse_with_lone_surrogates`] as deep as `stack` holds. serde_json stops at 127 levels;
/// past them the borrowed tree, which reads what serde_json reads, reads it.
pub fn parse_with_lone_surrogates_on(
    text: &str,
    stack: Stack,
) -> (Result<Value, ValueUnread>, bool) {
    let protected = protect_lone_surrogates(text);
    let held = matches!(protected, Cow::Owned(_));
    let refused = match serde_json::from_str(&protected) {
        Ok(value) => return (Ok(value), held),
        Err(refused) => refused,
    };
    let read = match parse_borrowed_on(&protected, stack) {
        Ok(tree) => Ok(tree.to_value()),
        Err(BorrowedError::Syntax(ParseError::TooDeep)) if stack == Stack::Caller => {
            Err(ValueUnread::OutgrewStack)
        }
        Err(_) => Err(ValueUnread::NotJson(refused)),
    };
    (read, held)
}

/// `text` with every lone surrogate escape replaced by its stand-in; borrowed when it has none.
pub fn protect_lone_surrogates(text: &str) -> Cow<'_, str> {
    if !text.contains("\\u") {
        return Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let mut protected: Option<String> = None;
    let (mut copied, mut at) = (0, 0);
    while at < bytes.len() {
        if bytes[at] != b'\\' {
            at += 1;
            continue;
        }
        let Some(unit) = escape_at(bytes, at) else {
            // Another escape (`\\`, `\"`, …): skip both characters.
            at += 2;
            continue;
        };
        let paired =
            is_lead_surrogate(unit) && escape_at(bytes, at + 6).is_some_and(is_trail_surrogate);
        if paired {
            at += 12;
            continue;
        }
        if SURROGATES.contains(&unit) {
            let out = protected.get_or_insert_with(|| String::with_capacity(text.len()));
            out.push_str(&text[copied..at]);
            let stand_in = char::from_u32(STAND_IN_BASE + (unit - SURROGATES.start()));
            out.push(stand_in.unwrap_or(char::REPLACEMENT_CHARACTER));
            copied = at + 6;
        }
        at += 6;
    }
    match protected {
        None => Cow::Borrowed(text),
        Some(mut out) => {
            out.push_str(&text[copied..]);
            Cow::Owned(out)
        }
    }
}

/// [`restore_lone_surrogates`] for JSON written from a value parsed out of text that held
/// lone surrogates (`stand_ins`); other JSON is returned as it is.
pub fn restore_lone_surrogates_if(json: String, stand_ins: bool) -> String {
    if stand_ins {
        restore_lone_surrogates(&json).into_owned()
    } else {
        json
    }
}

/// Whether `text` (parsed, not JSON) holds a stand-in for a lone surrogate.
pub fn holds_stand_in(text: &str) -> bool {
    let stand_ins = STAND_IN_BASE..=STAND_IN_BASE + (SURROGATES.end() - SURROGATES.start());
    text.chars().any(|c| stand_ins.contains(&u32::from(c)))
}

/// Whether `text` holds a lone surrogate escape.
pub fn has_lone_surrogates(text: &str) -> bool {
    matches!(protect_lone_surrogates(text), Cow::Owned(_))
}

/// JSON text written from a protected value, with each stand-in written back as the escape
/// `JSON.stringify` writes for a lone surrogate (`\ud800`).
pub fn restore_lone_surrogates(json: &str) -> Cow<'_, str> {
    if !json.as_bytes().contains(&STAND_IN_LEAD) {
        return Cow::Borrowed(json);
    }
    let stand_ins = STAND_IN_BASE..STAND_IN_BASE + 0x800;
    if !json.chars().any(|c| stand_ins.contains(&u32::from(c))) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        let code = u32::from(c);
        if stand_ins.contains(&code) {
            out.push_str(&format!(
                "\\u{:04x}",
                SURROGATES.start() + (code - STAND_IN_BASE)
            ));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogates_cross_and_come_back() {
        for text in [
            r#"{"a":"plain"}"#,
            r#"{"a":"pair \ud83d\ude00 kept"}"#,
            r#"{"a":"escaped \\ud800 backslash"}"#,
            r#"{"a":"\n\u0041"}"#,
        ] {
            assert!(
                matches!(protect_lone_surrogates(text), Cow::Borrowed(_)),
                "{text}"
            );
        }
        let text = r#"{"a":"cut \ud83d","b":["\udc00x","\uD800\uD800"],"\udfff":1}"#;
        let protected = protect_lone_surrogates(text);
        let value: serde_json::Value = serde_json::from_str(&protected).expect("parses now");
        assert_eq!(value["a"].as_str().map(|s| s.chars().count()), Some(5));
        // Each surrogate has its own stand-in, so different ones stay different.
        assert_eq!(value["b"][0].as_str(), Some("\u{F0400}x"));
        assert_eq!(value["b"][1].as_str(), Some("\u{F0000}\u{F0000}"));
        let written = crate::json::to_js_json(&value);
        assert_eq!(
            restore_lone_surrogates(&written),
            r#"{"a":"cut \ud83d","b":["\udc00x","\ud800\ud800"],"\udfff":1}"#
        );
        assert!(matches!(
            restore_lone_surrogates("{\"a\":\"ó ☃\"}"),
            Cow::Borrowed(_)
        ));
    }
}

//! JSON text parsed into values that borrow their strings from the text: what the pack service
//! validates a request's input on. Reading a body into `serde_json` values allocates every
//! string and key and hashes every key into an ordered map; this tree allocates a list per
//! object and array and copies only strings that hold escapes.
//!
//! It reads what `serde_json::from_str` reads, as it reads it (the service answered bodies
//! through `serde_json` before, and the same bodies must get the same answers): numbers as
//! `serde_json` makes them, a duplicate key's last value at its first place, and a number
//! beyond the double range refused. It reads deeper than `serde_json` (127 levels): to
//! [`MAX_DEPTH`](super::MAX_DEPTH), as deep as the TypeScript service serves a call.

use super::deep::Stack;
use super::grammar::{parse_within, Build, ParseError, Scalar};
use super::sizes::container_sizes;
use super::{decode_json_string, JsonStr};
use serde_json::{Map, Number, Value};
use std::borrow::Cow;

/// A JSON value whose strings borrow from the text it was parsed from where they can.
///
/// Lists are boxed slices, not `Vec`s: without a capacity beside them every variant fits in the
/// string's 24 bytes, a quarter less than with one, and a long array of numbers is mostly
/// values.
#[derive(Debug, Clone, PartialEq)]
pub enum Borrowed<'a> {
    Null,
    Bool(bool),
    Number(Number),
    String(Cow<'a, str>),
    Array(Box<[Borrowed<'a>]>),
    /// Members in order, each key once.
    Object(Box<[(Cow<'a, str>, Borrowed<'a>)]>),
}

/// Why a text is not read: not JSON, or JSON `serde_json` refuses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BorrowedError {
    Syntax(ParseError),
    /// A number beyond the double range (`1e400`).
    NumberOutOfRange,
    /// A string escape that leaves a surrogate unpaired (`"\ud800"`).
    LoneSurrogate,
}

impl std::fmt::Display for BorrowedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BorrowedError::Syntax(error) => error.fmt(f),
            BorrowedError::NumberOutOfRange => f.write_str("a number beyond the double range"),
            BorrowedError::LoneSurrogate => {
                f.write_str("a string escape with an unpaired surrogate")
            }
        }
    }
}

impl std::error::Error for BorrowedError {}

/// Texts from this length on have their lists counted before they are parsed, so that each is
/// allocated once at its size (`json/sizes.rs`); below it the count would cost more than the
/// growth it spares.
const COUNTED_FROM: usize = 1 << 20;

/// Parses `text` as `serde_json::from_str::<Value>` would, borrowing its strings, nested at
/// most [`Stack::Caller`]'s depth.
pub fn parse_borrowed(text: &str) -> Result<Borrowed<'_>, BorrowedError> {
    parse_borrowed_on(text, Stack::Caller)
}

/// [`parse_borrowed`] on `stack`: nested at most its depth, deeper is
/// `Syntax(ParseError::TooDeep)`. The tree is as deep as the text, so whatever walks or drops
/// it runs on such a stack too.
pub fn parse_borrowed_on(text: &str, stack: Stack) -> Result<Borrowed<'_>, BorrowedError> {
    let sizes = if text.len() >= COUNTED_FROM {
        container_sizes(text)
    } else {
        Vec::new()
    };
    let builder = BorrowedBuilder {
        members: Vec::new(),
        sizes,
        opened: 0,
        refused: None,
    };
    let (value, refused) =
        parse_within(text, stack.json_depth(), builder).map_err(BorrowedError::Syntax)?;
    match refused {
        Some(error) => Err(error),
        None => Ok(value),
    }
}

impl<'a> Borrowed<'a> {
    /// The value as `serde_json` holds it.
    pub fn to_value(&self) -> Value {
        match self {
            Borrowed::Null => Value::Null,
            Borrowed::Bool(b) => Value::Bool(*b),
            Borrowed::Number(n) => Value::Number(n.clone()),
            Borrowed::String(s) => Value::String(s.as_ref().to_owned()),
            Borrowed::Array(items) => Value::Array(items.iter().map(Borrowed::to_value).collect()),
            Borrowed::Object(members) => Value::Object(object_value(members, None)),
        }
    }

    /// The value as `serde_json` holds it, without the root object's member `skipped`: the
    /// envelope of a request whose input is read from this tree.
    pub fn to_value_without(&self, skipped: &str) -> Value {
        match self {
            Borrowed::Object(members) => Value::Object(object_value(members, Some(skipped))),
            other => other.to_value(),
        }
    }

    /// A `serde_json` value as a tree (owning its strings).
    pub fn from_value(value: &Value) -> Borrowed<'a> {
        match value {
            Value::Null => Borrowed::Null,
            Value::Bool(b) => Borrowed::Bool(*b),
            Value::Number(n) => Borrowed::Number(n.clone()),
            Value::String(s) => Borrowed::String(Cow::Owned(s.clone())),
            Value::Array(items) => {
                Borrowed::Array(items.iter().map(Borrowed::from_value).collect())
            }
            Value::Object(map) => Borrowed::Object(
                map.iter()
                    .map(|(k, v)| (Cow::Owned(k.clone()), Borrowed::from_value(v)))
                    .collect(),
            ),
        }
    }

    /// The value of member `name`, when this is an object that has one.
    pub fn member(&self, name: &str) -> Option<&Borrowed<'a>> {
        match self {
            Borrowed::Object(members) => members.iter().find(|(k, _)| k == name).map(|(_, v)| v),
            _ => None,
        }
    }

    /// [`Borrowed::member`], to change.
    pub fn member_mut(&mut self, name: &str) -> Option<&mut Borrowed<'a>> {
        match self {
            Borrowed::Object(members) => {
                members.iter_mut().find(|(k, _)| k == name).map(|(_, v)| v)
            }
            _ => None,
        }
    }
}

fn object_value(
    members: &[(Cow<'_, str>, Borrowed<'_>)],
    skipped: Option<&str>,
) -> Map<String, Value> {
    let mut map = Map::with_capacity(members.len());
    for (key, value) in members {
        if skipped != Some(key.as_ref()) {
            map.insert(key.as_ref().to_owned(), value.to_value());
        }
    }
    map
}

/// A number token as `serde_json` reads it: an integer that fits as `u64` (or, negative, as
/// `i64`), else the nearest double (`-0` is the double `-0.0`); `None` beyond the double range.
fn serde_number(token: &str) -> Option<Number> {
    if !token.contains(['.', 'e', 'E']) {
        match token.strip_prefix('-') {
            None => {
                if let Ok(n) = token.parse::<u64>() {
                    return Some(Number::from(n));
                }
            }
            Some(digits) => {
                if let Ok(n) = digits.parse::<u64>() {
                    let negated = (n as i64).wrapping_neg();
                    if negated < 0 {
                        return Some(Number::from(negated));
                    }
                }
            }
        }
    }
    token.parse::<f64>().ok().and_then(Number::from_f64)
}

struct BorrowedBuilder<'a> {
    /// Members of the objects being read, innermost last; each object takes its own when it
    /// closes, so reading one allocates only its list.
    members: Vec<(Cow<'a, str>, Borrowed<'a>)>,
    /// Each container's item or member count, in the order they open, when counted.
    sizes: Vec<u32>,
    /// How many containers opened so far.
    opened: usize,
    /// The first value `serde_json` would refuse.
    refused: Option<BorrowedError>,
}

impl<'a> BorrowedBuilder<'a> {
    /// The counted size of the container opening now (0 when not counted).
    fn next_size(&mut self) -> usize {
        let size = self.sizes.get(self.opened).map_or(0, |&n| n as usize);
        self.opened += 1;
        size
    }

    fn string(&mut self, s: JsonStr<'a>) -> Cow<'a, str> {
        if !s.escaped {
            return Cow::Borrowed(s.raw);
        }
        match String::from_utf16(&decode_json_string(s.raw)) {
            Ok(decoded) => Cow::Owned(decoded),
            Err(_) => {
                self.refused.get_or_insert(BorrowedError::LoneSurrogate);
                Cow::Borrowed("")
            }
        }
    }
}

impl<'a> Build<'a> for BorrowedBuilder<'a> {
    type Value = Borrowed<'a>;
    type Object = usize;
    type Array = Vec<Borrowed<'a>>;
    type Output = (Borrowed<'a>, Option<BorrowedError>);

    fn scalar(&mut self, scalar: Scalar<'a>) -> Borrowed<'a> {
        match scalar {
            Scalar::Null => Borrowed::Null,
            Scalar::Bool(b) => Borrowed::Bool(b),
            Scalar::Number(token) => match serde_number(token) {
                Some(n) => Borrowed::Number(n),
                None => {
                    self.refused.get_or_insert(BorrowedError::NumberOutOfRange);
                    Borrowed::Null
                }
            },
            Scalar::String(s) => Borrowed::String(self.string(s)),
        }
    }

    fn open_object(&mut self) -> usize {
        let size = self.next_size();
        self.members.reserve_exact(size);
        self.members.len()
    }

    fn key(&mut self, _: &mut usize, _: JsonStr<'a>) {}

    fn member(&mut self, _: &mut usize, key: JsonStr<'a>, value: Borrowed<'a>) {
        let key = self.string(key);
        self.members.push((key, value));
    }

    fn close_object(&mut self, start: usize) -> Borrowed<'a> {
        let mut members: Vec<_> = self.members.drain(start..).collect();
        dedupe(&mut members);
        Borrowed::Object(members.into_boxed_slice())
    }

    fn open_array(&mut self) -> Vec<Borrowed<'a>> {
        Vec::with_capacity(self.next_size())
    }

    fn item(&mut self, array: &mut Vec<Borrowed<'a>>, value: Borrowed<'a>) {
        array.push(value);
    }

    fn close_array(&mut self, array: Vec<Borrowed<'a>>) -> Borrowed<'a> {
        Borrowed::Array(array.into_boxed_slice())
    }

    fn finish(self, root: Borrowed<'a>) -> (Borrowed<'a>, Option<BorrowedError>) {
        (root, self.refused)
    }
}

/// Objects up to this many members are checked for a repeated key pair by pair.
const PAIRWISE_UP_TO: usize = 16;

/// Keeps each key once, at its first place, with its last value (as `JSON.parse` and
/// `serde_json`'s ordered map do).
fn dedupe(members: &mut Vec<(Cow<'_, str>, Borrowed<'_>)>) {
    if members.len() < 2 {
        return;
    }
    let repeated = if members.len() <= PAIRWISE_UP_TO {
        (1..members.len()).any(|i| members[..i].iter().any(|(k, _)| *k == members[i].0))
    } else {
        let mut seen = std::collections::HashSet::with_capacity(members.len());
        !members.iter().all(|(k, _)| seen.insert(k.as_ref()))
    };
    if !repeated {
        return;
    }
    let mut kept: Vec<(Cow<'_, str>, Borrowed<'_>)> = Vec::with_capacity(members.len());
    let mut place: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (key, value) in members.drain(..) {
        match place.get(key.as_ref()) {
            Some(&at) => kept[at].1 = value,
            None => {
                place.insert(key.as_ref().to_owned(), kept.len());
                kept.push((key, value));
            }
        }
    }
    *members = kept;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{on_deep_stack, CALLER_DEPTH, MAX_DEPTH};
    use crate::test_random::Rng;

    fn serde(text: &str) -> Option<Value> {
        serde_json::from_str(text).ok()
    }

    fn ours(text: &str) -> Option<Value> {
        parse_borrowed(text).ok().map(|v| v.to_value())
    }

    #[test]
    fn a_value_takes_a_strings_size() {
        // What the boxed lists are for: a long array's tree is mostly its values.
        assert_eq!(std::mem::size_of::<Borrowed<'_>>(), 24);
    }

    #[test]
    fn reads_what_serde_json_reads() {
        for text in [
            "0",
            "-0",
            "-0.0",
            "1",
            "-1",
            "1.0",
            "1e2",
            "1E-2",
            "-1.5e+3",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "9007199254740993",
            "0.1",
            "1e-400",
            "-1e-400",
            "2.2250738585072011e-308",
            "123456789012345678901234567890",
            "1e308",
            "1.7976931348623157e308",
            "\"a\\u0041\\n\\\"\"",
            "\"\\ud83d\\ude00\"",
            "\"é\\u00e9\"",
            "[]",
            "{}",
            r#"{"a":1,"b":[true,false,null],"a":2}"#,
            r#"{"x":{"y":{"x":1,"x":[2]}}}"#,
            " [ 1 , {\"k\" : \"v\"} ] ",
        ] {
            assert_eq!(ours(text), serde(text), "{text}");
            assert!(ours(text).is_some(), "{text}");
        }
    }

    #[test]
    fn refuses_what_serde_json_refuses() {
        for text in [
            "1e400",
            "-1e400",
            "[1e999]",
            "\"\\ud800\"",
            "\"\\udc00x\"",
            "01",
            "[1,]",
            "{\"a\"}",
            "",
            "nul",
            "\"\u{1}\"",
        ] {
            assert_eq!(ours(text), None, "{text}");
            assert_eq!(serde(text), None, "{text}");
        }
    }

    /// serde_json stops at 127 levels; the caller's stack takes 128, and a deep one
    /// [`MAX_DEPTH`](crate::json::MAX_DEPTH), past which it is refused as too deep.
    #[test]
    fn reads_as_deep_as_its_stack() {
        let nested = |depth: usize| "[".repeat(depth) + &"]".repeat(depth);
        assert!(serde(&nested(127)).is_some());
        assert!(serde(&nested(128)).is_none());
        let too_deep = Err(BorrowedError::Syntax(ParseError::TooDeep));
        assert!(parse_borrowed(&nested(CALLER_DEPTH)).is_ok());
        assert_eq!(
            parse_borrowed(&nested(CALLER_DEPTH + 1)).map(|_| ()),
            too_deep
        );
        let deep = on_deep_stack(|| {
            let text = nested(MAX_DEPTH);
            let read = parse_borrowed_on(&text, Stack::Deep).map(|tree| tree.to_value());
            let past = parse_borrowed_on(&nested(MAX_DEPTH + 1), Stack::Deep).map(|_| ());
            (read.is_ok(), past)
        });
        assert_eq!(deep, Some((true, too_deep)));
    }

    #[test]
    fn refusals_say_why() {
        let why = |text: &str| parse_borrowed(text).err().map(|e| e.to_string());
        assert_eq!(
            why("[1e400]").as_deref(),
            Some("a number beyond the double range")
        );
        assert_eq!(
            why(r#""\udc00""#).as_deref(),
            Some("a string escape with an unpaired surrogate")
        );
        assert_eq!(
            why("[1,]").as_deref(),
            Some("not valid JSON: expected a value at byte 3")
        );
    }

    #[test]
    fn duplicate_keys_keep_the_first_place_and_the_last_value() {
        let many: String = (0..40).map(|i| format!("\"k{}\":{i},", i % 25)).collect();
        let text = format!("{{{}\"end\":0}}", many);
        assert_eq!(ours(&text), serde(&text));
        let Some(Value::Object(map)) = ours(&text) else {
            panic!("an object")
        };
        assert_eq!(map.len(), 26);
        assert_eq!(map["k0"], Value::from(25));
    }

    /// Random documents (numbers of every shape, escapes, repeated keys): the same values.
    #[test]
    fn random_documents_read_as_serde_json_reads_them() {
        let mut rng = Rng::new(0x5e7d_e0b5);
        for _ in 0..3_000 {
            let text = random_json(&mut rng, 0);
            assert_eq!(ours(&text), serde(&text), "{text}");
        }
    }

    /// A text long enough to be counted first: the same values, and the counts are the
    /// lists' lengths in the order the parse opens them (what allocates each at its size).
    #[test]
    fn long_texts_read_the_same_with_their_lists_counted() {
        let mut items = Vec::new();
        let mut len = 0;
        let mut i = 0usize;
        while len < COUNTED_FROM {
            let item = match i % 5 {
                0 => format!(
                    "[{}]",
                    (0..i % 7)
                        .map(|j| j.to_string())
                        .collect::<Vec<_>>()
                        .join(",")
                ),
                1 => format!(r#"{{"k{i}": [{i}], "s": "x,]}}\"[{{"}}"#),
                2 => "[]".to_owned(),
                3 => r#"{"n": {"m": [1, [2, [3, {}]]]}, "e": ""}"#.to_owned(),
                _ => format!(r#"["\\", {i}.5e1, null, true]"#),
            };
            len += item.len() + 1;
            items.push(item);
            i += 1;
        }
        let text = format!(r#"{{"a":[{}],"b":{{"c":[1,2,3]}}}}"#, items.join(","));
        assert!(text.len() >= COUNTED_FROM);
        assert_eq!(ours(&text), serde(&text));
        fn lengths(value: &Borrowed<'_>, out: &mut Vec<u32>) {
            match value {
                Borrowed::Array(items) => {
                    out.push(items.len() as u32);
                    items.iter().for_each(|item| lengths(item, out));
                }
                Borrowed::Object(members) => {
                    out.push(members.len() as u32);
                    members.iter().for_each(|(_, v)| lengths(v, out));
                }
                _ => {}
            }
        }
        let mut parsed = Vec::new();
        lengths(&parse_borrowed(&text).expect("JSON"), &mut parsed);
        assert_eq!(container_sizes(&text), parsed);
    }

    fn random_json(rng: &mut Rng, depth: usize) -> String {
        let pick = if depth > 4 {
            rng.below(5)
        } else {
            rng.below(7)
        };
        match pick {
            0 => rng.pick(&["null", "true", "false"]).to_string(),
            1 => random_number(rng),
            2 | 3 => format!("\"{}\"", random_string(rng)),
            4 => random_number(rng),
            5 => {
                let items: Vec<String> = (0..rng.below(4))
                    .map(|_| random_json(rng, depth + 1))
                    .collect();
                format!("[{}]", items.join(","))
            }
            _ => {
                let members: Vec<String> = (0..rng.below(5))
                    .map(|_| {
                        format!(
                            "\"{}\":{}",
                            rng.pick(&["a", "b", "0", "10", "k\\u0041", "é"]),
                            random_json(rng, depth + 1)
                        )
                    })
                    .collect();
                format!("{{{}}}", members.join(","))
            }
        }
    }

    const DIGITS: [char; 10] = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'];

    fn random_number(rng: &mut Rng) -> String {
        let sign = if rng.one_in(3) { "-" } else { "" };
        let len = 1 + rng.below(22);
        let digits = rng.string_of(&DIGITS, len);
        let digits = digits.trim_start_matches('0');
        let int = if digits.is_empty() { "0" } else { digits };
        let fraction = if rng.one_in(3) {
            let len = 1 + rng.below(18);
            format!(".{}", rng.string_of(&DIGITS, len))
        } else {
            String::new()
        };
        let exponent = if rng.one_in(4) {
            let sign = *rng.pick(&["", "+", "-"]);
            format!("e{sign}{}", rng.below(330))
        } else {
            String::new()
        };
        format!("{sign}{int}{fraction}{exponent}")
    }

    fn random_string(rng: &mut Rng) -> String {
        (0..rng.below(6))
            .map(|_| {
                rng.pick(&[
                    "a",
                    "\\n",
                    "\\\"",
                    "\\u00e9",
                    "\\ud83d\\ude00",
                    "é",
                    " ",
                    "\\\\",
                ])
                .to_string()
            })
            .collect()
    }
}

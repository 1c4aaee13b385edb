//! A strict JSON parser (what `JSON.parse` accepts) into a tree that borrows from the text.
//!
//! Strings and numbers stay as slices of the input, so copying a document that `JSON.stringify`
//! wrote costs a memcpy per token; escapes are decoded only where they appear.

use super::decode_json_string;
use std::fmt;

/// The deepest nesting accepted. The TypeScript writer overflows its stack at about 4,100
/// levels of objects (2,600 of arrays) on Node 20; this is above both.
pub const MAX_DEPTH: usize = 5_000;

/// A string token: the text between its quotes, escapes undecoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JsonStr<'a> {
    pub raw: &'a str,
    /// Whether `raw` holds a backslash escape.
    pub escaped: bool,
}

impl JsonStr<'_> {
    /// The decoded string as UTF-16 code units.
    pub fn units(&self) -> Vec<u16> {
        if self.escaped {
            decode_json_string(self.raw)
        } else {
            self.raw.encode_utf16().collect()
        }
    }

    /// Whether the decoded string equals `text`.
    pub fn is(&self, text: &str) -> bool {
        if self.escaped {
            decode_json_string(self.raw)
                .into_iter()
                .eq(text.encode_utf16())
        } else {
            self.raw == text
        }
    }
}

/// An object key.
pub type JsonKey<'a> = JsonStr<'a>;

#[derive(Debug, Clone, PartialEq)]
pub enum Node<'a> {
    Null,
    Bool(bool),
    /// A number token, as written.
    Number(&'a str),
    String(JsonStr<'a>),
    /// A string value that is not in the text (set after parsing).
    OwnedString(String),
    Array(Vec<Node<'a>>),
    /// Members in document order, duplicates included.
    Object(Vec<(JsonKey<'a>, Node<'a>)>),
}

impl<'a> Node<'a> {
    /// Where the member `JSON.parse` keeps for `key` (the last duplicate) sits.
    pub fn position(&self, key: &str) -> Option<usize> {
        match self {
            Node::Object(members) => members.iter().rposition(|(k, _)| k.is(key)),
            _ => None,
        }
    }

    /// The value `JSON.parse` keeps for `key`.
    pub fn get(&self, key: &str) -> Option<&Node<'a>> {
        match self {
            Node::Object(members) => self.position(key).map(|i| &members[i].1),
            _ => None,
        }
    }

    /// A string value as UTF-16 code units (what JavaScript compares).
    pub fn string_units(&self) -> Option<Vec<u16>> {
        match self {
            Node::String(s) => Some(s.units()),
            Node::OwnedString(s) => Some(s.encode_utf16().collect()),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// Not JSON: what was expected, at which byte.
    Syntax {
        offset: usize,
        expected: &'static str,
    },
    /// Nested deeper than [`MAX_DEPTH`].
    TooDeep,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Syntax { offset, expected } => {
                write!(f, "not valid JSON: expected {expected} at byte {offset}")
            }
            ParseError::TooDeep => write!(f, "nested deeper than {MAX_DEPTH} levels"),
        }
    }
}

impl std::error::Error for ParseError {}

/// Nesting up to this depth is parsed, walked and dropped on the caller's stack; a deeper
/// document moves to a thread whose stack fits [`MAX_DEPTH`] (each level of parse, write and
/// drop takes a few hundred bytes, and Node's main thread and tokio's workers have little room).
const INLINE_DEPTH: usize = 128;
const DEEP_STACK_BYTES: usize = 64 << 20;

/// Parses `text` and hands the tree to `work`, wherever the stack fits it. Documents nested
/// past [`INLINE_DEPTH`] are parsed again on a large-stack thread, so the common case pays for
/// no thread and no extra scan.
pub fn with_parsed<R: Send>(
    text: &str,
    work: impl FnOnce(Node<'_>) -> R + Send,
) -> Result<R, ParseError> {
    match parse_within(text, INLINE_DEPTH) {
        Ok(node) => Ok(work(node)),
        Err(ParseError::TooDeep) => std::thread::scope(|scope| {
            let worker = std::thread::Builder::new()
                .name("kindgi-deep-json".into())
                .stack_size(DEEP_STACK_BYTES)
                .spawn_scoped(scope, || parse_within(text, MAX_DEPTH).map(work))
                .map_err(|_| ParseError::TooDeep)?;
            worker.join().unwrap_or(Err(ParseError::TooDeep))
        }),
        Err(error) => Err(error),
    }
}

/// Parses one JSON document (surrounding JSON whitespace allowed, nothing else), nested at
/// most `max_depth` levels. Callers that take untrusted depth use [`with_parsed`].
fn parse_within(text: &str, max_depth: usize) -> Result<Node<'_>, ParseError> {
    let mut parser = Parser {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        max_depth,
    };
    parser.skip_ws();
    let node = parser.value(0)?;
    parser.skip_ws();
    if parser.pos != parser.bytes.len() {
        return Err(parser.error("end of input"));
    }
    Ok(node)
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    max_depth: usize,
}

/// Bytes that end a run of plain string content: the quote, a backslash, a control character.
const STRING_STOP: [bool; 256] = {
    let mut stop = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        stop[b] = true;
        b += 1;
    }
    stop[b'"' as usize] = true;
    stop[b'\\' as usize] = true;
    stop
};

impl<'a> Parser<'a> {
    fn error(&self, expected: &'static str) -> ParseError {
        ParseError::Syntax {
            offset: self.pos,
            expected,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn eat(&mut self, byte: u8, expected: &'static str) -> Result<(), ParseError> {
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error(expected))
        }
    }

    fn literal(&mut self, word: &'static str, node: Node<'a>) -> Result<Node<'a>, ParseError> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(node)
        } else {
            Err(self.error(word))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node<'a>, ParseError> {
        match self.peek() {
            Some(b'{') => self.object(depth + 1),
            Some(b'[') => self.array(depth + 1),
            Some(b'"') => Ok(Node::String(self.string()?)),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b't') => self.literal("true", Node::Bool(true)),
            Some(b'f') => self.literal("false", Node::Bool(false)),
            Some(b'n') => self.literal("null", Node::Null),
            _ => Err(self.error("a value")),
        }
    }

    fn object(&mut self, depth: usize) -> Result<Node<'a>, ParseError> {
        if depth > self.max_depth {
            return Err(ParseError::TooDeep);
        }
        self.pos += 1;
        let mut members = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Node::Object(members));
        }
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(self.error("a string key"));
            }
            let key = self.string()?;
            self.skip_ws();
            self.eat(b':', "':'")?;
            self.skip_ws();
            let value = self.value(depth)?;
            members.push((key, value));
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Node::Object(members));
                }
                _ => return Err(self.error("',' or '}'")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Node<'a>, ParseError> {
        if depth > self.max_depth {
            return Err(ParseError::TooDeep);
        }
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Node::Array(items));
        }
        loop {
            self.skip_ws();
            items.push(self.value(depth)?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Node::Array(items));
                }
                _ => return Err(self.error("',' or ']'")),
            }
        }
    }

    fn string(&mut self) -> Result<JsonStr<'a>, ParseError> {
        self.pos += 1; // the opening quote
        let start = self.pos;
        let mut escaped = false;
        loop {
            // Skip plain content in one pass.
            let rest = &self.bytes[self.pos..];
            self.pos += rest
                .iter()
                .position(|&b| STRING_STOP[usize::from(b)])
                .unwrap_or(rest.len());
            let Some(b) = self.peek() else {
                return Err(self.error("a closing '\"'"));
            };
            match b {
                b'"' => {
                    let raw = &self.text[start..self.pos];
                    self.pos += 1;
                    return Ok(JsonStr { raw, escaped });
                }
                b'\\' => {
                    escaped = true;
                    self.pos += 1;
                    match self.peek() {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {
                            self.pos += 1
                        }
                        Some(b'u') => {
                            self.pos += 1;
                            for _ in 0..4 {
                                match self.peek() {
                                    Some(h) if h.is_ascii_hexdigit() => self.pos += 1,
                                    _ => return Err(self.error("four hex digits")),
                                }
                            }
                        }
                        _ => return Err(self.error("an escape")),
                    }
                }
                _ => return Err(self.error("no control character in a string")),
            }
        }
    }

    fn number(&mut self) -> Result<Node<'a>, ParseError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.error("a digit")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.error("a digit"));
            }
            self.digits();
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.error("a digit"));
            }
            self.digits();
        }
        Ok(Node::Number(&self.text[start..self.pos]))
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Node<'_>, ParseError> {
        parse_within(text, MAX_DEPTH)
    }

    #[test]
    fn parses_documents() {
        let node =
            parse(" {\"a\": [1, -2.5e3, true, false, null], \"b\\n\": \"x\\u0041\"} ").unwrap();
        let Node::Object(members) = &node else {
            panic!("not an object")
        };
        assert_eq!(members.len(), 2);
        assert_eq!(
            members[1].0,
            JsonStr {
                raw: "b\\n",
                escaped: true
            }
        );
        assert_eq!(
            node.get("a"),
            Some(&Node::Array(vec![
                Node::Number("1"),
                Node::Number("-2.5e3"),
                Node::Bool(true),
                Node::Bool(false),
                Node::Null
            ]))
        );
    }

    #[test]
    fn last_duplicate_wins() {
        let node = parse("{\"a\":1,\"a\":2}").unwrap();
        assert_eq!(node.get("a"), Some(&Node::Number("2")));
    }

    #[test]
    fn refuses_what_json_parse_refuses() {
        for bad in [
            "",
            " ",
            "\u{feff}{}",
            "{",
            "[1,]",
            "{\"a\":1,}",
            "01",
            "1.",
            ".5",
            "-",
            "+1",
            "1e",
            "\"\t\"",
            "\"\\x\"",
            "\"\\u12\"",
            "NaN",
            "Infinity",
            "undefined",
            "'a'",
            "{a:1}",
            "[1 2]",
            "tru",
            "1 2",
            "\"abc",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} parsed");
        }
    }

    #[test]
    fn deep_documents_move_to_a_large_stack_and_past_the_limit_are_refused() {
        let depth_of = |text: String| {
            with_parsed(&text, |node| {
                let mut depth = 0;
                let mut current = &node;
                while let Some(next) = match current {
                    Node::Array(items) => items.first(),
                    Node::Object(members) => members.first().map(|(_, v)| v),
                    _ => None,
                } {
                    depth += 1;
                    current = next;
                }
                depth
            })
        };
        let arrays = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert_eq!(depth_of(arrays(3)), Ok(2));
        assert_eq!(depth_of(arrays(MAX_DEPTH)), Ok(MAX_DEPTH - 1));
        assert_eq!(depth_of(arrays(MAX_DEPTH + 1)), Err(ParseError::TooDeep));
        let objects = format!("{}1{}", "{\"a\":".repeat(MAX_DEPTH), "}".repeat(MAX_DEPTH));
        assert_eq!(depth_of(objects), Ok(MAX_DEPTH));
    }
}

//! The strict JSON grammar (what `JSON.parse` accepts), read once for every shape a parse can
//! make: a [`Build`] turns the values into a tree ([`super::Node`]) or a flat tape
//! ([`super::Tape`]), and both accept and refuse the same texts with the same errors.

use super::deep::{on_deep_stack, Stack};
use super::scan::plain_len;
use super::JsonStr;
use std::fmt;

/// The deepest nesting accepted. The TypeScript writer overflows its stack at about 4,100
/// levels of objects (2,600 of arrays) on Node 20, and its pack service serves tool calls
/// only as deep as `structuredClone` copies them (about 3,000 levels); this is above all.
pub const MAX_DEPTH: usize = 5_000;

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

/// A value that holds no other, as the parser hands it to a [`Build`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar<'a> {
    Null,
    Bool(bool),
    /// A number token, as written.
    Number(&'a str),
    String(JsonStr<'a>),
}

/// What the parser makes of the values it reads, in document order.
pub trait Build<'a> {
    /// A value read.
    type Value;
    /// An object being read.
    type Object;
    /// An array being read.
    type Array;
    /// The whole document.
    type Output;

    fn scalar(&mut self, scalar: Scalar<'a>) -> Self::Value;
    fn open_object(&mut self) -> Self::Object;
    /// A member's key, read before its value is.
    fn key(&mut self, object: &mut Self::Object, key: JsonStr<'a>);
    /// The member whose key [`Build::key`] gave, once its value is read.
    fn member(&mut self, object: &mut Self::Object, key: JsonStr<'a>, value: Self::Value);
    fn close_object(&mut self, object: Self::Object) -> Self::Value;
    fn open_array(&mut self) -> Self::Array;
    fn item(&mut self, array: &mut Self::Array, value: Self::Value);
    fn close_array(&mut self, array: Self::Array) -> Self::Value;
    fn finish(self, root: Self::Value) -> Self::Output;
}

/// Parses `text` with a builder from `make` and hands what it built to `work`, wherever the
/// stack fits it. Documents nested past [`Stack::Caller`]'s depth are parsed again on a
/// large-stack thread, so the common case pays for no thread and no extra scan.
pub fn with_built<'t, B: Build<'t>, R: Send>(
    text: &'t str,
    make: impl Fn() -> B + Sync,
    work: impl FnOnce(B::Output) -> R + Send,
) -> Result<R, ParseError> {
    with_built_within(text, MAX_DEPTH, make, work)
}

/// [`with_built`] for a document nested at most `max_depth` levels (at most [`MAX_DEPTH`]): a
/// piece of a larger document counts the levels above it.
pub fn with_built_within<'t, B: Build<'t>, R: Send>(
    text: &'t str,
    max_depth: usize,
    make: impl Fn() -> B + Sync,
    work: impl FnOnce(B::Output) -> R + Send,
) -> Result<R, ParseError> {
    let max_depth = max_depth.min(MAX_DEPTH);
    let inline = Stack::Caller.json_depth();
    match parse_within(text, inline.min(max_depth), make()) {
        Ok(built) => Ok(work(built)),
        Err(ParseError::TooDeep) if max_depth > inline => {
            on_deep_stack(|| parse_within(text, max_depth, make()).map(work))
                .unwrap_or(Err(ParseError::TooDeep))
        }
        Err(error) => Err(error),
    }
}

/// Parses one JSON document (surrounding JSON whitespace allowed, nothing else), nested at
/// most `max_depth` levels. Callers that take untrusted depth use [`with_built`].
pub fn parse_within<'a, B: Build<'a>>(
    text: &'a str,
    max_depth: usize,
    build: B,
) -> Result<B::Output, ParseError> {
    let mut parser = Parser {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        max_depth,
        build,
    };
    parser.skip_ws();
    let root = parser.value(0)?;
    parser.skip_ws();
    if parser.pos != parser.bytes.len() {
        return Err(parser.error("end of input"));
    }
    Ok(parser.build.finish(root))
}

struct Parser<'a, B> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    max_depth: usize,
    build: B,
}

impl<'a, B: Build<'a>> Parser<'a, B> {
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

    fn literal(&mut self, word: &'static str, scalar: Scalar<'a>) -> Result<B::Value, ParseError> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(self.build.scalar(scalar))
        } else {
            Err(self.error(word))
        }
    }

    fn value(&mut self, depth: usize) -> Result<B::Value, ParseError> {
        match self.peek() {
            Some(b'{') => self.object(depth + 1),
            Some(b'[') => self.array(depth + 1),
            Some(b'"') => {
                let s = self.string()?;
                Ok(self.build.scalar(Scalar::String(s)))
            }
            Some(b'-' | b'0'..=b'9') => {
                let token = self.number()?;
                Ok(self.build.scalar(Scalar::Number(token)))
            }
            Some(b't') => self.literal("true", Scalar::Bool(true)),
            Some(b'f') => self.literal("false", Scalar::Bool(false)),
            Some(b'n') => self.literal("null", Scalar::Null),
            _ => Err(self.error("a value")),
        }
    }

    fn object(&mut self, depth: usize) -> Result<B::Value, ParseError> {
        if depth > self.max_depth {
            return Err(ParseError::TooDeep);
        }
        self.pos += 1;
        let mut members = self.build.open_object();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(self.build.close_object(members));
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
            self.build.key(&mut members, key);
            let value = self.value(depth)?;
            self.build.member(&mut members, key, value);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(self.build.close_object(members));
                }
                _ => return Err(self.error("',' or '}'")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<B::Value, ParseError> {
        if depth > self.max_depth {
            return Err(ParseError::TooDeep);
        }
        self.pos += 1;
        let mut items = self.build.open_array();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(self.build.close_array(items));
        }
        loop {
            self.skip_ws();
            let item = self.value(depth)?;
            self.build.item(&mut items, item);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(self.build.close_array(items));
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
            // Skip plain content, eight bytes at a time.
            self.pos += plain_len(&self.bytes[self.pos..]);
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

    fn number(&mut self) -> Result<&'a str, ParseError> {
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
        Ok(&self.text[start..self.pos])
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
    }
}

//! JSON text parsed into a tape: one flat list of tokens in document order, borrowing from the
//! text. A container's token says where it ends, so a walk skips what it does not read.
//!
//! The tree ([`super::Node`]) allocates a list per object and array, scattered over the heap;
//! the tape is one allocation read front to back, which is what a writer that visits every
//! value wants.

use super::grammar::{with_built_within, Build, ParseError, Scalar, MAX_DEPTH};
use super::{JsonKey, JsonStr};

/// One token of a [`Tape`]. An object's members follow its token as a key (a `String` token)
/// and then the value's tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Token<'a> {
    Null,
    Bool(bool),
    /// A number token, as written.
    Number(&'a str),
    String(JsonStr<'a>),
    /// `end`: the index of the first token after the array's items.
    Array {
        end: usize,
    },
    /// `end`: the index of the first token after the object's members.
    Object {
        end: usize,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tape<'a> {
    tokens: Vec<Token<'a>>,
}

/// Parses `text` (strictly, as `JSON.parse` does) and hands the tape to `work`, wherever the
/// stack fits it (see [`super::with_parsed`]).
pub fn with_tape<R: Send>(
    text: &str,
    work: impl FnOnce(Tape<'_>) -> R + Send,
) -> Result<R, ParseError> {
    with_tape_within(text, MAX_DEPTH, work)
}

/// [`with_tape`] for a document nested at most `max_depth` levels.
pub fn with_tape_within<R: Send>(
    text: &str,
    max_depth: usize,
    work: impl FnOnce(Tape<'_>) -> R + Send,
) -> Result<R, ParseError> {
    // About one token per eight bytes of compact JSON; the list grows if it needs more.
    with_built_within(
        text,
        max_depth,
        || TapeBuilder::with_capacity(text.len() / 8 + 1),
        work,
    )
}

impl<'a> Tape<'a> {
    /// The index of the document's value.
    pub const ROOT: usize = 0;

    pub fn token(&self, at: usize) -> Token<'a> {
        self.tokens[at]
    }

    /// The index of the first token after the value at `at`.
    pub fn after(&self, at: usize) -> usize {
        match self.tokens[at] {
            Token::Array { end } | Token::Object { end } => end,
            _ => at + 1,
        }
    }

    /// The indices of the items of the array at `at` (none when it is not an array).
    pub fn items(&self, at: usize) -> impl Iterator<Item = usize> + '_ {
        let end = match self.tokens[at] {
            Token::Array { end } => end,
            _ => at + 1,
        };
        let mut next = at + 1;
        std::iter::from_fn(move || {
            let item = next;
            (item < end).then(|| {
                next = self.after(item);
                item
            })
        })
    }

    /// The members of the object at `at` in document order, duplicates included, each as its
    /// key and its value's index (none when it is not an object).
    pub fn members(&self, at: usize) -> impl Iterator<Item = (JsonKey<'a>, usize)> + '_ {
        let end = match self.tokens[at] {
            Token::Object { end } => end,
            _ => at + 1,
        };
        let mut next = at + 1;
        std::iter::from_fn(move || {
            let key = next;
            if key >= end {
                return None;
            }
            next = self.after(key + 1);
            match self.tokens[key] {
                Token::String(name) => Some((name, key + 1)),
                // The builder writes a key before every member value.
                _ => None,
            }
        })
    }

    /// The index of the value `JSON.parse` keeps for `key` (the last duplicate) in the object
    /// at `at`.
    pub fn get(&self, at: usize, key: &str) -> Option<usize> {
        self.members(at)
            .filter(|(name, _)| name.is(key))
            .last()
            .map(|(_, value)| value)
    }

    /// The string at `at` as UTF-16 code units (what JavaScript compares).
    pub fn string_units(&self, at: usize) -> Option<Vec<u16>> {
        match self.tokens[at] {
            Token::String(s) => Some(s.units()),
            _ => None,
        }
    }
}

/// Builds a [`Tape`]: containers are written when they open and told their end when they close.
struct TapeBuilder<'a> {
    tokens: Vec<Token<'a>>,
}

impl TapeBuilder<'_> {
    fn with_capacity(tokens: usize) -> Self {
        TapeBuilder {
            tokens: Vec::with_capacity(tokens),
        }
    }

    fn open(&mut self, token: Token<'static>) -> usize {
        self.tokens.push(token);
        self.tokens.len() - 1
    }

    fn close(&mut self, at: usize) {
        let end = self.tokens.len();
        if let Some(Token::Array { end: slot } | Token::Object { end: slot }) =
            self.tokens.get_mut(at)
        {
            *slot = end;
        }
    }
}

impl<'a> Build<'a> for TapeBuilder<'a> {
    type Value = ();
    type Object = usize;
    type Array = usize;
    type Output = Tape<'a>;

    fn scalar(&mut self, scalar: Scalar<'a>) {
        self.tokens.push(match scalar {
            Scalar::Null => Token::Null,
            Scalar::Bool(b) => Token::Bool(b),
            Scalar::Number(token) => Token::Number(token),
            Scalar::String(s) => Token::String(s),
        });
    }

    fn open_object(&mut self) -> usize {
        self.open(Token::Object { end: 0 })
    }

    fn key(&mut self, _: &mut usize, key: JsonKey<'a>) {
        self.tokens.push(Token::String(key));
    }

    fn member(&mut self, _: &mut usize, _: JsonKey<'a>, (): ()) {}

    fn close_object(&mut self, at: usize) {
        self.close(at);
    }

    fn open_array(&mut self) -> usize {
        self.open(Token::Array { end: 0 })
    }

    fn item(&mut self, _: &mut usize, (): ()) {}

    fn close_array(&mut self, at: usize) {
        self.close(at);
    }

    fn finish(self, (): ()) -> Tape<'a> {
        Tape {
            tokens: self.tokens,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{with_parsed, Node, MAX_DEPTH};

    /// The tape read back as a tree, to compare with the parser's own tree.
    fn tree<'a>(tape: &Tape<'a>, at: usize) -> Node<'a> {
        match tape.token(at) {
            Token::Null => Node::Null,
            Token::Bool(b) => Node::Bool(b),
            Token::Number(token) => Node::Number(token),
            Token::String(s) => Node::String(s),
            Token::Array { .. } => Node::Array(tape.items(at).map(|i| tree(tape, i)).collect()),
            Token::Object { .. } => Node::Object(
                tape.members(at)
                    .map(|(key, value)| (key, tree(tape, value)))
                    .collect(),
            ),
        }
    }

    /// The parser's tree and the tape's, each written out.
    fn both(text: &str) -> (Result<String, ParseError>, Result<String, ParseError>) {
        (
            with_parsed(text, |node| format!("{node:?}")),
            with_tape(text, |tape| format!("{:?}", tree(&tape, Tape::ROOT))),
        )
    }

    #[test]
    fn holds_what_the_tree_holds() {
        for text in [
            "null",
            " 1 ",
            "\"x\\n\"",
            "[]",
            "{}",
            "[1,[2,[3,{}]],{\"a\":[]},\"s\"]",
            "{\"a\":{\"b\":[true,false,null]},\"a\":-1.5e3,\"\":{\"c\":{}}}",
            "[[[[]]],[[]],[]]",
        ] {
            let (node, tape) = both(text);
            assert!(node.is_ok(), "{text}");
            assert_eq!(node, tape, "{text}");
        }
    }

    #[test]
    fn refuses_as_the_tree_does() {
        for text in [
            "",
            "{",
            "[1,]",
            "{\"a\":1,}",
            "01",
            "\"\\x\"",
            "[1 2]",
            "{a:1}",
            "1 2",
            "\"abc",
        ] {
            let (node, tape) = both(text);
            assert!(node.is_err(), "{text}");
            assert_eq!(node, tape, "{text}");
        }
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert_eq!(with_tape(&deep, |_| ()), Err(ParseError::TooDeep));
        let deepest = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert_eq!(
            with_tape(&deepest, |tape| tape.after(Tape::ROOT)),
            Ok(MAX_DEPTH)
        );
    }

    #[test]
    fn get_keeps_the_last_duplicate() {
        let text = r#"{"id":1,"x":{"id":3},"\u0069d":2}"#;
        let found = with_tape(text, |tape| {
            tape.get(Tape::ROOT, "id")
                .map(|at| format!("{:?}", tape.token(at)))
        });
        assert_eq!(found, Ok(Some("Number(\"2\")".to_owned())));
        assert_eq!(
            with_tape("[1]", |tape| tape.get(Tape::ROOT, "id")),
            Ok(None)
        );
    }
}

//! JSON text parsed into a tree that borrows from the text.
//!
//! Strings and numbers stay as slices of the input, so copying a document that `JSON.stringify`
//! wrote costs a memcpy per token; escapes are decoded only where they appear.

use super::decode_json_string;
use super::grammar::{with_built, Build, ParseError, Scalar};

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

/// Parses `text` (strictly, as `JSON.parse` does) and hands the tree to `work`, wherever the
/// stack fits it (see [`with_built`]).
pub fn with_parsed<R: Send>(
    text: &str,
    work: impl FnOnce(Node<'_>) -> R + Send,
) -> Result<R, ParseError> {
    with_built(text, || TreeBuilder, work)
}

/// Builds the [`Node`] tree.
struct TreeBuilder;

impl<'a> Build<'a> for TreeBuilder {
    type Value = Node<'a>;
    type Object = Vec<(JsonKey<'a>, Node<'a>)>;
    type Array = Vec<Node<'a>>;
    type Output = Node<'a>;

    fn scalar(&mut self, scalar: Scalar<'a>) -> Node<'a> {
        match scalar {
            Scalar::Null => Node::Null,
            Scalar::Bool(b) => Node::Bool(b),
            Scalar::Number(token) => Node::Number(token),
            Scalar::String(s) => Node::String(s),
        }
    }

    fn open_object(&mut self) -> Self::Object {
        Vec::new()
    }

    fn key(&mut self, _: &mut Self::Object, _: JsonKey<'a>) {}

    fn member(&mut self, object: &mut Self::Object, key: JsonKey<'a>, value: Node<'a>) {
        object.push((key, value));
    }

    fn close_object(&mut self, object: Self::Object) -> Node<'a> {
        Node::Object(object)
    }

    fn open_array(&mut self) -> Self::Array {
        Vec::new()
    }

    fn item(&mut self, array: &mut Self::Array, value: Node<'a>) {
        array.push(value);
    }

    fn close_array(&mut self, array: Self::Array) -> Node<'a> {
        Node::Array(array)
    }

    fn finish(self, root: Node<'a>) -> Node<'a> {
        root
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::grammar::{parse_within, MAX_DEPTH};

    fn parse(text: &str) -> Result<Node<'_>, ParseError> {
        parse_within(text, MAX_DEPTH, TreeBuilder)
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

//! `writeIndex` and `canonicalJson` from an object handed over in pieces: each large list's
//! items as the JSON text of arrays of consecutive items, then the other top-level members as
//! one object's text. Each piece is written out when it arrives, so the caller can make the
//! next piece meanwhile; what is left once the rest arrives is to sort the index's lists, put
//! the object together and write it.
//!
//! An item's canonical text does not depend on the items around it, only on its depth, which
//! is the same for every item of a top-level list ([`LISTED_ITEM_LEVEL`]). So the output is the
//! one [`super::write_index`] or [`super::canonical_json`] gives for the whole text.

use super::index::{write_members, SORTED_LISTS};
use super::{canonical_object_text, write_listed_item, Part, SplicedText, LISTED_ITEM_LEVEL};
use super::{IndexWriteError, IndexWriteRequest, IndexWritten};
use crate::json::{
    with_tape, with_tape_within, JsonKey, JsonStr, ParseError, Tape, Token, MAX_DEPTH,
};

/// Lists of a top-level object read in pieces, each item's canonical text written as its
/// piece arrives.
#[derive(Default)]
pub struct ListPieces {
    lists: Vec<ListedItems>,
}

struct ListedItems {
    key: String,
    /// The canonical text of each piece's items, one after another.
    texts: Vec<String>,
    items: Vec<ListedItem>,
}

struct ListedItem {
    /// The item's `id` as UTF-16 code units, when it is a string.
    id: Option<Vec<u16>>,
    /// Which of the list's `texts`, and where in it.
    text: usize,
    start: usize,
    end: usize,
}

impl ListPieces {
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads the next items of the top-level list `key` (a key JSON writes as it is: no `"`,
    /// `\` or control character), `text` being the JSON text of an array of them. An empty
    /// array says the list is there.
    pub fn add_items(&mut self, key: &str, text: &str) -> Result<(), ParseError> {
        if key.chars().any(|c| c == '"' || c == '\\' || c < ' ') {
            return Err(ParseError::Syntax {
                offset: 0,
                expected: "a list key without escapes",
            });
        }
        let at = match self.lists.iter().position(|list| list.key == key) {
            Some(at) => at,
            None => {
                self.lists.push(ListedItems {
                    key: key.to_owned(),
                    texts: Vec::new(),
                    items: Vec::new(),
                });
                self.lists.len() - 1
            }
        };
        let list = &mut self.lists[at];
        // In the whole object, the items sit one level deeper than in the piece.
        with_tape_within(text, MAX_DEPTH - 1, |tape| {
            if !matches!(tape.token(Tape::ROOT), Token::Array { .. }) {
                return Err(ParseError::Syntax {
                    offset: 0,
                    expected: "an array",
                });
            }
            // Indentation roughly doubles compact text, and the items sit deeper than most.
            let mut out = String::with_capacity(text.len() * 2 + text.len() / 4);
            for item in tape.items(Tape::ROOT) {
                let start = out.len();
                write_listed_item(&mut out, &tape, item);
                list.items.push(ListedItem {
                    id: tape.get(item, "id").and_then(|id| tape.string_units(id)),
                    text: list.texts.len(),
                    start,
                    end: out.len(),
                });
            }
            list.texts.push(out);
            Ok(())
        })?
    }

    /// The canonical text (as `canonical_json` writes it) of the object of the members of
    /// `rest`, the JSON text of an object, and the lists, their items in the order given.
    pub fn canonical_text(&self, rest: &str) -> Result<SplicedText<'_>, ParseError> {
        with_tape(rest, |tape| {
            if !matches!(tape.token(Tape::ROOT), Token::Object { .. }) {
                return Err(ParseError::Syntax {
                    offset: 0,
                    expected: "an object",
                });
            }
            let members = self.members(&tape, false);
            Ok(canonical_object_text(
                &tape,
                &members,
                rest.len() * 2 + 16 + self.listed_len(),
            ))
        })?
    }

    /// The members of the object of `rest`'s members and the lists (whose members of the same
    /// name give way); their items sorted by `id` when `sorted`.
    fn members<'k, 's: 'k>(
        &'s self,
        rest: &Tape<'k>,
        sorted: bool,
    ) -> Vec<(JsonKey<'k>, Part<'s>)> {
        let mut members: Vec<_> = rest
            .members(Tape::ROOT)
            .filter(|(key, _)| !self.lists.iter().any(|list| key.is(&list.key)))
            .map(|(key, value)| (key, Part::Value(value)))
            .collect();
        for list in &self.lists {
            let key = JsonStr {
                raw: &list.key,
                escaped: false,
            };
            members.push((key, Part::Rendered(list.in_order(sorted))));
        }
        members
    }

    /// Room for the lists' texts in the object's.
    fn listed_len(&self) -> usize {
        self.lists
            .iter()
            .map(|list| {
                let text: usize = list.texts.iter().map(String::len).sum();
                // Each item's line break and indentation.
                text + list.items.len() * (2 + 2 * LISTED_ITEM_LEVEL)
            })
            .sum()
    }
}

impl ListedItems {
    /// The items' texts in the order given, or sorted by `id` when `sorted`: stably, by UTF-16
    /// code units, and only when every item has a string `id` (as [`super::write_index`]
    /// leaves a list with one that has none).
    fn in_order(&self, sorted: bool) -> Vec<&str> {
        let mut order: Vec<&ListedItem> = self.items.iter().collect();
        if sorted && order.iter().all(|item| item.id.is_some()) {
            order.sort_by(|a, b| a.id.cmp(&b.id));
        }
        order
            .into_iter()
            .map(|item| &self.texts[item.text][item.start..item.end])
            .collect()
    }
}

/// An index read in pieces: [`ListPieces`] of the lists the index keeps sorted.
#[derive(Default)]
pub struct IndexPieces {
    lists: ListPieces,
}

impl IndexPieces {
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads the next items of the top-level list `key`, one of the lists the index keeps
    /// sorted (see [`ListPieces::add_items`]).
    pub fn add_items(&mut self, key: &str, text: &str) -> Result<(), IndexWriteError> {
        if !SORTED_LISTS.contains(&key) {
            return Err(IndexWriteError::NotASortedList(key.to_owned()));
        }
        self.lists
            .add_items(key, text)
            .map_err(IndexWriteError::Parse)
    }

    /// Writes the index: `request.text` is the JSON text of an object of the top-level members
    /// other than the lists given in pieces (a member of the same name there gives way).
    pub fn write(self, request: IndexWriteRequest<'_>) -> Result<IndexWritten, IndexWriteError> {
        let text = request.text;
        let lists = &self.lists;
        with_tape(text, |rest| {
            if !matches!(rest.token(Tape::ROOT), Token::Object { .. }) {
                return Err(IndexWriteError::NotAnObject);
            }
            let members = lists.members(&rest, true);
            // Two-space indentation roughly doubles a compact document.
            let capacity = text.len() * 2 + 16 + lists.listed_len();
            write_members(&rest, members, request, capacity)
        })
        .map_err(IndexWriteError::Parse)?
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canonical::{canonical_json, write_index};
    use std::path::{Path, PathBuf};
    use std::time::{Duration, UNIX_EPOCH};

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "kindgi-native-pieces-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn request<'a>(text: &'a str, path: &'a Path) -> IndexWriteRequest<'a> {
        IndexWriteRequest {
            text,
            output_path: path,
            artifact_version: None,
            published_at: None,
            now: UNIX_EPOCH + Duration::from_millis(1_790_000_000_123),
            pid: 7,
        }
    }

    /// The file `write_index` writes for `whole`, and the one the pieces write.
    fn both(whole: &str, lists: &[(&str, &[&str])], rest: &str, name: &str) -> (String, String) {
        let dir = scratch(name);
        let one = dir.join("whole.json");
        let other = dir.join("pieces.json");
        let a = write_index(request(whole, &one)).unwrap();
        let mut pieces = IndexPieces::new();
        for (key, texts) in lists {
            for text in *texts {
                pieces.add_items(key, text).unwrap();
            }
        }
        let b = pieces.write(request(rest, &other)).unwrap();
        assert_eq!(a, b);
        let texts = (
            std::fs::read_to_string(&one).unwrap(),
            std::fs::read_to_string(&other).unwrap(),
        );
        let _ = std::fs::remove_dir_all(&dir);
        texts
    }

    #[test]
    fn pieces_write_what_the_whole_text_writes() {
        let whole = r#"{"v":1,"tools":[{"id":"c","x":{"b":[1,{}],"a":"\u00e9"}},{"id":"a"},{"id":"b","n":2},{"id":"a","n":1}],"guardrails":[],"env":{"z":[],"y":null},"agents":[{"id":"q"}]}"#;
        let (a, b) = both(
            whole,
            &[
                (
                    "tools",
                    &[
                        r#"[{"id":"c","x":{"b":[1,{}],"a":"\u00e9"}}]"#,
                        "[]",
                        r#"[{"id":"a"},{"id":"b","n":2}]"#,
                        r#"[{"id":"a","n":1}]"#,
                    ],
                ),
                ("guardrails", &["[]"]),
                ("agents", &[r#"[{"id":"q"}]"#]),
            ],
            r#"{"v":1,"env":{"z":[],"y":null}}"#,
            "same",
        );
        assert_eq!(a, b);
        assert!(
            a.contains("\"tools\": [\n    {\n      \"id\": \"a\"\n    },"),
            "{a}"
        );
    }

    #[test]
    fn many_items_in_many_pieces() {
        // More inserts than one `writev` takes.
        let items: Vec<String> = (0..2100)
            .map(|i| format!(r#"{{"id":"t{:04}","n":[{i},"✓"]}}"#, (i * 7919) % 2100))
            .collect();
        let whole = format!(r#"{{"tools":[{}],"v":1}}"#, items.join(","));
        let texts: Vec<String> = items
            .chunks(7)
            .map(|run| format!("[{}]", run.join(",")))
            .collect();
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        let (a, b) = both(&whole, &[("tools", &texts)], r#"{"v":1}"#, "many");
        assert_eq!(a, b);
        assert!(a.find("\"t0000\"") < a.find("\"t2099\""));
    }

    #[test]
    fn canonical_text_of_pieces_is_the_whole_texts() {
        let whole = r#"{"b":[{"id":"z","y":1,"x":[]},3,"s"],"10":[],"a":{"k":[2,1]},"__proto__":[1],"2":[{"id":"a"}]}"#;
        let mut lists = ListPieces::new();
        for (key, text) in [
            ("b", r#"[{"id":"z","y":1,"x":[]}]"#),
            ("10", "[]"),
            ("b", r#"[3,"s"]"#),
            ("__proto__", "[1]"),
            ("2", r#"[{"id":"a"}]"#),
        ] {
            lists.add_items(key, text).unwrap();
        }
        let spliced = lists
            .canonical_text(r#"{"a":{"k":[2,1]},"b":null}"#)
            .unwrap();
        let joined: String = spliced.pieces().concat();
        assert_eq!(joined.len(), spliced.len());
        assert_eq!(joined, canonical_json(whole).unwrap());
    }

    #[test]
    fn a_list_with_an_item_without_an_id_keeps_its_order() {
        let whole = r#"{"tools":[{"id":"b"},7,{"id":"a"}],"flows":[{"id":2},{"id":"1"}]}"#;
        let (a, b) = both(
            whole,
            &[
                ("tools", &[r#"[{"id":"b"},7]"#, r#"[{"id":"a"}]"#]),
                ("flows", &[r#"[{"id":2},{"id":"1"}]"#]),
            ],
            "{}",
            "unsorted",
        );
        assert_eq!(a, b);
        assert!(a.find("\"b\"") < a.find("\"a\""), "{a}");
    }

    #[test]
    fn a_rest_member_named_as_a_list_gives_way() {
        let (a, b) = both(
            r#"{"tools":[{"id":"x"}]}"#,
            &[("tools", &[r#"[{"id":"x"}]"#])],
            r#"{"tools":"no"}"#,
            "shadow",
        );
        assert_eq!(a, b);
    }

    #[test]
    fn refuses_what_is_not_a_sorted_list_or_an_array() {
        let mut pieces = IndexPieces::new();
        assert!(matches!(
            pieces.add_items("env", "[]"),
            Err(IndexWriteError::NotASortedList(key)) if key == "env"
        ));
        assert!(matches!(
            pieces.add_items("tools", "{}"),
            Err(IndexWriteError::Parse(ParseError::Syntax { .. }))
        ));
        let mut lists = ListPieces::new();
        for key in ["a\"b", "a\\b", "a\nb"] {
            assert!(lists.add_items(key, "[]").is_err(), "{key:?}");
        }
        assert!(lists.canonical_text("[]").is_err());
        let dir = scratch("not-object");
        let path = dir.join("index.json");
        assert!(matches!(
            IndexPieces::new().write(request("[]", &path)),
            Err(IndexWriteError::NotAnObject)
        ));
    }

    #[test]
    fn items_count_the_levels_above_them() {
        // An item nested to the limit of the whole index, and one level past it.
        let item = |depth: usize| format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
        let fits = format!("[{}]", item(MAX_DEPTH - 2));
        assert!(IndexPieces::new().add_items("tools", &fits).is_ok());
        let whole = format!("{{\"tools\":[{}]}}", item(MAX_DEPTH - 2));
        let dir = scratch("deep");
        assert!(write_index(request(&whole, &dir.join("index.json"))).is_ok());
        let past = format!("[{}]", item(MAX_DEPTH - 1));
        assert!(matches!(
            IndexPieces::new().add_items("tools", &past),
            Err(IndexWriteError::Parse(ParseError::TooDeep))
        ));
        let whole = format!("{{\"tools\":[{}]}}", item(MAX_DEPTH - 1));
        assert!(matches!(
            write_index(request(&whole, &dir.join("index.json"))),
            Err(IndexWriteError::Parse(ParseError::TooDeep))
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }
}

//! Records that come from JavaScript as JSON text holding lone surrogates (a string cut
//! mid-pair), which Rust strings cannot hold: parsed with stand-ins (see
//! `json::parse_with_lone_surrogates`), and their lines written back as `JSON.stringify`
//! writes them (`\ud800`).

use crate::json::{parse_with_lone_surrogates, restore_lone_surrogates};
use crate::log::{LaterLine, LineSink, Logger, Sink};
use serde_json::{Map, Value};
use std::sync::Arc;

/// An object's members from JSON text (none for anything else), and whether the text held
/// lone surrogates (stand-ins in the members).
pub fn members_of_json(json: &str) -> (Map<String, Value>, bool) {
    match parse_with_lone_surrogates(json) {
        (Ok(Value::Object(map)), lone) => (map, lone),
        _ => (Map::new(), false),
    }
}

/// A sink that writes lone surrogates back as `JSON.stringify` writes them.
struct RestoringSink(Sink);

impl LineSink for RestoringSink {
    fn write(&self, line: &str) {
        self.0.write(&restore_lone_surrogates(line));
    }

    fn write_kept(&self, line: &str) {
        self.0.write_kept(&restore_lone_surrogates(line));
    }

    fn write_later(&self, line: LaterLine) {
        self.0.write_later(Box::new(move || {
            restore_lone_surrogates(&line()).into_owned()
        }));
    }

    fn flush(&self) {
        self.0.flush();
    }
}

/// `logger`, writing lone surrogates back when its record's text held some (`lone`).
pub fn restoring(logger: Logger, lone: bool) -> Logger {
    if lone {
        logger.with_sink(|sink| Arc::new(RestoringSink(sink)))
    } else {
        logger
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// A sink that keeps what it is given.
    #[derive(Default)]
    struct Kept(Mutex<Vec<String>>);

    impl LineSink for Kept {
        fn write(&self, line: &str) {
            if let Ok(mut lines) = self.0.lock() {
                lines.push(line.to_owned());
            }
        }
    }

    impl Kept {
        fn lines(&self) -> Vec<String> {
            self.0.lock().map(|l| l.clone()).unwrap_or_default()
        }
    }

    #[test]
    fn members_come_from_an_object_only() {
        let (members, lone) = members_of_json(r#"{"a":1}"#);
        assert_eq!(members.get("a"), Some(&Value::from(1)));
        assert!(!lone);
        assert!(!members_of_json(r#""\ud800""#).1, "not an object");
        assert!(members_of_json("[1]").0.is_empty());
        assert!(members_of_json("{").0.is_empty());
        let (members, lone) = members_of_json(r#"{"cut":"a\ud800"}"#);
        assert!(lone);
        assert_eq!(members.len(), 1);
    }

    #[test]
    fn a_lone_surrogate_is_written_back_as_json_stringify_writes_it() {
        let (members, lone) = members_of_json(r#"{"cut":"a\ud800"}"#);
        let kept = Arc::new(Kept::default());
        let restoring = RestoringSink(Arc::clone(&kept) as Sink);
        let line = serde_json::to_string(&Value::Object(members)).unwrap_or_default();
        assert_ne!(line, r#"{"cut":"a\ud800"}"#, "a stand-in before");
        restoring.write(&line);
        restoring.write_kept(&line);
        assert!(lone);
        assert_eq!(kept.lines(), [r#"{"cut":"a\ud800"}"#; 2]);
    }
}

//! A logger in `@kindgi/log`'s model: bindings that every record carries, a subsystem that
//! picks the level, and one sink shared by a logger and all its children.

use crate::log::levels::Level;
use crate::log::record::{assemble, format_json, format_pretty, json_line, Entries, RecordParts};
use crate::log::settings::{LogFormat, LogSettings};
use crate::log::sink::Sink;
use serde_json::{Map, Value};
use std::sync::Arc;
use std::time::SystemTime;

struct Shared {
    settings: LogSettings,
    sink: Sink,
}

#[derive(Clone)]
pub struct Logger {
    shared: Arc<Shared>,
    bindings: Arc<Entries>,
    /// Shared: a record made later carries its logger along.
    subsystem: Arc<str>,
    threshold: Level,
}

impl std::fmt::Debug for Logger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Logger")
            .field("subsystem", &self.subsystem)
            .field("threshold", &self.threshold)
            .finish_non_exhaustive()
    }
}

impl Logger {
    /// The root logger (subsystem `root`, no bindings).
    pub fn new(settings: LogSettings, sink: Sink) -> Logger {
        let shared = Arc::new(Shared { settings, sink });
        Logger::build(shared, Entries::default())
    }

    fn build(shared: Arc<Shared>, bindings: Entries) -> Logger {
        let subsystem: Arc<str> = match bindings.get("subsystem") {
            Some(Value::String(name)) if !name.is_empty() => name.as_str().into(),
            _ => "root".into(),
        };
        let threshold = shared
            .settings
            .levels
            .level_for(&subsystem, shared.settings.level);
        Logger {
            shared,
            bindings: Arc::new(bindings),
            subsystem,
            threshold,
        }
    }

    /// A logger whose records also carry `more` (a name in `more` replaces the same binding).
    pub fn child(&self, more: Map<String, Value>) -> Logger {
        let mut bindings = (*self.bindings).clone();
        bindings.extend(more);
        Logger::build(Arc::clone(&self.shared), bindings)
    }

    /// The level a child with `more` would write from, without making the child.
    pub fn child_threshold(&self, more: &Map<String, Value>) -> Level {
        match more.get("subsystem") {
            Some(Value::String(name)) if !name.is_empty() => self
                .shared
                .settings
                .levels
                .level_for(name, self.shared.settings.level),
            _ => self.threshold,
        }
    }

    /// This logger with every level enabled (lifecycle records, written whatever the levels).
    pub fn unfiltered(&self) -> Logger {
        Logger {
            threshold: Level::Trace,
            ..self.clone()
        }
    }

    /// Writes a lifecycle record whatever the levels: `event` and `kind` name it, after
    /// `fields`. A supervisor reads these (`supervisor::lines`).
    pub fn lifecycle(&self, kind: &str, message: &str, mut fields: Map<String, Value>) {
        fields.insert("event".into(), kind.into());
        fields.insert("kind".into(), kind.into());
        self.unfiltered()
            .log_kept(Level::of_lifecycle_event(kind), message, fields, &[]);
    }

    /// This logger (same settings and bindings) writing its lines through `wrap(sink)`.
    pub fn with_sink(&self, wrap: impl FnOnce(Sink) -> Sink) -> Logger {
        let shared = Arc::new(Shared {
            settings: self.shared.settings.clone(),
            sink: wrap(Arc::clone(&self.shared.sink)),
        });
        Logger {
            shared,
            ..self.clone()
        }
    }

    /// Writes out every line queued so far (before a process exits, or to keep the order of
    /// lines written from another thread).
    pub fn flush(&self) {
        self.shared.sink.flush();
    }

    pub fn threshold(&self) -> Level {
        self.threshold
    }

    pub fn enabled(&self, level: Level) -> bool {
        level >= self.threshold
    }

    /// Writes a record at `level` when the level is enabled; `in_message` names the fields the
    /// message states.
    pub fn log(
        &self,
        level: Level,
        message: &str,
        fields: Map<String, Value>,
        in_message: &[String],
    ) {
        self.log_to(level, message, fields, in_message, false);
    }

    /// [`Logger::log`] for a line from the JS thread: never dropped (Node queues a write to a
    /// full pipe in memory), and never waiting for the pipe either.
    pub fn log_kept(
        &self,
        level: Level,
        message: &str,
        fields: Map<String, Value>,
        in_message: &[String],
    ) {
        self.log_to(level, message, fields, in_message, true);
    }

    fn log_to(
        &self,
        level: Level,
        message: &str,
        fields: Map<String, Value>,
        in_message: &[String],
        kept: bool,
    ) {
        if !self.enabled(level) {
            return;
        }
        let fields: Vec<(&str, &Value)> = fields.iter().map(|(k, v)| (k.as_str(), v)).collect();
        let in_message: Vec<&str> = in_message.iter().map(String::as_str).collect();
        let line = self.line(
            SystemTime::now(),
            level,
            &self.subsystem,
            message,
            None,
            &fields,
            &in_message,
        );
        if kept {
            self.shared.sink.write_kept(&line);
        } else {
            self.shared.sink.write(&line);
        }
    }

    /// [`Logger::log`] as `self.child(more).log(…)` would write it, without making the child;
    /// the fields given as borrowed members (a record per call builds no map for them).
    pub fn log_as_child(
        &self,
        more: &Map<String, Value>,
        level: Level,
        message: &str,
        fields: &[(&str, &Value)],
        in_message: &[&str],
    ) {
        if level < self.child_threshold(more) {
            return;
        }
        let line = self.child_line(SystemTime::now(), more, level, message, fields, in_message);
        self.shared.sink.write(&line);
    }

    /// [`Logger::log_as_child`] with the line made later, on the sink's writer thread where
    /// it has one: `make` gives [`LaterRecord::line`] the message and fields there. The level
    /// is checked, and the record's time taken, now.
    pub fn log_as_child_later(
        &self,
        more: Arc<Map<String, Value>>,
        level: Level,
        make: impl FnOnce(&LaterRecord) -> String + Send + 'static,
    ) {
        if level < self.child_threshold(&more) {
            return;
        }
        let record = LaterRecord {
            logger: self.clone(),
            more,
            level,
            time: SystemTime::now(),
        };
        self.shared
            .sink
            .write_later(Box::new(move || make(&record)));
    }

    /// The line of a record of the child with `more`.
    fn child_line(
        &self,
        time: SystemTime,
        more: &Map<String, Value>,
        level: Level,
        message: &str,
        fields: &[(&str, &Value)],
        in_message: &[&str],
    ) -> String {
        let subsystem = match more.get("subsystem") {
            Some(Value::String(name)) if !name.is_empty() => name.as_str(),
            _ => &self.subsystem,
        };
        self.line(
            time,
            level,
            subsystem,
            message,
            Some(more),
            fields,
            in_message,
        )
    }

    /// The record's line in the logger's format.
    #[allow(clippy::too_many_arguments)]
    fn line(
        &self,
        time: SystemTime,
        level: Level,
        subsystem: &str,
        message: &str,
        more: Option<&Map<String, Value>>,
        fields: &[(&str, &Value)],
        in_message: &[&str],
    ) -> String {
        if self.shared.settings.format == LogFormat::Json {
            // The bindings, then `more`, then the fields: a later name takes an earlier one's
            // place, as object spread does.
            let mut merged: Vec<(&str, &Value)> = Vec::with_capacity(24);
            let layers = self
                .bindings
                .iter()
                .chain(more.into_iter().flatten().map(|(k, v)| (k.as_str(), v)))
                .chain(fields.iter().copied());
            for (key, value) in layers {
                match merged.iter_mut().find(|(k, _)| *k == key) {
                    Some(slot) => slot.1 = value,
                    None => merged.push((key, value)),
                }
            }
            if let Some(line) = json_line(time, level, subsystem, message, &merged, in_message) {
                return line;
            }
        }
        let mut merged = (*self.bindings).clone();
        if let Some(more) = more {
            merged.extend(more.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        merged.extend(fields.iter().map(|(k, v)| ((*k).to_owned(), (*v).clone())));
        let record = assemble(RecordParts {
            time,
            level,
            subsystem,
            message,
            merged,
            in_message,
        });
        match self.shared.settings.format {
            LogFormat::Json => format_json(&record),
            LogFormat::Pretty { colour } => format_pretty(&record, level, colour),
        }
    }
}

/// A record of a logger's child, level and time set, waiting for its message and fields
/// ([`Logger::log_as_child_later`]).
pub struct LaterRecord {
    logger: Logger,
    more: Arc<Map<String, Value>>,
    level: Level,
    time: SystemTime,
}

impl LaterRecord {
    /// The record's line, as [`Logger::log_as_child`] would have written it when it was made.
    pub fn line(&self, message: &str, fields: &[(&str, &Value)], in_message: &[&str]) -> String {
        self.logger.child_line(
            self.time, &self.more, self.level, message, fields, in_message,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::levels::SubsystemLevels;
    use serde_json::json;
    use std::sync::Mutex;

    fn capture(settings: LogSettings) -> (Logger, Arc<Mutex<Vec<String>>>) {
        let lines = Arc::new(Mutex::new(Vec::new()));
        let into = Arc::clone(&lines);
        let sink: Sink = Arc::new(move |line: &str| into.lock().unwrap().push(line.to_owned()));
        (Logger::new(settings, sink), lines)
    }

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    #[test]
    fn a_record_made_later_is_the_record_written_now() {
        let (root, lines) = capture(LogSettings {
            level: Level::Info,
            levels: SubsystemLevels::parse("pack.quiet=warn").unwrap(),
            format: LogFormat::Json,
        });
        let pack = root.child(object(json!({"subsystem": "pack", "packId": "p"})));
        let more = object(json!({"subsystem": "pack.tool", "runId": "r", "packId": "q"}));
        let n = Value::from(7);
        pack.log_as_child(&more, Level::Info, "seven", &[("n", &n)], &["n"]);
        pack.log_as_child_later(Arc::new(more), Level::Info, |record| {
            record.line("seven", &[("n", &Value::from(7))], &["n"])
        });
        // Below the child's level: dropped without being made.
        let quiet = Arc::new(object(json!({"subsystem": "pack.quiet"})));
        pack.log_as_child_later(quiet, Level::Info, |_| panic!("made"));
        let lines = lines.lock().unwrap();
        assert_eq!(lines.len(), 2);
        let [now, later] = [&lines[0], &lines[1]].map(|line| {
            let mut record: Value = serde_json::from_str(line).unwrap();
            record.as_object_mut().unwrap().remove("time");
            record
        });
        assert_eq!(now, later);
        assert_eq!(
            (&later["subsystem"], &later["packId"]),
            (&json!("pack.tool"), &json!("q"))
        );
    }

    #[test]
    fn levels_follow_the_subsystem_and_its_parents() {
        let (root, lines) = capture(LogSettings {
            level: Level::Info,
            levels: SubsystemLevels::parse("pack=warn").unwrap(),
            format: LogFormat::Json,
        });
        let pack = root.child(object(json!({"subsystem": "pack", "packId": "p"})));
        let tool = pack.child(object(json!({"subsystem": "pack.tool"})));
        pack.log(Level::Info, "dropped", Map::new(), &[]);
        tool.log(Level::Info, "dropped too", Map::new(), &[]);
        tool.log(
            Level::Warn,
            "kept",
            object(json!({"packId": "q", "n": 1})),
            &[],
        );
        pack.unfiltered()
            .log(Level::Trace, "lifecycle", Map::new(), &[]);
        let lines = lines.lock().unwrap();
        assert_eq!(lines.len(), 2);
        let kept: Value = serde_json::from_str(&lines[0]).unwrap();
        assert_eq!(kept["subsystem"], "pack.tool");
        assert_eq!(kept["packId"], "q");
        assert_eq!(kept["n"], 1);
        assert!(lines[1].contains(r#""message":"lifecycle""#));
    }
}

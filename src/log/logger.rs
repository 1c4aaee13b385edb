//! A logger in `@kindgi/log`'s model: bindings that every record carries, a subsystem that
//! picks the level, and one sink shared by a logger and all its children.

use crate::log::levels::Level;
use crate::log::record::{assemble, format_json, format_pretty, RecordParts};
use crate::log::settings::{LogFormat, LogSettings};
use serde_json::{Map, Value};
use std::io::Write;
use std::sync::Arc;
use std::time::SystemTime;

/// Where finished lines go: one complete line, without its newline.
pub type Sink = Arc<dyn Fn(&str) + Send + Sync>;

/// The process's stderr, one write per line so that lines from several threads never mix.
pub fn stderr_sink() -> Sink {
    Arc::new(|line: &str| {
        let mut framed = String::with_capacity(line.len() + 1);
        framed.push_str(line);
        framed.push('\n');
        // A sink that fails must never fail the code that logged.
        let _ = std::io::stderr().lock().write_all(framed.as_bytes());
    })
}

struct Shared {
    settings: LogSettings,
    sink: Sink,
}

#[derive(Clone)]
pub struct Logger {
    shared: Arc<Shared>,
    bindings: Arc<Map<String, Value>>,
    subsystem: String,
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
        Logger::build(shared, Map::new())
    }

    fn build(shared: Arc<Shared>, bindings: Map<String, Value>) -> Logger {
        let subsystem = match bindings.get("subsystem") {
            Some(Value::String(name)) if !name.is_empty() => name.clone(),
            _ => "root".to_owned(),
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

    /// This logger with every level enabled (lifecycle records, written whatever the levels).
    pub fn unfiltered(&self) -> Logger {
        Logger {
            threshold: Level::Trace,
            ..self.clone()
        }
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
        if !self.enabled(level) {
            return;
        }
        let mut merged = (*self.bindings).clone();
        merged.extend(fields);
        let record = assemble(&RecordParts {
            time: SystemTime::now(),
            level,
            subsystem: &self.subsystem,
            message,
            merged: &merged,
            in_message,
        });
        let line = match self.shared.settings.format {
            LogFormat::Json => format_json(&record),
            LogFormat::Pretty { colour } => format_pretty(&record, level, colour),
        };
        (self.shared.sink)(&line);
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

//! The pack service's logs for JavaScript: `@kindgi/log` records formatted and written in
//! Rust. The JS logger facade (`lib/log-records.js`) hands each record over as JSON text; the service
//! writes its call records here directly, costing the JS thread nothing.

use crate::binding::errors::{JsError, NativeError, NativeErrorCode};
use crate::json::{parse_with_lone_surrogates, restore_lone_surrogates};
use crate::log::{stderr_sink, LaterLine, Level, LineSink, LogEnv, LogSettings, Logger, Sink};
use napi::threadsafe_function::{
    ThreadsafeFunction, ThreadsafeFunctionCallMode, UnknownReturnValue,
};
use napi::Status;
use napi_derive::napi;
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::sync::Arc;

/// A JS line sink that does not keep the process alive.
type WriteFn = ThreadsafeFunction<String, UnknownReturnValue, String, Status, false, true>;

thread_local! {
    /// Lines written while the JS thread is inside `write` or `event`: handed back to JS, which
    /// gives them to its `write` before that call returns.
    static FROM_JS: RefCell<Option<Vec<String>>> = const { RefCell::new(None) };
}

/// A JS `write` function as a sink. `@kindgi/log` writes synchronously, and callers read what a
/// `log.info()` or `event()` wrote right after it: those lines (JS thread) are collected and
/// returned to JS; lines from Rust's threads (call records) go through the threadsafe function.
struct JsWriteSink {
    write: WriteFn,
}

impl LineSink for JsWriteSink {
    fn write(&self, line: &str) {
        let queued = FROM_JS.with(|from_js| match from_js.borrow_mut().as_mut() {
            Some(lines) => {
                lines.push(line.to_owned());
                false
            }
            None => true,
        });
        if queued {
            self.write
                .call(line.to_owned(), ThreadsafeFunctionCallMode::NonBlocking);
        }
    }
}

/// Runs `log` (on the JS thread) and returns the lines it wrote to a JS `write` sink, if any.
fn lines_from_js(log: impl FnOnce()) -> Option<Vec<String>> {
    FROM_JS.with(|from_js| *from_js.borrow_mut() = Some(Vec::new()));
    log();
    FROM_JS
        .with(|from_js| from_js.borrow_mut().take())
        .filter(|lines| !lines.is_empty())
}

/// The `KINDGI_LOG_*` variables (and `NO_COLOR`) as the process has them.
#[napi(object)]
pub struct LogEnvJs {
    pub level: Option<String>,
    pub levels: Option<String>,
    pub format: Option<String>,
    pub no_color: Option<String>,
}

#[napi]
pub struct NativeLogs {
    root: Logger,
}

impl NativeLogs {
    /// The logger with `bindings` (JSON text of an object; anything else binds nothing).
    pub fn logger(&self, bindings: &str) -> Logger {
        self.root.child(object(bindings).0)
    }
}

/// An object's members from JSON text (none for anything else), and whether the text held
/// lone surrogates (stand-ins in the members, see `json::parse_with_lone_surrogates`).
fn object(json: &str) -> (Map<String, Value>, bool) {
    match parse_with_lone_surrogates(json) {
        (Ok(Value::Object(map)), lone) => (map, lone),
        _ => (Map::new(), false),
    }
}

/// A sink that writes lone surrogates back as `JSON.stringify` writes them (`\ud800`).
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

/// `logger`, writing lone surrogates back when its record's text held some.
fn restoring(logger: Logger, lone: bool) -> Logger {
    if lone {
        logger.with_sink(|sink| Arc::new(RestoringSink(sink)))
    } else {
        logger
    }
}

/// A level's name and its rank, for `lib/log-records.js`'s `RANK`.
#[napi(object)]
pub struct LevelRankJs {
    pub name: String,
    pub rank: u32,
}

/// Every level and its rank, least severe first.
#[napi(js_name = "logLevelRanks")]
pub fn log_level_ranks() -> Vec<LevelRankJs> {
    Level::ALL
        .iter()
        .map(|level| LevelRankJs {
            name: level.name().into(),
            rank: level.rank(),
        })
        .collect()
}

/// How deep a record's values are copied before `[too deep]` (`lib/log-records.js`'s `MAX_DEPTH`).
#[napi(js_name = "maxRedactDepth")]
pub fn max_redact_depth() -> u32 {
    crate::log::redact::MAX_REDACT_DEPTH as u32
}

#[napi(
    js_name = "createNativeLogs",
    ts_args_type = "env: LogEnvJs, isTty: boolean, write?: (line: string) => void"
)]
pub fn create_native_logs(
    env: LogEnvJs,
    is_tty: bool,
    write: Option<WriteFn>,
) -> Result<NativeLogs, JsError> {
    let settings = LogSettings::from_env(
        &LogEnv {
            level: env.level,
            levels: env.levels,
            format: env.format,
            no_color: env.no_color,
        },
        is_tty,
    )
    .map_err(|message| NativeError::new(NativeErrorCode::InvalidArgument, message))?;
    let sink: Sink = match write {
        None => stderr_sink(settings.format),
        Some(write) => Arc::new(JsWriteSink { write }),
    };
    Ok(NativeLogs {
        root: Logger::new(settings, sink),
    })
}

#[napi]
impl NativeLogs {
    /// The rank of the lowest level written under `subsystem` (trace 10 … error 50).
    #[napi]
    pub fn threshold(&self, subsystem: String) -> u32 {
        let mut bindings = Map::new();
        bindings.insert("subsystem".into(), subsystem.into());
        self.root.child(bindings).threshold().rank()
    }

    /// Writes one record: the logger's bindings and the record's fields as JSON text, and the
    /// names its message states. A message with lone surrogates, which a napi string cannot
    /// carry, comes as JSON text (`message_is_json`). Returns the line for a JS `write` sink,
    /// which JS writes.
    #[napi]
    pub fn write(
        &self,
        bindings: String,
        level: String,
        message: String,
        fields: Option<String>,
        in_message: Option<Vec<String>>,
        message_is_json: Option<bool>,
    ) -> Option<Vec<String>> {
        let level = Level::parse(&level)?;
        let (message, lone_in_message) = match message_is_json {
            Some(true) => match parse_with_lone_surrogates(&message) {
                (Ok(Value::String(text)), lone) => (text, lone),
                _ => (message, false),
            },
            _ => (message, false),
        };
        let (fields, lone_in_fields) = fields.as_deref().map(object).unwrap_or_default();
        let (bound, lone_in_bindings) = object(&bindings);
        let lone = lone_in_message || lone_in_fields || lone_in_bindings;
        let logger = restoring(self.root.child(bound), lone);
        lines_from_js(|| logger.log_kept(level, &message, fields, &in_message.unwrap_or_default()))
    }

    /// Writes a lifecycle record (subsystem `pack`), whatever the levels: `event` and `kind`
    /// name it, after the given fields. Returns the line for a JS `write` sink, which JS writes.
    #[napi]
    pub fn event(
        &self,
        kind: String,
        message: String,
        fields: Option<String>,
    ) -> Option<Vec<String>> {
        let level = match kind.as_str() {
            "boot-failed" | "config-invalid" => Level::Error,
            _ => Level::Info,
        };
        let (mut fields, lone) = fields.as_deref().map(object).unwrap_or_default();
        fields.insert("event".into(), kind.clone().into());
        fields.insert("kind".into(), kind.into());
        let logger = restoring(self.logger(r#"{"subsystem":"pack"}"#).unfiltered(), lone);
        lines_from_js(|| {
            logger.log_kept(level, &message, fields, &[]);
            // The process may go on to exit: the line is out first, unless stderr's reader
            // is too far behind (`FLUSH_WAIT`).
            logger.flush();
        })
    }
}

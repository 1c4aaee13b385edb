//! The pack service's logs for JavaScript: `@kindgi/log` records formatted and written in
//! Rust. The JS logger facade (`lib/log-records.js`) hands each record over as JSON text; the service
//! writes its call records here directly, costing the JS thread nothing.

use crate::binding::callback::JsCallback;
use crate::binding::errors::{JsError, NativeError, NativeErrorCode};
use crate::json::parse_with_lone_surrogates;
use crate::log::captured::{capture, keep_if_capturing};
use crate::log::lone_surrogates::{members_of_json, restoring};
use crate::log::{stderr_sink, Level, LineSink, LogEnv, LogSettings, Logger, Sink};
use napi::threadsafe_function::ThreadsafeFunctionCallMode;
use napi_derive::napi;
use serde_json::{Map, Value};
use std::sync::Arc;

/// A JS `write` function as a sink: lines written on the JS thread inside `write` or `event`
/// go back to JS with that call (see `log::captured`); lines from Rust's threads (call
/// records) go through the threadsafe function.
struct JsWriteSink {
    write: JsCallback<String>,
}

impl LineSink for JsWriteSink {
    fn write(&self, line: &str) {
        if !keep_if_capturing(line) {
            self.write
                .call(line.to_owned(), ThreadsafeFunctionCallMode::NonBlocking);
        }
    }
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
    /// Whether lines written on this thread inside `write` or `event` come back to JS to be
    /// written (see `log::captured`). A worker thread's logs do not: its lines go to the sink
    /// the service's logs were made with, a JS `write` on the main thread included.
    captures: bool,
}

impl NativeLogs {
    /// The logs a worker thread writes through: `root`'s, its lines never captured.
    pub fn on_worker_thread(root: Logger) -> NativeLogs {
        NativeLogs {
            root,
            captures: false,
        }
    }

    pub fn root(&self) -> Logger {
        self.root.clone()
    }

    /// Runs `log`, capturing its lines where this thread writes them itself.
    fn written(&self, log: impl FnOnce()) -> Option<Vec<String>> {
        if self.captures {
            return capture(log);
        }
        log();
        None
    }

    /// The logger with `bindings` (JSON text of an object; anything else binds nothing).
    pub fn logger(&self, bindings: &str) -> Logger {
        self.root.child(members_of_json(bindings).0)
    }

    /// Where lifecycle records go: subsystem `pack`, no other bindings.
    pub fn lifecycle_logger(&self) -> Logger {
        self.logger(r#"{"subsystem":"pack"}"#)
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
    Level::rank_table()
        .map(|(name, rank)| LevelRankJs {
            name: name.into(),
            rank,
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
    write: Option<JsCallback<String>>,
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
        captures: true,
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
        let (fields, lone_in_fields) = fields.as_deref().map(members_of_json).unwrap_or_default();
        let (bound, lone_in_bindings) = members_of_json(&bindings);
        let lone = lone_in_message || lone_in_fields || lone_in_bindings;
        let logger = restoring(self.root.child(bound), lone);
        self.written(|| logger.log_kept(level, &message, fields, &in_message.unwrap_or_default()))
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
        let (fields, lone) = fields.as_deref().map(members_of_json).unwrap_or_default();
        let logger = restoring(self.lifecycle_logger(), lone);
        self.written(|| {
            logger.lifecycle(&kind, &message, fields);
            // The process may go on to exit: the line is out first, unless stderr's reader
            // is too far behind (`FLUSH_WAIT`).
            logger.flush();
        })
    }
}

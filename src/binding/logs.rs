//! The pack service's logs for JavaScript: `@kindgi/log` records formatted and written in
//! Rust. The JS logger facade (`lib/logs.js`) hands each record over as JSON text; the service
//! writes its call records here directly, costing the JS thread nothing.

use crate::binding::errors::{JsError, NativeError, NativeErrorCode};
use crate::log::{stderr_sink, Level, LogEnv, LogSettings, Logger, Sink};
use napi::threadsafe_function::{
    ThreadsafeFunction, ThreadsafeFunctionCallMode, UnknownReturnValue,
};
use napi::Status;
use napi_derive::napi;
use serde_json::{Map, Value};
use std::sync::Arc;

/// A JS line sink that does not keep the process alive.
type WriteFn = ThreadsafeFunction<String, UnknownReturnValue, String, Status, false, true>;

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
        self.root.child(object(bindings))
    }
}

fn object(json: &str) -> Map<String, Value> {
    match serde_json::from_str(json) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

/// Levels by rank, as `@kindgi/log` numbers them (trace 10 … error 50).
fn rank(level: Level) -> u32 {
    match level {
        Level::Trace => 10,
        Level::Debug => 20,
        Level::Info => 30,
        Level::Warn => 40,
        Level::Error => 50,
    }
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
        None => stderr_sink(),
        Some(write) => Arc::new(move |line: &str| {
            write.call(line.to_owned(), ThreadsafeFunctionCallMode::NonBlocking);
        }),
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
        rank(self.root.child(bindings).threshold())
    }

    /// Writes one record: the logger's bindings and the record's fields as JSON text, and the
    /// names its message states.
    #[napi]
    pub fn write(
        &self,
        bindings: String,
        level: String,
        message: String,
        fields: Option<String>,
        in_message: Option<Vec<String>>,
    ) {
        let Some(level) = Level::parse(&level) else {
            return;
        };
        let fields = fields.as_deref().map(object).unwrap_or_default();
        let logger = self.logger(&bindings);
        logger.log(level, &message, fields, &in_message.unwrap_or_default());
        // Written from the JS thread: out now, after what Rust queued before it.
        logger.flush();
    }

    /// Writes a lifecycle record (subsystem `pack`), whatever the levels: `event` and `kind`
    /// name it, after the given fields.
    #[napi]
    pub fn event(&self, kind: String, message: String, fields: Option<String>) {
        let level = match kind.as_str() {
            "boot-failed" | "config-invalid" => Level::Error,
            _ => Level::Info,
        };
        let mut fields = fields.as_deref().map(object).unwrap_or_default();
        fields.insert("event".into(), kind.clone().into());
        fields.insert("kind".into(), kind.into());
        let logger = self.logger(r#"{"subsystem":"pack"}"#).unfiltered();
        logger.log(level, &message, fields, &[]);
        logger.flush();
    }
}

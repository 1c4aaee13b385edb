//! `@kindgi/log` records written from Rust: the pack service's call records, `ctx.log`'s
//! records and its lifecycle lines, in the same shape, order and redaction as the TypeScript
//! logger, so a reader of either sees the same lines.

pub mod captured;
pub mod levels;
pub mod logger;
pub mod lone_surrogates;
pub mod record;
pub mod redact;
pub mod settings;
pub mod sink;

pub use levels::Level;
pub use logger::Logger;
pub use settings::{LogEnv, LogFormat, LogSettings};
pub use sink::{stderr_sink, LaterLine, LineSink, Sink};

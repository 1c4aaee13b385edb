//! The pack service supervisor (the engine behind `kindgi dev`) without napi: its child
//! process (spawn, boot, lines, signals, retire), how it reads the child's output, the
//! lifecycle that decides which child serves (restarts and spares included), the relay that
//! forwards calls to it, the front that takes them, and the texts its events cross to
//! JavaScript as. `binding::supervisor` is the JavaScript API over it.

pub mod backlog;
pub mod calls;
pub mod child;
pub mod event_text;
pub mod front;
pub mod lifecycle;
pub mod line_splitter;
pub mod lines;
pub mod relay;
pub mod signals;
pub mod spawner;
pub mod wire;

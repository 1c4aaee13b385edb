//! The pack service supervisor (the engine behind `kindgi dev`) without napi: its child
//! process (spawn, boot, lines, retire), how it reads the child's stderr, the lifecycle that
//! decides which child serves, the relay that forwards calls to it and the front that takes
//! them. The JavaScript API over it comes next.

pub mod backlog;
pub mod calls;
pub mod child;
pub mod front;
pub mod lifecycle;
pub mod line_splitter;
pub mod lines;
pub mod relay;
pub mod signal_names;
pub mod signals;
pub mod spawn_failure;
pub mod spawner;
pub mod wire;

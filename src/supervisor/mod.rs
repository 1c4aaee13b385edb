//! The pack service supervisor (the engine behind `kindgi dev`): so far, its child process
//! (spawn, boot, lines, retire), how it reads the lines the child writes on stderr, and the
//! relay that forwards calls to it.

pub mod child;
pub mod front;
pub mod lines;
pub mod relay;

//! The pack service supervisor (the engine behind `kindgi dev`): so far, its child process
//! (spawn, boot, lines, retire) and how it reads the lines the child writes on stderr.

pub mod child;
pub mod lines;

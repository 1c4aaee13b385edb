//! The pack service supervisor (the engine behind `kindgi dev`): so far, how it reads the
//! lines its child writes on stderr.

pub mod lines;

//! The pack service: its process configuration, what it serves from the index, and the
//! transport-level decisions it makes before any pack code runs.

pub mod admission;
pub mod call;
pub mod call_log;
pub mod catalog;
pub mod config;
pub mod core;
pub mod hangup;
pub mod http;
pub mod large_body;
pub mod listen;
pub mod node_answer;
pub mod node_parser;
pub mod runner_messages;
pub mod self_wake;
pub mod server;
pub mod start_gate;
pub mod timer_floor;
pub mod tool_io;
pub mod trace;

//! The pack service without napi: its process configuration, what it serves from the index,
//! the transport-level decisions it makes before any pack code runs, the call it hands a
//! runner and what is said about each call, and the hyper server. `binding::pack_service`
//! runs its calls in JavaScript.

pub mod admission;
pub mod call;
pub mod call_log;
pub mod catalog;
pub mod config;
pub mod core;
pub mod event_json;
pub mod hangup;
pub mod http;
pub mod js_options;
pub mod js_pulse;
pub mod js_threads;
pub mod large_body;
pub mod listen;
pub mod node_answer;
pub mod node_parser;
pub mod pending_calls;
pub mod read_body;
pub mod runner_messages;
pub mod self_wake;
pub mod server;
pub mod sigterm;
pub mod start_gate;
pub mod termination;
#[cfg(test)]
pub(crate) mod test_service;
pub mod tickets;
pub mod timer_floor;
pub mod tool_io;
pub mod trace;

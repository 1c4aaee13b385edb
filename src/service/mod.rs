//! The pack service. So far: the process configuration (`readPackServiceConfig`).

pub mod config;

//! The `#[napi]` surface: thin conversions between JavaScript values and the core.
//!
//! The JS layer (`lib/*.js`) checks argument types and builds the result objects of the
//! TypeScript API; these functions take typed arguments and return plain data.

mod canonical;
mod env;
mod errors;
mod ids;
mod logs;
mod pack_service;
mod protocol;
mod service;
mod supervisor;
mod validate;

//! The one kind of JavaScript function Rust calls from its own threads: the pack service's
//! dispatcher and event listener, the supervisor's launcher and event listener, and a log's
//! `write`.
//!
//! Each is called with one value `T` (a tuple through `FnArgs` for several arguments) and
//! returns `R`, which is ignored unless a caller waits for it (`Promise<…>` for a launch). JS
//! errors are not passed in as a first argument (`CalleeHandled = false`): JavaScript settles
//! through its own calls instead. And each is weak: it never keeps the process alive by being
//! held. Whatever holds the process is a keep-alive the JS side sets while it needs one (a
//! service listening or warming up, a supervisor's front or child), so a service or supervisor
//! never used, or closed, lets the process exit as the TypeScript one does. Closing releases
//! the functions themselves.

use napi::threadsafe_function::{ThreadsafeFunction, UnknownReturnValue};
use napi::Status;

/// A JS function called from any thread with `T`, returning `R` (see the module header).
pub type JsCallback<T, R = UnknownReturnValue> = ThreadsafeFunction<T, R, T, Status, false, true>;

//! Where walks of data of untrusted depth run. Parsing, validating, writing and dropping a
//! value each recurse once a level or more, and the threads this crate's work runs on (tokio's
//! workers, Node's main thread) have little stack to spare. A value nested up to
//! [`CALLER_DEPTH`] levels is walked where it is; a deeper one is walked again on a thread
//! whose stack fits [`MAX_DEPTH`](super::MAX_DEPTH) levels of every walk.

use super::grammar::MAX_DEPTH;

/// Nesting that every walk takes on the caller's stack (each level of parse, write and drop
/// takes a few hundred bytes; tokio's workers have 2 MiB).
pub const CALLER_DEPTH: usize = 128;

/// A stack that fits a walk of a document [`MAX_DEPTH`] levels deep.
pub const DEEP_STACK_BYTES: usize = 64 << 20;

/// The stack a walk runs on, and so how deep it may go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stack {
    /// The caller's own.
    Caller,
    /// A thread's of [`DEEP_STACK_BYTES`] ([`on_deep_stack`]).
    Deep,
}

impl Stack {
    /// The deepest JSON parsed on this stack: past it, the caller's walk moves to
    /// [`Stack::Deep`], where it is [`MAX_DEPTH`].
    pub fn json_depth(self) -> usize {
        match self {
            Stack::Caller => CALLER_DEPTH,
            Stack::Deep => MAX_DEPTH,
        }
    }
}

/// Runs `work` on a new thread with a [`DEEP_STACK_BYTES`] stack and waits for it; `None` when
/// no thread can be started or `work` panicked.
pub fn on_deep_stack<R: Send>(work: impl FnOnce() -> R + Send) -> Option<R> {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("kindgi-deep-json".into())
            .stack_size(DEEP_STACK_BYTES)
            .spawn_scoped(scope, work)
            .ok()?
            .join()
            .ok()
    })
}

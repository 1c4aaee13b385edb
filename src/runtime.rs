//! The tokio runtime every server of this package runs on: the pack service, the supervisor's
//! front, and the bench's bare hyper server, so that they are measured on the same footing.
//!
//! One worker per core but one. The pack service's JavaScript runs on Node's own thread, which
//! is as busy as the workers under load; with a worker on every core it and the workers take
//! turns on the same cores (measured in docs/design.md, *The tokio runtime*).
//! `TOKIO_WORKER_THREADS` still sets the count, as it does for any tokio runtime.

use tokio::runtime::{Builder, Runtime};

/// tokio's own variable for the number of workers, read by [`Builder::new_multi_thread`] when
/// the count is not set in code.
pub const WORKERS_VARIABLE: &str = "TOKIO_WORKER_THREADS";

/// How many workers to ask for on `cores` cores: `None` leaves the count to tokio, which then
/// reads [`WORKERS_VARIABLE`] (set, it wins).
pub fn worker_threads(cores: usize, variable_set: bool) -> Option<usize> {
    if variable_set {
        return None;
    }
    Some(cores.saturating_sub(1).max(1))
}

/// Builds the multi-threaded runtime with [`worker_threads`] for this process's cores.
pub fn build() -> std::io::Result<Runtime> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let variable_set = std::env::var_os(WORKERS_VARIABLE).is_some();
    let mut builder = Builder::new_multi_thread();
    builder.enable_all();
    if let Some(workers) = worker_threads(cores, variable_set) {
        builder.worker_threads(workers);
    }
    builder.build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_core_is_left_to_the_js_thread_and_one_worker_is_the_least() {
        assert_eq!(worker_threads(1, false), Some(1));
        assert_eq!(worker_threads(2, false), Some(1));
        assert_eq!(worker_threads(8, false), Some(7));
        assert_eq!(worker_threads(0, false), Some(1));
    }

    #[test]
    fn the_variable_leaves_the_count_to_tokio() {
        assert_eq!(worker_threads(8, true), None);
    }
}

//! The randomized tests' seeded generator (`src/test_random.rs`, shared with the unit tests)
//! and how many cases they run.

#[path = "../../src/test_random.rs"]
mod rng;
pub use rng::Rng;

/// How many cases a randomized test runs: `default`, or `KINDGI_RANDOM_CASES` for a longer
/// search by hand (CI keeps the default, a few seconds each).
pub fn cases(default: usize) -> usize {
    std::env::var("KINDGI_RANDOM_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

//! A small seeded generator for the randomized tests: the same seed gives the same cases, so a
//! failure names its seed and case number and can be replayed.

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// SplitMix64.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True about one time in `n`.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// How many cases a randomized test runs: `default`, or `KINDGI_RANDOM_CASES` for a longer
/// search by hand (CI keeps the default, a few seconds each).
pub fn cases(default: usize) -> usize {
    std::env::var("KINDGI_RANDOM_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

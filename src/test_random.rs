//! A small seeded generator for the randomized tests: the same seed gives the same cases, so a
//! failure names its case and can be replayed. The unit tests use it as `crate::test_random`,
//! the integration tests through `tests/common/random.rs`.

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

    /// `len` items picked from `items`, as a string.
    pub fn string_of(&mut self, items: &[char], len: usize) -> String {
        (0..len).map(|_| *self.pick(items)).collect()
    }

    /// One random edit of `text`: a piece inserted, a character replaced by a piece, or a
    /// character deleted, at a random place (on character boundaries).
    pub fn edit(&mut self, text: &mut String, pieces: &[&str]) {
        let at = self.below(text.len() + 1);
        let at = (0..=at)
            .rev()
            .find(|i| text.is_char_boundary(*i))
            .unwrap_or(0);
        let end = (at + 1..=text.len())
            .find(|i| text.is_char_boundary(*i))
            .unwrap_or(text.len());
        let piece = *self.pick(pieces);
        match self.below(3) {
            0 => text.insert_str(at, piece),
            1 => text.replace_range(at..end, piece),
            _ => text.replace_range(at..end, ""),
        }
    }
}

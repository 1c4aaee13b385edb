//! Finding the bytes that end plain JSON string content (`"`, `\` and control characters)
//! eight bytes at a time: strings are mostly plain, and a byte-by-byte loop is the parser's and
//! the writer's slowest part on long ones.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `word` (read little-endian) that is below 0x20, `"` or `\`.
/// Bytes above the first such byte may be flagged falsely (a borrow runs upward), so only the
/// lowest flag is exact; "no flag" is always exact.
pub fn stop_flags(word: u64) -> u64 {
    // A byte below `n` (n ≤ 0x80) sets its high bit in `(x - n·ONES) & !x`.
    let below = |x: u64, n: u8| x.wrapping_sub(ONES * u64::from(n)) & !x & HIGHS;
    below(word, 0x20)
        | below(word ^ (ONES * u64::from(b'"')), 1)
        | below(word ^ (ONES * u64::from(b'\\')), 1)
}

fn is_stop(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// How many bytes at the start of `bytes` are plain string content: the index of the first
/// `"`, `\` or control character, or the length when there is none.
pub fn plain_len(bytes: &[u8]) -> usize {
    let mut at = 0;
    while let Some(block) = bytes.get(at..).and_then(|rest| rest.first_chunk::<8>()) {
        let flags = stop_flags(u64::from_le_bytes(*block));
        if flags != 0 {
            return at + (flags.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    at + bytes[at..]
        .iter()
        .position(|&b| is_stop(b))
        .unwrap_or(bytes.len() - at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_random::Rng;

    fn bytewise(bytes: &[u8]) -> usize {
        bytes
            .iter()
            .position(|&b| is_stop(b))
            .unwrap_or(bytes.len())
    }

    #[test]
    fn finds_the_first_stop_at_every_place() {
        for stop in (0u8..0x20).chain([b'"', b'\\']) {
            for len in 0..20 {
                for place in 0..=len {
                    let mut bytes = vec![b'a'; len];
                    if place < len {
                        bytes[place] = stop;
                    }
                    assert_eq!(
                        plain_len(&bytes),
                        bytewise(&bytes),
                        "{stop:#x} {len} {place}"
                    );
                }
            }
        }
    }

    #[test]
    fn agrees_with_the_byte_loop_on_random_bytes() {
        // Bytes around each boundary that matters: below and above 0x20, `"`, `\`, 0x80.
        let alphabet = [
            0x00, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x5b, 0x5c, 0x5d, 0x7f, 0x80, 0xa2, 0xdc, 0xff,
            b'a',
        ];
        let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
        for case in 0..20_000 {
            let bytes: Vec<u8> = (0..case % 37)
                .map(|_| {
                    // Mostly plain, so the stops fall at every place.
                    if rng.one_in(5) {
                        *rng.pick(&alphabet)
                    } else {
                        b'a' + rng.below(26) as u8
                    }
                })
                .collect();
            assert_eq!(plain_len(&bytes), bytewise(&bytes), "{bytes:?}");
        }
    }

    #[test]
    fn no_flag_means_no_stop() {
        for b in 0u8..=255 {
            let flagged = stop_flags(u64::from_le_bytes([b; 8])) != 0;
            assert_eq!(flagged, is_stop(b), "{b:#x}");
        }
    }
}

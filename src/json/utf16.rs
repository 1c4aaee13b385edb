//! UTF-8 text as UTF-16 code units, for handing a large string to V8, which copies UTF-16 as it
//! is but decodes UTF-8 slowly. JSON text is mostly ASCII, so ASCII runs are found eight bytes
//! at a time and widened in one loop the compiler vectorizes.

const HIGHS: u64 = 0x8080_8080_8080_8080;

/// `text.encode_utf16().collect()`, faster on mostly-ASCII text.
pub fn utf16_units(text: &str) -> Vec<u16> {
    let bytes = text.as_bytes();
    let mut units = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let run = ascii_len(&bytes[at..]);
        units.extend(bytes[at..at + run].iter().map(|&b| u16::from(b)));
        at += run;
        // `at` follows ASCII bytes, so it is a character boundary.
        if let Some(c) = text.get(at..).and_then(|rest| rest.chars().next()) {
            let mut buf = [0u16; 2];
            units.extend_from_slice(c.encode_utf16(&mut buf));
            at += c.len_utf8();
        }
    }
    units
}

/// How many bytes at the start of `bytes` are ASCII.
fn ascii_len(bytes: &[u8]) -> usize {
    let mut at = 0;
    while let Some(block) = bytes.get(at..).and_then(|rest| rest.first_chunk::<8>()) {
        let high = u64::from_le_bytes(*block) & HIGHS;
        if high != 0 {
            return at + (high.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    at + bytes[at..]
        .iter()
        .position(|b| !b.is_ascii())
        .unwrap_or(bytes.len() - at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_random::Rng;

    #[test]
    fn encodes_as_encode_utf16_does() {
        let alphabet = [
            'a', ' ', '\u{7f}', '\u{80}', 'é', 'ÿ', '✓', '\u{FFFF}', '😀', '\0',
        ];
        let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
        for case in 0..5000 {
            let text = rng.string_of(&alphabet, case % 41);
            let expected: Vec<u16> = text.encode_utf16().collect();
            assert_eq!(utf16_units(&text), expected, "{text:?}");
        }
        assert_eq!(utf16_units(""), Vec::<u16>::new());
        let long = format!("{}✓{}", "x".repeat(100), "y".repeat(13));
        assert_eq!(utf16_units(&long), long.encode_utf16().collect::<Vec<_>>());
    }
}

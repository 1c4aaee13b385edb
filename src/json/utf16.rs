//! UTF-8 text as UTF-16 code units and back, for handing a large string between V8 and Rust:
//! V8 copies UTF-16 as it is but converts to and from UTF-8 slowly. JSON text is mostly ASCII,
//! so ASCII runs are found a block at a time and widened or narrowed in one loop the compiler
//! vectorizes.

const HIGHS: u64 = 0x8080_8080_8080_8080;

/// `text.encode_utf16().collect()`, faster on mostly-ASCII text.
pub fn utf16_units(text: &str) -> Vec<u16> {
    let mut units = Vec::with_capacity(text.len());
    push_utf16_units(&mut units, text);
    units
}

/// `units.extend(text.encode_utf16())`, faster on mostly-ASCII text.
pub fn push_utf16_units(units: &mut Vec<u16>, text: &str) {
    let bytes = text.as_bytes();
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
}

/// The text of UTF-16 code units, or `None` when they hold a lone surrogate (which
/// `JSON.stringify` never writes: it escapes them).
pub fn string_from_units(units: &[u16]) -> Option<String> {
    let mut bytes = Vec::with_capacity(units.len() + units.len() / 4);
    let mut at = 0;
    while at < units.len() {
        let run = ascii_units_len(&units[at..]);
        bytes.extend(units[at..at + run].iter().map(|&u| u as u8));
        at += run;
        if let Some(first) = char::decode_utf16(units[at..].iter().copied()).next() {
            let c = first.ok()?;
            let mut buf = [0u8; 4];
            bytes.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            at += c.len_utf16();
        }
    }
    String::from_utf8(bytes).ok()
}

/// How many code units at the start of `units` are ASCII.
fn ascii_units_len(units: &[u16]) -> usize {
    const BLOCK: usize = 16;
    let mut at = 0;
    for block in units.chunks_exact(BLOCK) {
        if block.iter().fold(0, |all, &u| all | u) >= 0x80 {
            break;
        }
        at += BLOCK;
    }
    at + units[at..]
        .iter()
        .position(|&u| u >= 0x80)
        .unwrap_or(units.len() - at)
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

    #[test]
    fn decodes_as_from_utf16_does() {
        let alphabet = [
            'a', ' ', '\u{7f}', '\u{80}', 'é', 'ÿ', '✓', '\u{FFFF}', '😀', '\0',
        ];
        let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
        for case in 0..5000 {
            let text = rng.string_of(&alphabet, case % 53);
            let units: Vec<u16> = text.encode_utf16().collect();
            assert_eq!(string_from_units(&units).as_deref(), Some(text.as_str()));
        }
        let long = format!("{}😀{}", "x".repeat(100), "y".repeat(17));
        let units: Vec<u16> = long.encode_utf16().collect();
        assert_eq!(string_from_units(&units), Some(long));
        for lone in [&[0xD800][..], &[0x61, 0xDC00, 0x62], &[0xD83D, 0x61]] {
            assert_eq!(string_from_units(lone), None, "{lone:x?}");
        }
    }
}

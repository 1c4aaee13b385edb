//! JavaScript strings are UTF-16: their order is the order of code units, and a lone half of a
//! surrogate pair is a string of its own.

use std::cmp::Ordering;

/// The UTF-16 code units that are halves of a surrogate pair.
pub const SURROGATES: std::ops::RangeInclusive<u32> = 0xD800..=0xDFFF;
/// The first (high) halves.
pub const LEAD_SURROGATES: std::ops::RangeInclusive<u32> = 0xD800..=0xDBFF;
/// The second (low) halves.
pub const TRAIL_SURROGATES: std::ops::RangeInclusive<u32> = 0xDC00..=0xDFFF;

pub fn is_lead_surrogate(unit: u32) -> bool {
    LEAD_SURROGATES.contains(&unit)
}

pub fn is_trail_surrogate(unit: u32) -> bool {
    TRAIL_SURROGATES.contains(&unit)
}

/// The code point a surrogate pair stands for.
pub fn combine_surrogates(lead: u32, trail: u32) -> u32 {
    0x10000 + ((lead - LEAD_SURROGATES.start()) << 10) + (trail - TRAIL_SURROGATES.start())
}

/// Compares two strings by their UTF-16 code units, as JavaScript's `<` does.
///
/// UTF-8 bytes sort as code points do, and UTF-16 differs from that only where one string has a
/// character above U+FFFF (lead byte 0xF0 and up) and the other one in U+E000..=U+FFFF (lead
/// byte 0xEE or 0xEF) at the first difference: the surrogate pair sorts first. A first
/// difference inside a character falls between continuation bytes of the same lead byte, where
/// both orders agree.
pub fn cmp_utf16(a: &str, b: &str) -> Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let Some(first) = a.iter().zip(b).position(|(x, y)| x != y) else {
        return a.len().cmp(&b.len());
    };
    let (x, y) = (a[first], b[first]);
    let high_bmp = |lead: u8| lead == 0xEE || lead == 0xEF;
    let astral = |lead: u8| lead >= 0xF0;
    if high_bmp(x) && astral(y) {
        Ordering::Greater
    } else if astral(x) && high_bmp(y) {
        Ordering::Less
    } else {
        x.cmp(&y)
    }
}

/// Compares two sequences of UTF-16 code units.
pub fn cmp_utf16_units(a: impl Iterator<Item = u16>, b: impl Iterator<Item = u16>) -> Ordering {
    a.cmp(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_random::Rng;

    #[test]
    fn utf16_order_puts_astral_before_high_bmp() {
        assert_eq!(cmp_utf16("\u{1F600}", "\u{FFFF}"), Ordering::Less);
        assert_eq!(cmp_utf16("\u{FFFF}", "\u{1F600}"), Ordering::Greater);
        assert_eq!(cmp_utf16("a\u{1F600}", "a\u{E000}"), Ordering::Less);
        assert_eq!(cmp_utf16("\u{1F600}", "\u{1F601}"), Ordering::Less);
        assert_eq!(cmp_utf16("ab", "abc"), Ordering::Less);
        assert_eq!(cmp_utf16("abc", "abc"), Ordering::Equal);
        assert_eq!(cmp_utf16("B", "a"), Ordering::Less);
        assert_eq!(cmp_utf16("é", "z"), Ordering::Greater);
        assert_eq!(cmp_utf16("\u{10000}", "\u{D7FF}"), Ordering::Greater);
    }

    #[test]
    fn surrogate_halves_combine_to_their_code_point() {
        let mut units = [0u16; 2];
        '\u{1F600}'.encode_utf16(&mut units);
        let (lead, trail) = (u32::from(units[0]), u32::from(units[1]));
        assert!(is_lead_surrogate(lead) && !is_trail_surrogate(lead));
        assert!(is_trail_surrogate(trail) && !is_lead_surrogate(trail));
        assert_eq!(combine_surrogates(lead, trail), 0x1F600);
        assert!(SURROGATES.contains(&lead) && SURROGATES.contains(&trail));
    }

    #[test]
    fn byte_order_with_the_surrogate_fix_is_code_unit_order() {
        let alphabet = [
            'a',
            'z',
            '\u{7f}',
            '\u{80}',
            'é',
            '\u{7ff}',
            '\u{800}',
            '\u{D7FF}',
            '\u{E000}',
            '\u{FFFF}',
            '\u{10000}',
            '😀',
            '\u{10FFFF}',
        ];
        let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
        let mut word = |max_len: usize| -> String {
            let len = rng.below(max_len + 1);
            rng.string_of(&alphabet, len)
        };
        for _ in 0..20_000 {
            let prefix = word(2);
            let (a, b) = (prefix.clone() + &word(3), prefix + &word(3));
            let units = a.encode_utf16().cmp(b.encode_utf16());
            assert_eq!(cmp_utf16(&a, &b), units, "{a:?} {b:?}");
        }
    }
}

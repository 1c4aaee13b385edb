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
/// This differs from byte (code point) order only where one string has a character above U+FFFF
/// and the other one in U+E000..=U+FFFF at the first difference: the surrogate pair sorts first.
pub fn cmp_utf16(a: &str, b: &str) -> Ordering {
    let common = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    // Back up to the start of the character the first difference falls in; the shared prefix
    // makes that a boundary in both strings.
    let mut start = common;
    while !a.is_char_boundary(start) {
        start -= 1;
    }
    match (a[start..].chars().next(), b[start..].chars().next()) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some(x), Some(y)) => utf16_key(x).cmp(&utf16_key(y)),
    }
}

/// Compares two sequences of UTF-16 code units.
pub fn cmp_utf16_units(a: impl Iterator<Item = u16>, b: impl Iterator<Item = u16>) -> Ordering {
    a.cmp(b)
}

fn utf16_key(c: char) -> (u16, u16) {
    let mut units = [0u16; 2];
    let encoded = c.encode_utf16(&mut units);
    (encoded[0], encoded.get(1).copied().unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

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
}

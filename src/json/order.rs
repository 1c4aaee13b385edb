//! JavaScript's orders: strings compare by UTF-16 code units (what `<` and `Array.prototype.sort`
//! use), and objects enumerate "array index" keys first, in numeric order.

use std::cmp::Ordering;

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

/// The numeric value of an "array index" key (`0`, or no leading zero, up to 2^32 − 2), which
/// JavaScript objects enumerate before every other key.
pub fn array_index(key: &str) -> Option<u32> {
    let bytes = key.as_bytes();
    let valid = match bytes {
        [b'0'] => true,
        [b'1'..=b'9', rest @ ..] => rest.len() <= 9 && rest.iter().all(u8::is_ascii_digit),
        _ => false,
    };
    if !valid {
        return None;
    }
    let value: u64 = key.parse().ok()?;
    (value <= u64::from(u32::MAX - 1)).then_some(value as u32)
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
    fn array_index_keys() {
        assert_eq!(array_index("0"), Some(0));
        assert_eq!(array_index("10"), Some(10));
        assert_eq!(array_index("4294967294"), Some(4_294_967_294));
        assert_eq!(array_index("4294967295"), None);
        assert_eq!(array_index("01"), None);
        assert_eq!(array_index("-1"), None);
        assert_eq!(array_index("1.0"), None);
        assert_eq!(array_index(""), None);
        assert_eq!(array_index("99999999999"), None);
    }
}

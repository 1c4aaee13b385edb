//! JavaScript's orders: strings compare by UTF-16 code units (what `<` and `Array.prototype.sort`
//! use), and objects enumerate "array index" keys first, in numeric order.

use std::cmp::Ordering;

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
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut word = |max_len: u64| -> String {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let mut pick = seed;
            (0..pick % (max_len + 1))
                .map(|_| {
                    pick /= alphabet.len() as u64;
                    alphabet[(pick % alphabet.len() as u64) as usize]
                })
                .collect()
        };
        for _ in 0..20_000 {
            let prefix = word(2);
            let (a, b) = (prefix.clone() + &word(3), prefix + &word(3));
            let units = a.encode_utf16().cmp(b.encode_utf16());
            assert_eq!(cmp_utf16(&a, &b), units, "{a:?} {b:?}");
        }
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

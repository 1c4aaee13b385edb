//! JavaScript's reading of text: how Node decodes bytes as UTF-8, and what `trim()` and a
//! regular expression's `\s` call white space.

use std::borrow::Cow;

/// Bytes as text, as Node's `buffer.toString('utf8')` reads a body: each bad sequence becomes
/// U+FFFD. Text that is valid (nearly all of it) is only checked, by `from_utf8`, which skips
/// ASCII a word at a time; the lossy decoder goes byte by byte (about 0.9 ns a byte).
pub fn utf8_text(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// [`utf8_text`] of bytes it owns: valid UTF-8 becomes the string without a copy.
pub fn utf8_string(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// ECMAScript's WhiteSpace, as a code point or UTF-16 code unit: TAB, VT, FF, ZWNBSP and the
/// `Zs` characters of Unicode 17 (V8's `IsWhiteSpace`).
pub fn is_white_space(c: u32) -> bool {
    matches!(
        c,
        0x09 | 0x0B | 0x0C | 0x20 | 0xA0 | 0x1680 | 0x2000
            ..=0x200A | 0x202F | 0x205F | 0x3000 | 0xFEFF
    )
}

/// ECMAScript's LineTerminator: LF, CR, LINE SEPARATOR and PARAGRAPH SEPARATOR.
pub fn is_line_terminator(c: u32) -> bool {
    matches!(c, 0x0A | 0x0D | 0x2028 | 0x2029)
}

/// JavaScript's white space and line terminators (what `String.prototype.trim` removes; V8's
/// `IsWhiteSpaceOrLineTerminator`).
pub fn is_js_whitespace(c: char) -> bool {
    is_white_space_or_line_terminator(u32::from(c))
}

/// [`is_js_whitespace`] on a code point or UTF-16 code unit.
pub fn is_white_space_or_line_terminator(c: u32) -> bool {
    is_white_space(c) || is_line_terminator(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_text_keeps_valid_text_and_replaces_bad_sequences_as_node_does() {
        assert!(matches!(
            utf8_text("héllo ✓".as_bytes()),
            Cow::Borrowed("héllo ✓")
        ));
        // Node: Buffer.from([0x61, 0xff, 0x62, 0xe2, 0x82]).toString() is 'a\ufffdb\ufffd'.
        assert_eq!(utf8_text(b"a\xffb\xe2\x82"), "a\u{fffd}b\u{fffd}");
        assert_eq!(utf8_text(b"\xed\xa0\x80"), "\u{fffd}\u{fffd}\u{fffd}");
    }

    #[test]
    fn white_space_is_the_union_of_its_two_kinds() {
        let listed = "\t\n\u{b}\u{c}\r \u{a0}\u{1680}\u{2000}\u{200a}\u{2028}\u{2029}\u{202f}\u{205f}\u{3000}\u{feff}";
        assert!(listed.chars().all(is_js_whitespace));
        assert_eq!(listed.trim_matches(is_js_whitespace), "");
        for c in ['a', '\u{0}', '\u{85}', '\u{180e}', '\u{200b}', '\u{2060}'] {
            assert!(!is_js_whitespace(c), "{c:?}");
        }
        assert!(is_white_space(0x20) && !is_white_space(0x0A));
        assert!(is_line_terminator(0x2028) && !is_line_terminator(0x20));
    }
}

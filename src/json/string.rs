//! JSON string text as `JSON.stringify` writes it (well-formed stringify): `"` and `\` escaped,
//! `\b \f \n \r \t` short, other control characters as `\u00xx`, lone surrogates as `\udxxx`,
//! and everything else, non-ASCII included, as itself.

use super::scan::plain_len;

const HEX: &[u8; 16] = b"0123456789abcdef";

fn escape_of(c: u32) -> Option<&'static str> {
    Some(match c {
        0x22 => "\\\"",
        0x5C => "\\\\",
        0x08 => "\\b",
        0x0C => "\\f",
        0x0A => "\\n",
        0x0D => "\\r",
        0x09 => "\\t",
        _ => return None,
    })
}

fn push_u_escape(out: &mut String, unit: u32) {
    out.push_str("\\u");
    for shift in [12, 8, 4, 0] {
        out.push(HEX[((unit >> shift) & 0xF) as usize] as char);
    }
}

/// Writes `s` as a quoted JSON string.
pub fn write_json_str(out: &mut String, s: &str) {
    out.push('"');
    let bytes = s.as_bytes();
    let mut run = 0;
    loop {
        // Text is mostly plain: the scan skips it eight bytes at a time.
        let at = run + plain_len(&bytes[run..]);
        out.push_str(&s[run..at]);
        let Some(&b) = bytes.get(at) else { break };
        match escape_of(u32::from(b)) {
            Some(short) => out.push_str(short),
            None => push_u_escape(out, u32::from(b)),
        }
        run = at + 1;
    }
    out.push('"');
}

/// Writes UTF-16 code units (a JavaScript string, lone surrogates and all) as a quoted JSON string.
pub fn write_json_utf16(out: &mut String, units: &[u16]) {
    out.push('"');
    for decoded in char::decode_utf16(units.iter().copied()) {
        match decoded {
            Ok(c) => {
                let code = c as u32;
                if let Some(short) = escape_of(code) {
                    out.push_str(short);
                } else if code < 0x20 {
                    push_u_escape(out, code);
                } else {
                    out.push(c);
                }
            }
            Err(lone) => push_u_escape(out, u32::from(lone.unpaired_surrogate())),
        }
    }
    out.push('"');
}

/// Writes the JSON string whose text between the quotes is `raw` (escapes included) as
/// `JSON.stringify` writes the decoded string: what [`write_json_utf16`] writes for
/// [`decode_json_string`]'s units, without building them. Plain runs are copied as they are
/// (valid string text holds no `"` or control character outside an escape); each escape is
/// decoded and written again, a `\u` pair of surrogates as its character.
pub fn rewrite_json_string(out: &mut String, raw: &str) {
    let start = out.len();
    out.push('"');
    let bytes = raw.as_bytes();
    let mut at = 0;
    loop {
        let slash = at + plain_len(&bytes[at..]);
        out.push_str(&raw[at..slash]);
        if slash == bytes.len() {
            break;
        }
        let Some((unit, len)) = escape_at(bytes, slash) else {
            // Not text the parser passed (an unescaped stop, a malformed escape): the
            // general path has an answer for that too.
            out.truncate(start);
            write_json_utf16(out, &decode_json_string(raw));
            return;
        };
        at = slash + len;
        let low = match unit {
            0xD800..=0xDBFF => escape_at(bytes, at).filter(|(u, _)| (0xDC00..=0xDFFF).contains(u)),
            _ => None,
        };
        if let Some((low, low_len)) = low {
            let code = 0x10000 + ((u32::from(unit) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
            out.push(char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER));
            at += low_len;
            continue;
        }
        let code = u32::from(unit);
        match (escape_of(code), char::from_u32(code)) {
            (Some(short), _) => out.push_str(short),
            (None, Some(c)) if code >= 0x20 => out.push(c),
            // Control characters and lone surrogates.
            _ => push_u_escape(out, code),
        }
    }
    out.push('"');
}

/// The code unit of the escape at `bytes[at]` (a backslash) and the escape's length.
fn escape_at(bytes: &[u8], at: usize) -> Option<(u16, usize)> {
    if bytes.get(at) != Some(&b'\\') {
        return None;
    }
    let unit = match bytes.get(at + 1)? {
        b'"' => 0x22,
        b'\\' => 0x5C,
        b'/' => 0x2F,
        b'b' => 0x08,
        b'f' => 0x0C,
        b'n' => 0x0A,
        b'r' => 0x0D,
        b't' => 0x09,
        b'u' => {
            let hex = bytes.get(at + 2..at + 6)?;
            let mut unit = 0u16;
            for &h in hex {
                unit = (unit << 4) | u16::try_from(char::from(h).to_digit(16)?).ok()?;
            }
            return Some((unit, 6));
        }
        _ => return None,
    };
    Some((unit, 2))
}

/// Decodes the text between a JSON string's quotes (escapes included) into UTF-16 code units.
/// The caller has checked the escapes (the parser does); a malformed one decodes as itself.
pub fn decode_json_string(raw: &str) -> Vec<u16> {
    let mut units = Vec::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            let mut buf = [0u16; 2];
            units.extend_from_slice(c.encode_utf16(&mut buf));
            continue;
        }
        let unit = match chars.next() {
            Some('b') => 0x08,
            Some('f') => 0x0C,
            Some('n') => 0x0A,
            Some('r') => 0x0D,
            Some('t') => 0x09,
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                u16::from_str_radix(&hex, 16).unwrap_or(0xFFFD)
            }
            Some(other) => other as u16,
            None => break,
        };
        units.push(unit);
    }
    units
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_random::Rng;

    fn quoted(s: &str) -> String {
        let mut out = String::new();
        write_json_str(&mut out, s);
        out
    }

    fn quoted16(units: &[u16]) -> String {
        let mut out = String::new();
        write_json_utf16(&mut out, units);
        out
    }

    #[test]
    fn escapes_like_json_stringify() {
        assert_eq!(quoted("plain"), "\"plain\"");
        assert_eq!(quoted("a\"b\\c"), "\"a\\\"b\\\\c\"");
        assert_eq!(quoted("\u{8}\u{c}\n\r\t"), "\"\\b\\f\\n\\r\\t\"");
        assert_eq!(quoted("\u{0}\u{1f}\u{7f}"), "\"\\u0000\\u001f\u{7f}\"");
        assert_eq!(quoted("é\u{2028}😀"), "\"é\u{2028}😀\"");
    }

    #[test]
    fn eight_bytes_at_a_time_escape_what_one_at_a_time_does() {
        // The UTF-16 writer goes character by character: the two must agree on any text, with
        // the characters to escape at every place in and across the eight-byte blocks.
        let alphabet = [
            'a', '"', '\\', '\n', '\u{0}', '\u{1f}', ' ', '\u{7f}', 'é', '✓', '😀', '\u{80}',
        ];
        let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
        for case in 0..5000 {
            let text = rng.string_of(&alphabet, case % 40);
            let units: Vec<u16> = text.encode_utf16().collect();
            assert_eq!(quoted(&text), quoted16(&units), "{text:?}");
        }
        for byte in 0u8..0x80 {
            let text = format!("abcdefg{}hijklmnop", byte as char);
            let units: Vec<u16> = text.encode_utf16().collect();
            assert_eq!(quoted(&text), quoted16(&units), "{byte:#x}");
        }
    }

    #[test]
    fn lone_surrogates_are_escaped() {
        assert_eq!(quoted16(&[0x61, 0xD800, 0x62]), "\"a\\ud800b\"");
        assert_eq!(quoted16(&[0xDC00]), "\"\\udc00\"");
        assert_eq!(quoted16(&[0xD83D, 0xDE00]), "\"😀\"");
        assert_eq!(quoted16(&[0x0A, 0x1F]), "\"\\n\\u001f\"");
    }

    #[test]
    fn rewriting_escaped_text_writes_what_decoding_it_does() {
        let pieces = [
            "a", "é", "✓", "😀", "\\n", "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\r", "\\t",
            "\\u0000", "\\u001f", "\\u001F", "\\u0041", "\\u00e9", "\\u2028", "\\u005c", "\\u0022",
            "\\u007f", "\\uffff", "\\ud83d", "\\ude00", "\\uD83D", "\\uDE00", "\\udbff", "\\udfff",
            "\\ud800",
        ];
        let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
        for case in 0..20_000 {
            let raw: String = (0..case % 9).map(|_| *rng.pick(&pieces)).collect();
            let mut fast = String::from("x");
            rewrite_json_string(&mut fast, &raw);
            let mut reference = String::from("x");
            write_json_utf16(&mut reference, &decode_json_string(&raw));
            assert_eq!(fast, reference, "{raw:?}");
        }
        // What the parser refuses still gets the general path's answer.
        for raw in ["\\x", "\\u12", "\\u12g4", "a\\", "\"", "\n"] {
            let mut fast = String::new();
            rewrite_json_string(&mut fast, raw);
            let mut reference = String::new();
            write_json_utf16(&mut reference, &decode_json_string(raw));
            assert_eq!(fast, reference, "{raw:?}");
        }
    }

    #[test]
    fn decodes_escapes() {
        assert_eq!(decode_json_string("a\\u0041\\n"), vec![0x61, 0x41, 0x0A]);
        assert_eq!(decode_json_string("\\ud800x"), vec![0xD800, 0x78]);
        assert_eq!(decode_json_string("\\/\\\"\\\\"), vec![0x2F, 0x22, 0x5C]);
        assert_eq!(decode_json_string("😀"), vec![0xD83D, 0xDE00]);
    }
}

//! JSON string text as `JSON.stringify` writes it (well-formed stringify): `"` and `\` escaped,
//! `\b \f \n \r \t` short, other control characters as `\u00xx`, lone surrogates as `\udxxx`,
//! and everything else, non-ASCII included, as itself.

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

/// Whether any of eight bytes must be escaped: below 0x20, `"` or `\\`. Never a false "no";
/// a false "yes" only sends the bytes through the byte loop.
fn any_to_escape(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // A byte below `n` (n ≤ 0x80) sets its high bit in `(x - n·ONES) & !x`.
    let below = |x: u64, n: u8| x.wrapping_sub(ONES * u64::from(n)) & !x & HIGHS;
    (below(word, 0x20)
        | below(word ^ (ONES * u64::from(b'"')), 1)
        | below(word ^ (ONES * u64::from(b'\\')), 1))
        != 0
}

/// Writes `s` as a quoted JSON string.
pub fn write_json_str(out: &mut String, s: &str) {
    out.push('"');
    let bytes = s.as_bytes();
    let mut run = 0;
    let mut at = 0;
    while at < bytes.len() {
        // Text is mostly plain: eight bytes are checked at once, and only a block with
        // something to escape goes byte by byte.
        let end = match bytes[at..].first_chunk::<8>() {
            Some(block) if !any_to_escape(u64::from_ne_bytes(*block)) => {
                at += 8;
                continue;
            }
            Some(_) => at + 8,
            None => bytes.len(),
        };
        for (i, &b) in bytes.iter().enumerate().take(end).skip(at) {
            if b >= 0x20 && b != b'"' && b != b'\\' {
                continue;
            }
            out.push_str(&s[run..i]);
            match escape_of(u32::from(b)) {
                Some(short) => out.push_str(short),
                None => push_u_escape(out, u32::from(b)),
            }
            run = i + 1;
        }
        at = end;
    }
    out.push_str(&s[run..]);
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
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for case in 0..5000 {
            let len = case % 40;
            let text: String = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    alphabet[(seed % alphabet.len() as u64) as usize]
                })
                .collect();
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
    fn decodes_escapes() {
        assert_eq!(decode_json_string("a\\u0041\\n"), vec![0x61, 0x41, 0x0A]);
        assert_eq!(decode_json_string("\\ud800x"), vec![0xD800, 0x78]);
        assert_eq!(decode_json_string("\\/\\\"\\\\"), vec![0x2F, 0x22, 0x5C]);
        assert_eq!(decode_json_string("😀"), vec![0xD83D, 0xDE00]);
    }
}

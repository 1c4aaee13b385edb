//! JavaScript's own rules for strings, where the core must read text as the TypeScript
//! package's JavaScript does: what `trim()` and a regular expression's `\s` call white space,
//! what `Number(string)` makes of a string, what `String(value)` makes of a JSON value, how
//! Node decodes bytes as UTF-8, and the names and words libuv gives system errors in Node's.

use crate::json::write_js_number;
use serde_json::Value;
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

/// JavaScript's white space and line terminators (what `String.prototype.trim` removes).
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// JavaScript's `Number(string)`.
pub fn js_number(raw: &str) -> f64 {
    let text = raw.trim_matches(is_js_whitespace);
    if text.is_empty() {
        return 0.0;
    }
    let radix = |digits: &str, base: u32| -> f64 {
        if digits.is_empty() || !digits.chars().all(|c| c.is_digit(base)) {
            return f64::NAN;
        }
        digits.chars().fold(0.0, |n, c| {
            n * f64::from(base) + f64::from(c.to_digit(base).unwrap_or(0))
        })
    };
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        return radix(hex, 16);
    }
    if let Some(oct) = text.strip_prefix("0o").or_else(|| text.strip_prefix("0O")) {
        return radix(oct, 8);
    }
    if let Some(bin) = text.strip_prefix("0b").or_else(|| text.strip_prefix("0B")) {
        return radix(bin, 2);
    }
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    if unsigned == "Infinity" {
        return if text.starts_with('-') {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    // StrDecimalLiteral: digits with an optional fraction (at least one digit), then an exponent.
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], Some(&unsigned[at + 1..])),
        None => (unsigned, None),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits_ok = (!int.is_empty() || !frac.is_empty())
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.bytes().all(|b| b.is_ascii_digit());
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        !e.is_empty() && e.bytes().all(|b| b.is_ascii_digit())
    });
    if !digits_ok || !exponent_ok {
        return f64::NAN;
    }
    text.parse::<f64>().unwrap_or(f64::NAN)
}

/// JavaScript's `String(value)` for a JSON value (`undefined` when absent).
pub fn js_string(value: Option<&Value>) -> String {
    match value {
        None => "undefined".into(),
        Some(Value::Null) => "null".into(),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::Number(n)) => {
            let mut out = String::new();
            write_js_number(&mut out, n.as_f64().unwrap_or(f64::NAN));
            out
        }
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                Value::Null => String::new(),
                other => js_string(Some(other)),
            })
            .collect::<Vec<_>>()
            .join(","),
        Some(Value::Object(_)) => "[object Object]".into(),
    }
}

/// libuv's name and words for a system error (`EADDRINUSE`, `address already in use`), as
/// Node's errors give them, for the errors spawning a child or opening a listener can give.
#[cfg(unix)]
pub fn uv_error(errno: i32) -> Option<(&'static str, &'static str)> {
    let known = [
        (libc::ENOENT, "ENOENT", "no such file or directory"),
        (libc::EACCES, "EACCES", "permission denied"),
        (libc::EPERM, "EPERM", "operation not permitted"),
        (libc::ENOEXEC, "ENOEXEC", "exec format error"),
        (libc::ENOTDIR, "ENOTDIR", "not a directory"),
        (libc::EISDIR, "EISDIR", "illegal operation on a directory"),
        (libc::ELOOP, "ELOOP", "too many symbolic links encountered"),
        (libc::ENAMETOOLONG, "ENAMETOOLONG", "name too long"),
        (libc::E2BIG, "E2BIG", "argument list too long"),
        (libc::ETXTBSY, "ETXTBSY", "text file is busy"),
        (libc::ENOMEM, "ENOMEM", "not enough memory"),
        (libc::EAGAIN, "EAGAIN", "resource temporarily unavailable"),
        (libc::EMFILE, "EMFILE", "too many open files"),
        (libc::ENFILE, "ENFILE", "file table overflow"),
        (libc::ESRCH, "ESRCH", "no such process"),
        (libc::EADDRINUSE, "EADDRINUSE", "address already in use"),
        (
            libc::EADDRNOTAVAIL,
            "EADDRNOTAVAIL",
            "address not available",
        ),
        (
            libc::EAFNOSUPPORT,
            "EAFNOSUPPORT",
            "address family not supported",
        ),
        (libc::EINVAL, "EINVAL", "invalid argument"),
        (libc::ENOBUFS, "ENOBUFS", "no buffer space available"),
    ];
    known
        .iter()
        .find(|(number, _, _)| *number == errno)
        .map(|(_, name, words)| (*name, *words))
}

#[cfg(not(unix))]
pub fn uv_error(_errno: i32) -> Option<(&'static str, &'static str)> {
    None
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
    fn number_follows_javascript() {
        for (text, want) in [
            ("", 0.0),
            (" 80 ", 80.0),
            ("0x50", 80.0),
            ("1e3", 1000.0),
            ("80.0", 80.0),
            ("\u{feff}7\n", 7.0),
            ("-0", 0.0),
            (".5", 0.5),
            ("5.", 5.0),
            ("+5", 5.0),
        ] {
            assert_eq!(js_number(text), want, "{text:?}");
        }
        for text in [
            "x", "0x", "1e", "inf", "NaN", "infinity", "1 2", "0x-1", "+0x1", "--1",
        ] {
            assert!(js_number(text).is_nan(), "{text:?}");
        }
        assert_eq!(js_number("-Infinity"), f64::NEG_INFINITY);
    }

    #[test]
    fn string_follows_javascript() {
        use serde_json::json;
        for (value, want) in [
            (json!(null), "null"),
            (json!(true), "true"),
            (json!(1e21), "1e+21"),
            (json!(0.5), "0.5"),
            (json!("text"), "text"),
            (json!([1, null, [2, "a"]]), "1,,2,a"),
            (json!({"a": 1}), "[object Object]"),
        ] {
            assert_eq!(js_string(Some(&value)), want, "{value}");
        }
        assert_eq!(js_string(None), "undefined");
    }
}

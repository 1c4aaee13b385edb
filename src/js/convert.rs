//! JavaScript's conversions: what `Number(string)` makes of a string and what `String(value)`
//! makes of a JSON value or a number.

use super::is_js_whitespace;
use crate::json::write_js_number;
use serde_json::Value;

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

/// A number as JavaScript's `String(n)` writes it.
pub fn number_to_string(x: f64) -> String {
    let mut out = String::new();
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        };
    }
    write_js_number(&mut out, x);
    out
}

/// `parseInt(x)` of a number: JavaScript converts it to a string first, so `1e21` parses as 1.
pub fn parse_int_of_number(x: f64) -> f64 {
    let text = number_to_string(x);
    let digits: String = text
        .char_indices()
        .take_while(|(i, c)| c.is_ascii_digit() || (*i == 0 && *c == '-'))
        .map(|(_, c)| c)
        .collect();
    match digits.as_str() {
        "" | "-" => f64::NAN,
        d => d.parse::<f64>().unwrap_or(f64::NAN),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_to_string_and_parse_int_follow_javascript() {
        assert_eq!(number_to_string(f64::NAN), "NaN");
        assert_eq!(number_to_string(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(number_to_string(1e21), "1e+21");
        assert_eq!(parse_int_of_number(1e21), 1.0);
        assert_eq!(parse_int_of_number(-2.5), -2.0);
        assert!(parse_int_of_number(f64::NAN).is_nan());
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

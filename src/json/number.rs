//! ECMAScript `Number::toString(10)`: the shortest digits that round-trip, written without an
//! exponent from 1e-6 up to (not including) 1e21, with one (`1e+21`, `1.5e-7`) outside it.

/// Writes `x` as JavaScript would. Non-finite values write `null`, as `JSON.stringify` does.
/// `ryu-js` is ECMAScript's Number::toString (shortest round-trip digits, ties to even, the
/// exponent thresholds, `-0` as `0`); the differential suite holds it to V8's `String(n)`.
pub fn write_js_number(out: &mut String, x: f64) {
    if !x.is_finite() {
        out.push_str("null");
        return;
    }
    out.push_str(ryu_js::Buffer::new().format_finite(x));
}

/// Writes a JSON number token as JavaScript would after `JSON.parse`. Plain integers that are
/// already in JavaScript's form are copied; everything else goes through `f64`.
pub fn write_js_number_text(out: &mut String, token: &str) {
    if is_plain_short_integer(token) {
        out.push_str(token);
        return;
    }
    match token.parse::<f64>() {
        Ok(x) => write_js_number(out, x),
        // The parser only hands over valid number tokens; an unparsable one cannot occur, but
        // writing `null` keeps the output valid JSON if it ever did.
        Err(_) => out.push_str("null"),
    }
}

/// `-?[1-9][0-9]{0,14}` or `0`: exactly representable, already shortest, not `-0`.
fn is_plain_short_integer(token: &str) -> bool {
    let digits = token.strip_prefix('-').unwrap_or(token);
    let bytes = digits.as_bytes();
    match bytes {
        [b'0'] => digits.len() == token.len(),
        [b'1'..=b'9', rest @ ..] => rest.len() < 15 && rest.iter().all(u8::is_ascii_digit),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn js(x: f64) -> String {
        let mut s = String::new();
        write_js_number(&mut s, x);
        s
    }

    fn text(t: &str) -> String {
        let mut s = String::new();
        write_js_number_text(&mut s, t);
        s
    }

    #[test]
    // The tie cases are exact doubles written out in full: that is the point of them.
    #[allow(clippy::excessive_precision)]
    fn matches_ecmascript_number_to_string() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0"),
            (-0.0, "0"),
            (1.0, "1"),
            (-1.5, "-1.5"),
            (0.1, "0.1"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (123456789012345680000.0, "123456789012345680000"),
            (1e-6, "0.000001"),
            (1e-7, "1e-7"),
            (1.5e-7, "1.5e-7"),
            (2f64.powi(60), "1152921504606847000"),
            (2f64.powi(64), "18446744073709552000"),
            (9007199254740993.0, "9007199254740992"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (0.000123, "0.000123"),
            (123.456, "123.456"),
            (1e100, "1e+100"),
            (-1e-100, "-1e-100"),
            // Exact ties between two shortest candidates take the even digit.
            (562949953421312.25, "562949953421312.2"),
            (1250000000000000.25, "1250000000000000.2"),
            (991768790874630.25, "991768790874630.2"),
            (-562949953421312.25, "-562949953421312.2"),
            (562949953421312.75, "562949953421312.8"),
            (f64::NAN, "null"),
            (f64::INFINITY, "null"),
        ];
        for (x, want) in cases {
            assert_eq!(js(*x), *want, "{x:e}");
        }
    }

    #[test]
    fn number_tokens_are_normalized() {
        assert_eq!(text("1.0"), "1");
        assert_eq!(text("-0"), "0");
        assert_eq!(text("-0.0"), "0");
        assert_eq!(text("1E3"), "1000");
        assert_eq!(text("1e400"), "null");
        assert_eq!(text("123456789012345678901234"), "1.2345678901234569e+23");
        assert_eq!(text("42"), "42");
        assert_eq!(text("-42"), "-42");
        assert_eq!(text("100000000000000000"), "100000000000000000");
        assert_eq!(text("9007199254740993"), "9007199254740992");
    }
}

//! ECMAScript `Number::toString(10)`: the shortest digits that round-trip, written without an
//! exponent from 1e-6 up to (not including) 1e21, with one (`1e+21`, `1.5e-7`) outside it.

use std::fmt::Write;

/// Writes `x` as JavaScript would. Non-finite values write `null`, as `JSON.stringify` does.
pub fn write_js_number(out: &mut String, x: f64) {
    if !x.is_finite() {
        out.push_str("null");
        return;
    }
    if x == 0.0 {
        // Both zeros: JSON.stringify(-0) is "0".
        out.push('0');
        return;
    }
    // Integers below 2^53 are their own shortest digits.
    if x.fract() == 0.0 && x.abs() < 9_007_199_254_740_992.0 {
        let _ = write!(out, "{}", x as i64);
        return;
    }
    if x < 0.0 {
        out.push('-');
    }
    // Rust's `{:e}` writes the shortest round-trip digits: `d[.ddd]e[-]N`.
    let mut sci = String::with_capacity(32);
    let _ = write!(sci, "{:e}", x.abs());
    let (mantissa, exp) = match sci.split_once('e') {
        Some(parts) => parts,
        None => (sci.as_str(), "0"),
    };
    let mut digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let exp: i32 = exp.parse().unwrap_or(0);
    prefer_even_on_tie(x.abs(), &mut digits, exp);
    write_digits(out, &digits, exp + 1);
}

/// Rust's shortest digits break an exact tie between two shortest candidates upward;
/// ECMAScript takes the even one ("If there are two such possible values of s, choose the one
/// that is even"). A tie means the value's exact decimal expansion stops one digit after the
/// shortest digits, at a 5. Only an odd last digit can need the change.
fn prefer_even_on_tie(x: f64, digits: &mut String, exp: i32) {
    let k = digits.len();
    if digits.bytes().last().is_none_or(|d| (d - b'0') % 2 == 0) {
        return;
    }
    // The exact expansion to 20 digits past the tie digit (Rust formats with a precision exactly).
    let exact = format!("{:.*e}", k + 20, x);
    let exact_digits: Vec<u8> = exact
        .split('e')
        .next()
        .unwrap_or("")
        .bytes()
        .filter(u8::is_ascii_digit)
        .collect();
    let is_tie =
        exact_digits.get(k) == Some(&b'5') && exact_digits[k + 1..].iter().all(|&d| d == b'0');
    if !is_tie || exact.split('e').nth(1).and_then(|e| e.parse::<i32>().ok()) != Some(exp) {
        return;
    }
    // The two candidates are the expansion cut at k digits and that plus one in the last place;
    // take whichever ends in an even digit.
    let mut even = exact_digits[..k].to_vec();
    if even.last().is_some_and(|d| (d - b'0') % 2 == 1) && !increment_decimal(&mut even) {
        return;
    }
    let even = String::from_utf8(even).unwrap_or_default();
    let round_trips = format!("{}e{}", even, exp - (k as i32 - 1))
        .parse::<f64>()
        .is_ok_and(|back| back == x);
    if round_trips {
        *digits = even;
    }
}

/// Adds one in the last place of a digit string; `false` when that would carry out of it.
fn increment_decimal(digits: &mut [u8]) -> bool {
    for d in digits.iter_mut().rev() {
        if *d == b'9' {
            *d = b'0';
        } else {
            *d += 1;
            return true;
        }
    }
    false
}

/// `digits` × 10^(n − k), k = digits.len(), by the spec's cases.
fn write_digits(out: &mut String, digits: &str, n: i32) {
    let k = digits.len() as i32;
    if k <= n && n <= 21 {
        out.push_str(digits);
        out.extend(std::iter::repeat_n('0', (n - k) as usize));
    } else if 0 < n && n <= 21 {
        out.push_str(&digits[..n as usize]);
        out.push('.');
        out.push_str(&digits[n as usize..]);
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-n) as usize));
        out.push_str(digits);
    } else {
        let e = n - 1;
        out.push_str(&digits[..1]);
        if k > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if e < 0 { '-' } else { '+' });
        let _ = write!(out, "{}", e.unsigned_abs());
    }
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

//! `uuid` and `byte` (base64).

use super::compile;
use regress::Regex;
use std::sync::LazyLock;

/// `uuid`, flag `i`; positive ASCII classes only.
pub(super) const UUID_JS: (&str, &str) = (
    r"^(?:urn:uuid:)?[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$",
    "i",
);

/// `byte`: `/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/gm` with
/// `lastIndex` reset before `test`, i.e. a search from the start. Because of `m`, the string
/// passes when ANY line (split at `\n`, `\r`, U+2028, U+2029; regress uses the same line
/// terminators) is valid base64, including an empty line: `"!!!\n"` passes. There is no other
/// length rule.
pub(super) const BYTE_JS: (&str, &str) = (
    r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$",
    "m",
);
static BYTE: LazyLock<Regex> = LazyLock::new(|| compile(BYTE_JS.0, BYTE_JS.1));

/// [`UUID_JS`], matched by hand rather than by regress, which takes several times as long: an
/// optional `urn:uuid:` (any case, as `i` folds only ASCII letters here), then 36 characters with
/// `-` at 8, 13, 18 and 23 and an ASCII hex digit everywhere else; `$` without `m` is the very
/// end. `tests` holds it to the regular expression.
pub fn uuid(value: &str) -> bool {
    let bytes = value.as_bytes();
    let rest = match bytes.split_at_checked(9) {
        Some((prefix, rest)) if bytes.len() == 45 && prefix.eq_ignore_ascii_case(b"urn:uuid:") => {
            rest
        }
        _ => bytes,
    };
    rest.len() == 36
        && rest.iter().enumerate().all(|(at, &c)| match at {
            8 | 13 | 18 | 23 => c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

pub fn byte(value: &str) -> bool {
    BYTE.find(value).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_random::Rng;

    #[test]
    fn uuid_by_hand_is_the_regular_expression() {
        let oracle = compile(UUID_JS.0, UUID_JS.1);
        let alphabet = [
            "0",
            "9",
            "a",
            "F",
            "g",
            "-",
            "urn:uuid:",
            "URN:UUID:",
            "é",
            ":",
            "\n",
        ];
        let valid = "123e4567-e89b-42d3-a456-426614174000";
        let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
        for _ in 0..50_000 {
            let mut text = String::from(if rng.one_in(4) { "urn:uuid:" } else { "" });
            text.push_str(valid);
            for _ in 0..rng.below(3) {
                rng.edit(&mut text, &alphabet);
            }
            let expected = text.is_ascii() && oracle.find(&text).is_some();
            assert_eq!(uuid(&text), expected, "{text:?}");
        }
    }
}

//! `hostname`, `email`, `ipv4` and `ipv6`.

use super::compile;
use regress::Regex;
use std::sync::LazyLock;

/// `email`, flag `i`; positive ASCII classes only.
pub(super) const EMAIL_JS: (&str, &str) = (
    r##"^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$"##,
    "i",
);

/// `ipv4`, no flags, ASCII only.
pub(super) const IPV4_JS: (&str, &str) = (
    r"^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$",
    "",
);
static IPV4: LazyLock<Regex> = LazyLock::new(|| compile(IPV4_JS.0, IPV4_JS.1));

/// `ipv6`, flag `i`; positive ASCII classes only.
pub(super) const IPV6_JS: (&str, &str) = (
    r"^((([0-9a-f]{1,4}:){7}([0-9a-f]{1,4}|:))|(([0-9a-f]{1,4}:){6}(:[0-9a-f]{1,4}|((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3})|:))|(([0-9a-f]{1,4}:){5}(((:[0-9a-f]{1,4}){1,2})|:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3})|:))|(([0-9a-f]{1,4}:){4}(((:[0-9a-f]{1,4}){1,3})|((:[0-9a-f]{1,4})?:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}))|:))|(([0-9a-f]{1,4}:){3}(((:[0-9a-f]{1,4}){1,4})|((:[0-9a-f]{1,4}){0,2}:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}))|:))|(([0-9a-f]{1,4}:){2}(((:[0-9a-f]{1,4}){1,5})|((:[0-9a-f]{1,4}){0,3}:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}))|:))|(([0-9a-f]{1,4}:){1}(((:[0-9a-f]{1,4}){1,6})|((:[0-9a-f]{1,4}){0,4}:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}))|:))|(:(((:[0-9a-f]{1,4}){1,7})|((:[0-9a-f]{1,4}){0,5}:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}))|:)))$",
    "i",
);
static IPV6: LazyLock<Regex> = LazyLock::new(|| compile(IPV6_JS.0, IPV6_JS.1));

/// [`EMAIL_JS`], matched by hand rather than by regress, which takes several times as long. The
/// language: a local part of dot-separated atoms, each one or more of `A-Za-z0-9` and
/// ``!#$%&'*+/=?^_`{|}~-`` (no `@` among them, so the first `@` ends it); then a domain of two
/// or more dot-separated labels, each one or more of `A-Za-z0-9-` that starts and ends with a
/// letter or digit (`i` folds only ASCII letters here). `tests` holds it to the expression.
pub fn email(value: &str) -> bool {
    let Some((local, domain)) = value.split_once('@') else {
        return false;
    };
    let atom_char = |c: u8| c.is_ascii_alphanumeric() || b"!#$%&'*+/=?^_`{|}~-".contains(&c);
    let label = |label: &[u8]| {
        label.first().is_some_and(u8::is_ascii_alphanumeric)
            && label.last().is_some_and(u8::is_ascii_alphanumeric)
            && label
                .iter()
                .all(|&c| c.is_ascii_alphanumeric() || c == b'-')
    };
    let mut labels = 0;
    local
        .as_bytes()
        .split(|&c| c == b'.')
        .all(|atom| !atom.is_empty() && atom.iter().all(|&c| atom_char(c)))
        && domain.as_bytes().split(|&c| c == b'.').all(|part| {
            labels += 1;
            label(part)
        })
        && labels >= 2
}

pub fn ipv4(value: &str) -> bool {
    IPV4.find(value).is_some()
}

pub fn ipv6(value: &str) -> bool {
    value.is_ascii() && IPV6.find(value).is_some()
}

/// `hostname`:
/// `/^(?=.{1,253}\.?$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[-0-9a-z]{0,61}[0-9a-z])?)*\.?$/i`,
/// checked by hand because regress backtracks exponentially on `{0,61}` (a 60-character label
/// followed by an invalid character takes seconds), where V8 answers at once. The language is
/// identical:
/// * the lookahead holds when the string has 1 to 253 characters, or 254 ending with `.`
///   (`.` excludes line terminators, which the labels exclude anyway);
/// * the body is labels separated by single dots with one optional trailing dot, each label 1 to
///   63 of `[A-Za-z0-9-]` (ignoreCase without `u` adds no other character) starting and ending
///   with a letter or digit.
///
/// A non-ASCII character never matches, so counting UTF-8 bytes instead of UTF-16 code units
/// changes nothing.
pub fn hostname(value: &str) -> bool {
    let b = value.as_bytes();
    let length_ok = (1..=253).contains(&b.len()) || (b.len() == 254 && b[253] == b'.');
    if !length_ok || !value.is_ascii() {
        return false;
    }
    let body = b.strip_suffix(b".").unwrap_or(b);
    body.split(|&c| c == b'.').all(|label| {
        (1..=63).contains(&label.len())
            && label.first().is_some_and(u8::is_ascii_alphanumeric)
            && label.last().is_some_and(u8::is_ascii_alphanumeric)
            && label
                .iter()
                .all(|&c| c.is_ascii_alphanumeric() || c == b'-')
    })
}

#[cfg(test)]
mod email_tests {
    use super::*;
    use crate::test_random::Rng;

    #[test]
    fn email_by_hand_is_the_regular_expression() {
        let oracle = compile(EMAIL_JS.0, EMAIL_JS.1);
        let alphabet = [
            "a", "Z", "0", ".", "@", "-", "_", "+", "!", "~", "`", "{", "..", "é", " ", "\n", "(",
            "\"",
        ];
        let seeds = [
            "a.b+c@example.co.nz",
            "x@y.z",
            "first_last@sub-domain.example.com",
        ];
        let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
        for _ in 0..60_000 {
            let mut text = String::from(*rng.pick(&seeds));
            for _ in 0..rng.below(4) {
                rng.edit(&mut text, &alphabet);
            }
            let expected = text.is_ascii() && oracle.find(&text).is_some();
            assert_eq!(email(&text), expected, "{text:?}");
        }
    }
}

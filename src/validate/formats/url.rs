//! `url`: a linear hand-written matcher for the regular expression of formats.js.

use super::date_time::{all_digits, digits_value};
use crate::js::is_js_whitespace;

/// `url`, flags `iu`:
/// `^(?:https?|ftp):\/\/(?:\S+(?::\S*)?@)?(?:LOOKAHEADS IP|HOST)(?::\d{2,5})?(?:\/[^\s]*)?$`
/// with `LOOKAHEADS` = `(?!(?:10|127)(?:\.\d{1,3}){3})(?!(?:169\.254|192\.168)(?:\.\d{1,3}){2})`
/// `(?!172\.(?:1[6-9]|2\d|3[0-1])(?:\.\d{1,3}){2})`, `IP` = `(?:[1-9]\d?|1\d\d|2[01]\d|22[0-3])`
/// `(?:\.(?:1?\d{1,2}|2[0-4]\d|25[0-5])){2}(?:\.(?:[1-9]\d?|1\d\d|2[0-4]\d|25[0-4]))` and
/// `HOST` = `(?:(?:L+-)*L+)(?:\.(?:L+-)*L+)*(?:\.(?:T{2,}))` where `L` is
/// `[a-z0-9\u{00a1}-\u{ffff}]` and `T` is `[a-z\u{00a1}-\u{ffff}]` (the full pattern is the
/// test oracle `URL_ORACLE`). Checked by hand because backtracking is quadratic here: the
/// userinfo tries every `:` against every later `@`, and on 16 KB of `:@` regress takes
/// seconds (V8 a third of one). This check is linear and accepts the same language:
///
/// Characters. With `iu` a character matches when its simple case folding equals that of a
/// member (verified for every code point on V8):
/// * `\S` and `[^\s]` are exactly the characters that are not [`is_js_whitespace`]: no
///   whitespace folds, and nothing folds to whitespace;
/// * `L` is the ASCII letters and digits plus every BMP code point from U+00A1 on; the only
///   non-ASCII characters that fold into `[a-z]`, `ſ` (U+017F) and the KELVIN SIGN (U+212A),
///   are in that range anyway, and astral characters fold only to astral ones, so none matches.
///   `T` is `L` without the digits. Both include whitespace such as U+3000 and U+FEFF;
/// * `\d` is `[0-9]`; among the literals only `s` gains a character, `ſ`.
///
/// Structure:
/// 1. The scheme is `http`, `https` or `ftp` in any ASCII case (with `ſ` for `s`) and `://`;
///    at most one choice fits.
/// 2. `\S+(?::\S*)?` is just the non-empty strings without whitespace (`:` is not whitespace),
///    so the userinfo is absent or ends at any `@` with at least one character, and no
///    whitespace, between `://` and it. Each such `@`, and the absence, gives a start for the
///    rest; the string passes when the rest passes from one of them.
/// 3. From a start: neither `IP`, `HOST` nor the port holds `/` or `@`, and only the port holds
///    `:`. So an `@` before the first `/` fails this start; the path, if any, is from the first
///    `/` on and must hold no whitespace; before it, the port is from the first `:` on and is 2
///    to 5 digits; the host before that must be `IP` (with the lookaheads) or `HOST` whole.
/// 4. The lookaheads stand at the host's start and read only digits and dots, so they cannot
///    see past the host; they guard `IP` alone. When the host is an `IP` (four dot-separated runs
///    of 1 to 3 digits), they reject it exactly when the first run is `10` or `127`, the first
///    two are `169.254` or `192.168`, or the first is `172` and the second two digits from 16
///    to 31.
/// 5. `IP`: the first run is 1 to 223 and the last 1 to 254, both without a leading zero; each
///    middle run is one or two digits (leading zeros allowed) or three digits from 100 to 255.
/// 6. `HOST`: the dot is in neither `L` nor `T`, so the host splits at its dots into at least two
///    parts: the last is at least two `T`, every other one is runs of `L` joined by single `-`.
///
/// Time: a start's scan stops at its first `/` or `@`, and the starts follow distinct `@`s, so
/// the scans do not overlap; whether a path is free of whitespace is one comparison with the
/// end of the last whitespace.
pub fn url(value: &str) -> bool {
    let Some(authority) = url_authority(value) else {
        return false;
    };
    // A path must start at or after this byte offset to hold no whitespace.
    let path_floor = value
        .char_indices()
        .rev()
        .find(|&(_, c)| is_js_whitespace(c))
        .map_or(0, |(i, c)| i + c.len_utf8());
    url_after_userinfo(value, authority, path_floor)
        || value[authority..]
            .char_indices()
            .take_while(|&(_, c)| !is_js_whitespace(c))
            .any(|(i, c)| {
                c == '@' && i > 0 && url_after_userinfo(value, authority + i + 1, path_floor)
            })
}

/// The byte offset after `http://`, `https://` or `ftp://` (see [`url`], step 1).
fn url_authority(value: &str) -> Option<usize> {
    let b = value.as_bytes();
    let slashes_at = |i: usize| (b.get(i..i + 3) == Some(&b"://"[..])).then_some(i + 3);
    if b.get(..3).is_some_and(|s| s.eq_ignore_ascii_case(b"ftp")) {
        return slashes_at(3);
    }
    if !b.get(..4).is_some_and(|s| s.eq_ignore_ascii_case(b"http")) {
        return None;
    }
    // The first four bytes are ASCII, so 4 is a character boundary.
    match value[4..].chars().next() {
        Some(c @ ('s' | 'S' | '\u{17f}')) => slashes_at(4 + c.len_utf8()),
        _ => slashes_at(4),
    }
}

/// Whether host, port and path match from byte `start` to the end (see [`url`], step 3).
fn url_after_userinfo(value: &str, start: usize, path_floor: usize) -> bool {
    let rest = &value[start..];
    let end = rest.find(['/', '@']).unwrap_or(rest.len());
    if rest[end..].starts_with('@') || (end < rest.len() && start + end < path_floor) {
        return false;
    }
    let (host, port) = match rest[..end].split_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (&rest[..end], None),
    };
    port.is_none_or(|p| (2..=5).contains(&p.len()) && p.bytes().all(|c| c.is_ascii_digit()))
        && (url_ip(host) || url_host_name(host))
}

/// `IP` with its three lookaheads (see [`url`], steps 4 and 5).
fn url_ip(host: &str) -> bool {
    let mut runs = host.split('.');
    let (Some(a), Some(b), Some(c), Some(d), None) = (
        runs.next(),
        runs.next(),
        runs.next(),
        runs.next(),
        runs.next(),
    ) else {
        return false;
    };
    let value = |run: &str| {
        ((1..=3).contains(&run.len()) && all_digits(run.as_bytes()))
            .then(|| digits_value(run.as_bytes()))
    };
    let middle = |run: &str| match value(run) {
        Some(v) => run.len() < 3 || (100..=255).contains(&v),
        None => false,
    };
    let first = !a.starts_with('0') && value(a).is_some_and(|v| (1..=223).contains(&v));
    let last = !d.starts_with('0') && value(d).is_some_and(|v| (1..=254).contains(&v));
    let private = a == "10"
        || a == "127"
        || (a, b) == ("169", "254")
        || (a, b) == ("192", "168")
        || (a == "172" && b.len() == 2 && value(b).is_some_and(|v| (16..=31).contains(&v)));
    first && middle(b) && middle(c) && last && !private
}

/// `HOST` (see [`url`], step 6).
fn url_host_name(host: &str) -> bool {
    let bmp_from_a1 = |c: char| ('\u{a1}'..='\u{ffff}').contains(&c);
    let Some((labels, tld)) = host.rsplit_once('.') else {
        return false;
    };
    tld.chars().nth(1).is_some()
        && tld
            .chars()
            .all(|c| c.is_ascii_alphabetic() || bmp_from_a1(c))
        && labels.split('.').all(|label| {
            label.split('-').all(|run| {
                !run.is_empty()
                    && run
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || bmp_from_a1(c))
            })
        })
}

#[cfg(test)]
mod tests {
    use super::super::{compile, lookup};
    use crate::test_random::Rng;
    use regress::Regex;
    use std::sync::LazyLock;

    const T: bool = true;
    const F: bool = false;

    /// `url` of formats.js (flags `iu`), the oracle for [`url`]: regress agrees with V8 on it,
    /// only slower (see the JS test `__test__/validate-url-format.test.mjs`).
    static URL_ORACLE: LazyLock<Regex> = LazyLock::new(|| {
        compile(
            r##"^(?:https?|ftp):\/\/(?:\S+(?::\S*)?@)?(?:(?!(?:10|127)(?:\.\d{1,3}){3})(?!(?:169\.254|192\.168)(?:\.\d{1,3}){2})(?!172\.(?:1[6-9]|2\d|3[0-1])(?:\.\d{1,3}){2})(?:[1-9]\d?|1\d\d|2[01]\d|22[0-3])(?:\.(?:1?\d{1,2}|2[0-4]\d|25[0-5])){2}(?:\.(?:[1-9]\d?|1\d\d|2[0-4]\d|25[0-4]))|(?:(?:[a-z0-9\u{00a1}-\u{ffff}]+-)*[a-z0-9\u{00a1}-\u{ffff}]+)(?:\.(?:[a-z0-9\u{00a1}-\u{ffff}]+-)*[a-z0-9\u{00a1}-\u{ffff}]+)*(?:\.(?:[a-z\u{00a1}-\u{ffff}]{2,})))(?::\d{2,5})?(?:\/[^\s]*)?$"##,
            "iu",
        )
    });

    /// Boundaries of every step of [`url`]'s argument; the answers come from ajv-formats on
    /// Node 20.
    #[rustfmt::skip]
    const URL_EDGES: &[(bool, &str)] = &[
        (T, "http://a.com"), (T, "https://a.com"), (T, "ftp://a.com"), (T, "HtTpS://a.com"),
        (T, "FTP://a.com"), (T, "http\u{17f}://a.com"), (F, "ftp\u{17f}://a.com"),
        (F, "ftps://a.com"), (F, "httpss://a.com"), (F, "http:/a.com"), (F, "http//a.com"),
        (F, "http://"), (F, "https://"), (F, "http:\u{212a}//a.com"), (F, " http://a.com"),
        (T, "http://u@a.com"), (T, "http://u:p@a.com"), (T, "http://u:@a.com"),
        (T, "http://:@a.com"), (T, "http://:p@a.com"), (F, "http://@a.com"), (T, "http://@@a.com"),
        (T, "http://a@b@c.com"), (T, "http://a@b.com@c.com"), (F, "http://a@b.com@"),
        (F, "http://u p@a.com"), (F, "http://u@a.com/p q"), (F, "http://a.com@"),
        (T, "http://u/x@a.com"), (T, "http://a.com/x@b.com"), (T, "http://u@a.com/x@b"),
        (F, "http://u\u{a0}@a.com"), (F, "http://u\u{feff}@a.com"), (T, "http://u@a.com\u{feff}"),
        (T, "http://u@\u{3000}.com"), (T, "http://a.com/@"), (T, "http://a:80@b.com"),
        (F, "http://u@10.0.0.1"), (T, "http://10.0.0.1@a.com"), (T, "http://1.2.3.4@5.6.7.8"),
        (F, "http://a.com:8"), (T, "http://a.com:80"), (T, "http://a.com:8080"),
        (T, "http://a.com:65535"), (F, "http://a.com:123456"), (F, "http://a.com:"),
        (F, "http://a.com:80:80"), (T, "http://a.com:80/"), (F, "http://a.com:8/"),
        (T, "http://a.com/"), (F, "http://a.com/a b"), (F, "http://a.com/a\u{a0}"),
        (F, "http://a.com/\u{2028}"), (T, "http://a.com/\u{1f600}"), (F, "http://a.com?q"),
        (F, "http://a.com#f"), (T, "http://a.com/?q#f"), (F, "http://a.com:\u{661}\u{662}"),
        (T, "http://a.com//"), (F, "http://a.com:80a"), (F, "http://www.ex.c"),
        (T, "http://www.ex.co"), (F, "http://ex"), (F, "http://ex."), (F, "http://ex.com."),
        (F, "http://.com"), (F, "http://a..com"), (F, "http://-a.com"), (F, "http://a-.com"),
        (T, "http://a-b.com"), (F, "http://a--b.com"), (T, "http://a.b-c.d-e.fg"),
        (F, "http://a.c0m"), (F, "http://a.co-m"), (T, "http://1.com"), (F, "http://a.1com"),
        (T, "http://\u{17f}.\u{212a}\u{212a}"), (T, "http://\u{e9}x.\u{e9}\u{e9}"),
        (T, "http://\u{a1}.\u{a1}\u{a1}"), (F, "http://\u{a0}.com"),
        (T, "http://a.\u{ffff}\u{ffff}"), (F, "http://a.\u{1f600}\u{1f600}"),
        (F, "http://\u{1f600}.com"), (T, "http://a.b\u{3000}"), (T, "http://a\u{3000}b.com"),
        (T, "http://a.\u{feff}\u{2028}"), (T, "http://\u{2028}.com"), (F, "http://a_b.com"),
        (T, "http://EXAMPLE.COM"), (F, "http://xn--d1acj3b.xn--p1ai"),
        (T, "http://\u{43f}\u{440}\u{438}\u{43c}\u{435}\u{440}.\u{440}\u{444}"),
        (T, "http://a.\u{b5}\u{b5}"), (F, "http://a.\u{a0}\u{a0}"), (T, "http://1.2.3.4"),
        (F, "http://10.0.0.1"), (T, "http://10.0.0.1.com"), (T, "http://100.0.0.1"),
        (F, "http://10.0.0"), (F, "http://127.0.0.1"), (F, "http://127.1.1.1"),
        (T, "http://128.0.0.1"), (T, "http://126.0.0.1"), (F, "http://169.254.1.1"),
        (T, "http://169.253.1.1"), (F, "http://169.2540.1.1"), (F, "http://192.168.0.1"),
        (T, "http://192.169.0.1"), (T, "http://172.15.0.1"), (F, "http://172.16.0.1"),
        (F, "http://172.31.255.254"), (T, "http://172.32.0.1"), (F, "http://172.016.0.1"),
        (T, "http://172.160.0.1"), (F, "http://1.2.3.0"), (T, "http://1.2.3.254"),
        (F, "http://1.2.3.255"), (F, "http://0.1.1.1"), (F, "http://01.1.1.1"),
        (T, "http://223.1.1.1"), (F, "http://224.1.1.1"), (T, "http://1.00.01.1"),
        (F, "http://1.012.1.1"), (T, "http://1.255.255.1"), (F, "http://1.256.1.1"),
        (F, "http://1.2.3.04"), (F, "http://1.2.3.4.5"), (T, "http://1.2.3.4:80"),
        (F, "http://1.2.3.4:8"), (T, "http://1.2.3.4/x"), (F, "http://10.0.0.1:80"),
        (F, "http://10.0.0.1000"), (F, "http://10.1000.0.1"), (F, "http://192.168.1"),
        (F, "http://192.168.1.1.1"), (F, "http://1.2.3"), (F, "http://1..2.3"),
        (F, "http://1.2.3.4."), (T, "http://223.255.255.254"), (F, "http://1.1.1.1a"),
        (F, "http://\u{ff11}.1.1.1"),
    ];

    #[test]
    fn url_edges_agree_with_v8_and_the_regex() {
        let format = lookup("url").expect("known format");
        for &(expected, input) in URL_EDGES {
            assert_eq!(format.check_str(input), expected, "{input:?}");
            assert_eq!(
                URL_ORACLE.find(input).is_some(),
                expected,
                "oracle {input:?}"
            );
        }
    }

    /// One random string for `url`: two in three built as scheme, userinfo, host, port and path
    /// from pieces that are mostly valid there, the others any sequence of pieces; then,
    /// sometimes, one piece inserted anywhere.
    fn random_url(rng: &mut Rng) -> String {
        // Each list starts with its `good` valid entries (see `mostly`).
        #[rustfmt::skip]
        const SCHEMES: &[&str] = &[
            "http://", "https://", "ftp://", "HTTP://", "hTtPs://", "FTP://", "http\u{17f}://",
            "http:/", "http:", "https//", "ftps://", "ftp\u{17f}://", "gopher://", "", "h",
        ];
        #[rustfmt::skip]
        const USERINFO: &[&str] = &[
            "u", ":", "@", "p", "/", "1", ".", "\u{1f600}", "\u{3000}", " ",
        ];
        #[rustfmt::skip]
        const OCTETS: &[&str] = &[
            "1", "9", "10", "127", "169", "254", "192", "168", "172", "15", "16", "31", "32", "223",
            "99", "100", "0", "224", "255", "256", "00", "01", "012", "1000",
        ];
        #[rustfmt::skip]
        const LABELS: &[&str] = &[
            "a", "ex", "www", "com", "x-y", "1", "0", "Z9", "\u{17f}", "\u{212a}\u{212a}", "\u{e9}",
            "\u{a1}", "\u{feff}", "\u{2028}", "\u{3000}", "\u{ffff}",
            "x--y", "-a", "a-", "\u{a0}", "\u{1f600}", "_", "",
        ];
        #[rustfmt::skip]
        const TLDS: &[&str] = &[
            "com", "co", "ab", "\u{212a}\u{17f}", "\u{e9}\u{e9}", "\u{3000}\u{feff}",
            "c", "c0", "a-b", "\u{1f600}x", "\u{a0}x", "",
        ];
        #[rustfmt::skip]
        const PIECES: &[&str] = &[
            "a", "b", "Z", "\u{17f}", "\u{212a}", "\u{e9}", "0", "1", "9", "10", "127", "169",
            "254", "192", "168", "172", "16", "31", "223", "224", "255", "256", ".", ".", "-", "@",
            "@", ":", ":", "/", "//", "://", "com", "co", "c", "www", "\u{a0}", "\u{a1}",
            "\u{feff}", "\u{2028}", "\u{3000}", "\u{1680}", "\u{ffff}", "\u{1f600}", " ", "\t",
            "\n", "?", "#", "http", "ftp",
        ];
        // An entry of `items`, one of the first `good` three times in four.
        let mostly = |rng: &mut Rng, items: &[&'static str], good: usize| {
            if rng.below(4) == 0 {
                *rng.pick(items)
            } else {
                *rng.pick(&items[..good])
            }
        };
        let mut s = String::new();
        if rng.below(3) == 0 {
            s.push_str(rng.pick::<&str>(SCHEMES));
            for _ in 0..rng.below(8) {
                s.push_str(rng.pick::<&str>(PIECES));
            }
        } else {
            s.push_str(mostly(rng, SCHEMES, 7));
            if rng.below(3) == 0 {
                for _ in 0..=rng.below(3) {
                    s.push_str(mostly(rng, USERINFO, 8));
                }
                s.push('@');
            }
            if rng.below(2) == 0 {
                let count = [4, 4, 4, 4, 4, 3, 5][rng.below(7)];
                for i in 0..count {
                    if i > 0 {
                        s.push('.');
                    }
                    s.push_str(mostly(rng, OCTETS, 16));
                }
            } else {
                for _ in 0..=rng.below(3) {
                    s.push_str(mostly(rng, LABELS, 16));
                    s.push('.');
                }
                s.push_str(mostly(rng, TLDS, 6));
            }
            if rng.below(3) == 0 {
                s.push(':');
                for _ in 0..rng.below(7) {
                    s.push(char::from(b'0' + rng.below(10) as u8));
                }
            }
            if rng.below(3) == 0 {
                s.push('/');
                for _ in 0..rng.below(3) {
                    s.push_str(rng.pick::<&str>(PIECES));
                }
            }
        }
        if rng.below(5) == 0 {
            let at = s
                .char_indices()
                .map(|(i, _)| i)
                .nth(rng.below(s.chars().count() + 1));
            s.insert_str(at.unwrap_or(s.len()), rng.pick::<&str>(PIECES));
        }
        s
    }

    #[test]
    fn url_agrees_with_the_regex_on_random_strings() {
        let format = lookup("url").expect("known format");
        let cases = std::env::var("KINDGI_RANDOM_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(100_000);
        let mut rng = Rng::new(0x7572_6c21);
        let (mut compared, mut valid) = (0, 0);
        while compared < cases {
            let s = random_url(&mut rng);
            // Short strings keep the backtracking oracle fast.
            if s.chars().count() >= 40 {
                continue;
            }
            let expected = URL_ORACLE.find(&s).is_some();
            assert_eq!(format.check_str(&s), expected, "case {compared}: {s:?}");
            compared += 1;
            valid += usize::from(expected);
        }
        // Both answers must be common for the comparison to mean something.
        assert!(
            valid * 8 > cases && valid * 8 < cases * 7,
            "{valid} of {cases} valid"
        );
    }
}

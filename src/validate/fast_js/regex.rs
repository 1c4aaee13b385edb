//! Counted repeats of one character written out (`[0-9a-f]{4}` as four classes), which V8's
//! regular expressions run several times faster than its counted loop, with the same matches.
//!
//! A class (`[...]`), a class escape (`\d`, `\w`, `\s` and their negations) or `.` matches
//! exactly one character and holds no group, so `X{n}` is `X` n times, `X{n,m}` is `X` n times
//! and then `X{0,m-n}` (lazy if it was), and `X{n,}` is `X` n times and then `X*`: the same
//! matches, tried in the same order. Any other atom, and any count the source does not make a
//! quantifier of, is copied as it is; so is the whole source where a quantifier is followed by
//! another (which V8 refuses, and the written-out form would not).

/// The longest text one quantifier may be written out to.
const MAX_WRITTEN: usize = 256;

/// `source` (flags without `v`) with the counted repeats of one-character atoms written out.
pub(super) fn unroll_counts(source: &str) -> String {
    unroll(source).unwrap_or_else(|| source.to_owned())
}

fn unroll(source: &str) -> Option<String> {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    // The last atom, when it is one that matches exactly one character.
    let mut single: Option<String> = None;
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        match c {
            '\\' => {
                let next = chars.get(i + 1).copied();
                let end = (i + 2).min(chars.len());
                let text: String = chars[i..end].iter().collect();
                out.push_str(&text);
                single = matches!(next, Some('d' | 'D' | 'w' | 'W' | 's' | 'S')).then_some(text);
                i = end;
            }
            '[' => {
                let end = class_end(&chars, i)?;
                let text: String = chars[i..end].iter().collect();
                out.push_str(&text);
                single = Some(text);
                i = end;
            }
            '.' => {
                out.push('.');
                single = Some(".".into());
                i += 1;
            }
            '{' => {
                let atom = single.take();
                match (atom, quantifier(&chars, i)) {
                    (Some(atom), Some(q)) => {
                        if q.followed_by_quantifier {
                            return None;
                        }
                        let written = write_out(&atom, &q);
                        match written {
                            Some(text) => out.push_str(&text),
                            None => out.extend(&chars[i..q.end]),
                        }
                        i = q.end;
                    }
                    (None, Some(q)) => {
                        if q.followed_by_quantifier {
                            return None;
                        }
                        out.extend(&chars[i..q.end]);
                        i = q.end;
                    }
                    (_, None) => {
                        out.push('{');
                        i += 1;
                    }
                }
            }
            other => {
                out.push(other);
                single = None;
                i += 1;
            }
        }
    }
    Some(out)
}

/// Where the class opening at `start` ends (after its `]`): the first `]` not escaped, a `]`
/// first in the class included (`[]` is the empty class); `None` for a class never closed.
fn class_end(chars: &[char], start: usize) -> Option<usize> {
    let mut j = start + 1;
    if chars.get(j) == Some(&'^') {
        j += 1;
    }
    loop {
        match chars.get(j)? {
            '\\' => j += 2,
            ']' => return Some(j + 1),
            _ => j += 1,
        }
    }
}

struct Quantifier {
    min: usize,
    /// `None`: no upper bound.
    max: Option<usize>,
    lazy: bool,
    /// Where the quantifier ends (after a lazy `?`).
    end: usize,
    /// Another quantifier follows directly: a source V8 refuses.
    followed_by_quantifier: bool,
}

/// The quantifier `{n}`, `{n,}` or `{n,m}` (and a lazy `?`) at `start`; `None` where the brace
/// starts no quantifier (a literal brace where the flags allow it).
fn quantifier(chars: &[char], start: usize) -> Option<Quantifier> {
    let mut j = start + 1;
    let min = digits(chars, &mut j)?;
    let max = match chars.get(j)? {
        '}' => Some(min),
        ',' => {
            j += 1;
            if chars.get(j) == Some(&'}') {
                None
            } else {
                let max = digits(chars, &mut j)?;
                if chars.get(j) != Some(&'}') {
                    return None;
                }
                Some(max)
            }
        }
        _ => return None,
    };
    j += 1;
    let lazy = chars.get(j) == Some(&'?');
    if lazy {
        j += 1;
    }
    let followed_by_quantifier = matches!(chars.get(j), Some('*' | '+' | '?' | '{'));
    Some(Quantifier {
        min,
        max,
        lazy,
        end: j,
        followed_by_quantifier,
    })
}

/// Decimal digits at `*at`, moved past; `None` for none or for a count too large to matter.
fn digits(chars: &[char], at: &mut usize) -> Option<usize> {
    let start = *at;
    while chars.get(*at).is_some_and(char::is_ascii_digit) {
        *at += 1;
    }
    if *at == start || *at - start > 6 {
        return None;
    }
    chars[start..*at].iter().collect::<String>().parse().ok()
}

/// What replaces `atom` (already written once) and its quantifier `q`: the rest of the copies,
/// then the optional part; `None` where that would be long, or the counts are out of order.
fn write_out(atom: &str, q: &Quantifier) -> Option<String> {
    if q.min == 0 || q.max.is_some_and(|max| max < q.min) || atom.len() * q.min > MAX_WRITTEN {
        return None;
    }
    let mut text = atom.repeat(q.min - 1);
    let lazy = if q.lazy { "?" } else { "" };
    match q.max {
        Some(max) if max == q.min => {}
        Some(max) => {
            text.push_str(atom);
            text.push_str(&format!("{{0,{}}}{lazy}", max - q.min));
        }
        None => {
            text.push_str(atom);
            text.push('*');
            text.push_str(lazy);
        }
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::unroll_counts;
    use crate::test_random::Rng;

    #[test]
    fn counted_classes_are_written_out() {
        assert_eq!(
            unroll_counts("^(?:urn:uuid:)?[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{2}$"),
            "^(?:urn:uuid:)?[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-(?:[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-){3}[0-9a-f][0-9a-f]$"
        );
        assert_eq!(
            unroll_counts(r"^\+?[0-9 ()-]{2,5}$"),
            r"^\+?[0-9 ()-][0-9 ()-][0-9 ()-]{0,3}$"
        );
        assert_eq!(unroll_counts(r"\d{2,}?x.{3}?"), r"\d\d\d*?x...");
        assert_eq!(unroll_counts(r"[^\]]{2}"), r"[^\]][^\]]");
        assert_eq!(unroll_counts(r"\W{1,2}?"), r"\W\W{0,1}?");
    }

    #[test]
    fn other_atoms_and_counts_are_copied() {
        for source in [
            // A literal, a group, a back reference, an escape whose count follows its digits.
            "a{3}",
            "(?:ab){2}",
            r"(a)\1{2}",
            r"\x41{2}",
            r"\u0041{2}",
            r"\u{41}{2}",
            r"\p{L}{2}",
            r"\\{2}",
            r"\[{2}",
            // `[]` is the empty class: the brace counts the `]` after it.
            "[]]{2}",
            // Counts that stay counts: zero, out of order, too long, no quantifier at all.
            "[a]{0}",
            "[a]{0,2}",
            "[a]{3,2}",
            "[a]{300}",
            "[a]{1234567}",
            "[a]{x}",
            "[a]{2,x}",
            "[a]{",
            "[a{2}]",
            // Not closed, and a quantifier followed by another: left to V8 to refuse.
            "[a{2}",
            "[a]{2}*",
            "[a]{2}?+",
            "a{2}{3}",
        ] {
            let written = unroll_counts(source);
            assert_eq!(written, source, "{source}");
        }
    }

    /// Seeded patterns of counted atoms: the written-out form matches exactly the strings the
    /// source matches (regress stands in for V8; both forms run on the same engine).
    #[test]
    fn written_out_forms_match_what_the_source_matches() {
        let atoms: [&str; 10] = [
            "[ab]", "[^a]", r"\d", r"\W", ".", "a", "(?:ab)", "[]", r"[\]b]", "(b)",
        ];
        let counts: [&str; 9] = [
            "{2}", "{1,3}", "{2,}", "{1,2}?", "{3}?", "{0,2}", "?", "*", "",
        ];
        let alphabet = ['a', 'b', '1', ']', ' ', '-', '\n'];
        let mut rng = Rng::new(20261202);
        let mut changed = 0;
        for _ in 0..300 {
            let mut source = String::from("^");
            for _ in 0..1 + rng.below(4) {
                let (atom, count) = (
                    atoms[rng.below(atoms.len())],
                    counts[rng.below(counts.len())],
                );
                source.push_str(atom);
                source.push_str(count);
            }
            source.push('$');
            let written = unroll_counts(&source);
            changed += usize::from(written != source);
            for flags in ["", "u", "i"] {
                let (Ok(original), Ok(unrolled)) = (
                    regress::Regex::with_flags(&source, flags),
                    regress::Regex::with_flags(&written, flags),
                ) else {
                    panic!("{source} or {written} does not compile");
                };
                for _ in 0..60 {
                    let len = rng.below(9);
                    let text = rng.string_of(&alphabet, len);
                    assert_eq!(
                        original.find(&text).is_some(),
                        unrolled.find(&text).is_some(),
                        "{source} as {written} ({flags}) on {text:?}"
                    );
                }
            }
        }
        assert!(changed > 100, "{changed}");
    }
}

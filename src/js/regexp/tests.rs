//! The syntax checks against what each V8 answered (recorded from Node 20, 22, 24 and 26; the
//! node suite holds them to the V8 it runs in, `__test__/regexp-lines.test.mjs`).

use super::*;

/// `(pattern, [V8 11, V8 13, V8 14])`: V8's reason for refusing `new RegExp(pattern)` (the same
/// with and without `u` for these), or `None` where it compiles.
const GROUPS: &[(&str, [Option<&str>; 3])] = &[
    ("(?i:a)b", [Some("Invalid group"), None, None]),
    ("(?-i:a)", [Some("Invalid group"), None, None]),
    ("(?s:.)", [Some("Invalid group"), None, None]),
    ("(?i-:a)", [Some("Invalid group"), None, None]),
    ("(?ims:a)", [Some("Invalid group"), None, None]),
    (
        "(?ii:a)",
        [
            Some("Invalid group"),
            Some("Repeated flag in flag group"),
            Some("Repeated flag in flag group"),
        ],
    ),
    (
        "(?i-i:a)",
        [
            Some("Invalid group"),
            Some("Repeated flag in flag group"),
            Some("Repeated flag in flag group"),
        ],
    ),
    (
        "(?-:a)",
        [
            Some("Invalid group"),
            Some("Invalid flag group"),
            Some("Invalid flag group"),
        ],
    ),
    (
        "(?-i-s:a)",
        [
            Some("Invalid group"),
            Some("Multiple dashes in flag group"),
            Some("Multiple dashes in flag group"),
        ],
    ),
    (
        "(?--i:a)",
        [
            Some("Invalid group"),
            Some("Multiple dashes in flag group"),
            Some("Multiple dashes in flag group"),
        ],
    ),
    (
        "(?x:a)",
        [
            Some("Invalid group"),
            Some("Invalid group"),
            Some("Invalid group"),
        ],
    ),
    (
        "(?i)a",
        [
            Some("Invalid group"),
            Some("Invalid group"),
            Some("Invalid group"),
        ],
    ),
    (
        "(?i=a)",
        [
            Some("Invalid group"),
            Some("Invalid group"),
            Some("Invalid group"),
        ],
    ),
    (
        "(?i<a>b)",
        [
            Some("Invalid group"),
            Some("Invalid group"),
            Some("Invalid group"),
        ],
    ),
    (
        "(?i",
        [
            Some("Invalid group"),
            Some("Invalid group"),
            Some("Invalid group"),
        ],
    ),
    (
        "(?i:",
        [
            Some("Invalid group"),
            Some("Unterminated group"),
            Some("Unterminated group"),
        ],
    ),
    (
        "(?<y>a)|(?<y>b)",
        [Some("Duplicate capture group name"), None, None],
    ),
    ("(?<y>a)(?<y>b)", [Some("Duplicate capture group name"); 3]),
    (
        "(?<a>x)(?:y|(?<a>z))",
        [
            Some("Duplicate capture group name"),
            None,
            Some("Duplicate capture group name"),
        ],
    ),
    (
        "(?<a>(?<a>x)|y)",
        [
            Some("Duplicate capture group name"),
            None,
            Some("Duplicate capture group name"),
        ],
    ),
    (
        "(?<a>x)(?=y|(?<a>z))",
        [
            Some("Duplicate capture group name"),
            None,
            Some("Duplicate capture group name"),
        ],
    ),
    (
        "(?:(?<a>x)|b)(?<a>y)",
        [Some("Duplicate capture group name"); 3],
    ),
    (
        "(?<a>x)|(?:(?<a>y)|z)",
        [Some("Duplicate capture group name"), None, None],
    ),
    (
        "x|(?<a>y)|(?<a>z)",
        [Some("Duplicate capture group name"), None, None],
    ),
    (
        "(?:a|(?<n>b))(?:(?<n>c)|d)",
        [Some("Duplicate capture group name"); 3],
    ),
    (
        "((?<a>x)|(?<a>y))",
        [Some("Duplicate capture group name"), None, None],
    ),
    (
        "(?<a>x)(?<b>y)|(?<b>z)(?<a>w)",
        [Some("Duplicate capture group name"), None, None],
    ),
    (
        "(?:(?<a>x)|(?<a>y))(?<a>z)",
        [Some("Duplicate capture group name"); 3],
    ),
    (
        "(?<a>x)|(?<a>y)(?<a>z)",
        [Some("Duplicate capture group name"); 3],
    ),
    ("(?<a>x)(?<a>y", [Some("Unterminated group"); 3]),
    ("(?<a>x)(?<a>y)(", [Some("Duplicate capture group name"); 3]),
    ("(?<a>x)[(?<a>y)]", [None; 3]),
    (
        "(?:x|(?<a>y))(?<a>z)",
        [Some("Duplicate capture group name"); 3],
    ),
    ("(?<=a)b(?<!c)", [None; 3]),
];

const SYNTAXES: [Syntax; 3] = [Syntax::V8_11, Syntax::V8_13, Syntax::V8_14];

fn reason(result: Result<Regex, PatternError>) -> Option<String> {
    match result {
        Ok(_) => None,
        Err(PatternError::V8(reason)) => Some(reason),
        Err(PatternError::Unsupported(construct)) => {
            Some(format!("unsupported: {}", construct.describe()))
        }
    }
}

#[test]
fn groups_open_and_names_repeat_as_each_v8_decides_without_u() {
    for (pattern, answers) in GROUPS {
        for (syntax, answer) in SYNTAXES.iter().zip(answers) {
            let got = annex_b::check(pattern, *syntax).err().map(V8Error::message);
            assert_eq!(got, *answer, "{pattern} in {syntax:?}");
        }
    }
}

#[test]
fn groups_open_and_names_repeat_as_each_v8_decides_with_u() {
    for (pattern, answers) in GROUPS {
        for (syntax, answer) in SYNTAXES.iter().zip(answers) {
            let got = reason(compile_unicode(pattern, *syntax));
            // V8 13 lets names repeat where regress cannot: refused, but as unsupported.
            let expected = match (syntax.duplicate_names, answer, Syntax::V8_14) {
                (DuplicateNames::OneRange, None, v8_14)
                    if annex_b::check(pattern, v8_14).is_err() =>
                {
                    got.as_deref()
                        .filter(|g| g.starts_with("unsupported: two groups named"))
                        .map(str::to_owned)
                }
                _ => answer.map(str::to_owned),
            };
            assert_eq!(got, expected, "{pattern} in {syntax:?}");
        }
    }
}

#[test]
fn quantified_assertions_and_lookarounds_are_refused_in_unicode_mode_as_v8_refuses_them() {
    for (pattern, expected) in [
        (r"\b*", Some("Nothing to repeat")),
        (r"\B+", Some("Nothing to repeat")),
        (r"a\b{2}", Some("Nothing to repeat")),
        (r"\b*?", Some("Nothing to repeat")),
        ("(?=a)*", Some("Invalid quantifier")),
        ("(?!a){1,2}", Some("Invalid quantifier")),
        ("(?<=a)?", Some("Invalid quantifier")),
        ("^*", Some("Nothing to repeat")),
        ("a{,5}", Some("Incomplete quantifier")),
        ("a{2,1}", Some("numbers out of order in {} quantifier")),
        (
            "x{99999999999,5}",
            Some("numbers out of order in {} quantifier"),
        ),
        ("[[a-z]&&[aeiou]]", Some("Lone quantifier brackets")),
        ("a]", Some("Lone quantifier brackets")),
        ("{", Some("Lone quantifier brackets")),
        ("{1}", Some("Nothing to repeat")),
        ("a|*", Some("Nothing to repeat")),
        (r"(?i:\b)", None),
        (r"[\b]*", None),
    ] {
        assert_eq!(
            reason(compile_unicode(pattern, Syntax::V8_14)).as_deref(),
            expected,
            "{pattern}"
        );
    }
}

#[test]
fn what_regress_cannot_match_as_v8_does_is_refused_by_name() {
    for (pattern, syntax, construct) in [
        ("(?<a>x)(?:y|(?<a>z))", Syntax::V8_13, "two groups named a"),
        (r"(?:(?<y>a)|(?<y>b))\k<y>", Syntax::V8_14, r"\k<y>"),
        (r"\k<y>(?:(?<y>a)|(?<y>b))", Syntax::V8_13, r"\k<y>"),
        (r"(?i:a)\W", Syntax::V8_14, r"\W after a modifier group"),
        (r"(?i:a)[^\w]", Syntax::V8_14, r"\w after a modifier group"),
        (
            r"(?i:(?-i:a)\w)",
            Syntax::V8_13,
            r"\w after a modifier group",
        ),
        (
            "(?i:ſ)",
            Syntax::V8_13,
            "ſ (U+017F) inside a modifier group",
        ),
        (r"(?i:\p{Lu}k)", Syntax::V8_14, "k after a property escape"),
        (
            r"(?i:[\p{L}](?:s))",
            Syntax::V8_14,
            "s after a property escape",
        ),
        (
            r"(?!()\1)",
            Syntax::V8_11,
            "a backreference inside a negative lookaround",
        ),
        (
            r"(?<!\k<a>)(?<a>b)",
            Syntax::V8_14,
            "a backreference inside a negative lookaround",
        ),
        (
            r"(?i:(a|\u212A))",
            Syntax::V8_13,
            "(U+212A) inside a modifier group",
        ),
        (
            r"(?m:(?i:\u{212B}))",
            Syntax::V8_13,
            "(U+212B) inside a modifier group",
        ),
    ] {
        let got = reason(compile_unicode(pattern, syntax)).unwrap_or_default();
        assert!(
            got.starts_with("unsupported: ") && got.contains(construct),
            "{pattern}: {got}"
        );
    }
    // The same constructs where V8 reads them as regress does.
    for pattern in [
        r"\W(?i:a)",
        r"(?i:a)(?:b)\w",
        r"(?i:\w)",
        r"(?<y>a)\k<y>|(?<z>b)",
        r"(?:(?<y>a)|(?<y>b))\2",
        "(?i:ſ)",
    ] {
        assert!(compile_unicode(pattern, Syntax::V8_14).is_ok(), "{pattern}");
    }
    for pattern in [
        "(?i:[ſ])",
        "(?-i:ſ)",
        "ſ(?i:s)",
        r"(?i:\p{Lu})(?i:k)",
        r"(?!(\1))",
        r"(?=()\1)",
    ] {
        assert!(compile_unicode(pattern, Syntax::V8_13).is_ok(), "{pattern}");
    }
    assert!(matches!(
        compile_annex_b(r"(?:(?<y>a)|(?<y>b))\k<y>", Syntax::V8_14),
        Err(PatternError::Unsupported(
            Unsupported::BackreferenceToDuplicateName(_)
        ))
    ));
}

#[test]
fn the_running_syntax_is_the_newest_until_javascript_says() {
    // Nothing in this test binary sets it.
    assert_eq!(running(), Syntax::V8_14);
}

/// `(pattern, subject, whether V8 matches)`, for what regress is given in V8's place.
const MATCHES: &[(&str, &str, bool)] = &[
    // A backreference that can only match the empty string: inside its own group, or before it.
    (r"^(.|\1)a$", "a", true),
    (r"^(?<x>\W*.|\k<x>)a$", "a", true),
    (r"^\1(a)$", "a", true),
    // Inside a lookbehind, which matches backwards, the group comes first.
    (r"(?<=\1(a))b", "ab", false),
    (r"(?<=\1(a))b", "aab", true),
];

#[test]
fn backreferences_to_nothing_match_the_empty_string_as_in_v8() {
    for &(pattern, subject, expected) in MATCHES {
        for compiled in [
            compile_unicode(pattern, Syntax::V8_14),
            compile_annex_b(pattern, Syntax::V8_14),
        ] {
            let regex = compiled.unwrap_or_else(|e| panic!("{pattern}: {e:?}"));
            assert_eq!(
                regex.find(subject).is_some(),
                expected,
                "{pattern} on {subject:?}"
            );
        }
    }
}

#[test]
fn annex_b_identity_escapes_are_read_as_v8_reads_them() {
    // `\u{2}` is `u{2}` to V8 without `u`, and a `\c` before a non-letter a literal backslash.
    for (pattern, subject, expected) in [
        (r"^\u{2}$", "uu", true),
        (r"^\u{212A}$", "u{212A}", true),
        (r"^\u{212A}$", "\u{212A}", false),
        (r"^\x4$", "x4", true),
        (r"^\c1$", "\\c1", true),
        (r"^[\c*]+$", "\\c*", true),
    ] {
        let regex =
            compile_annex_b(pattern, Syntax::V8_14).unwrap_or_else(|e| panic!("{pattern}: {e:?}"));
        assert_eq!(
            regex.find(subject).is_some(),
            expected,
            "{pattern} on {subject:?}"
        );
    }
}

/// Loops inside loops whose bodies can match empty: `(pattern, subjects it matches)` of
/// `SUBJECTS`, as V8 answers `new RegExp(pattern, 'u').test(subject)` on every line. The
/// published regress backtracked some of these without end (vendor/README.md).
const NESTED_LOOPS: &[(&str, &[&str])] = &[
    (r"(?:(?:a?)?)+K", &["aK", "K", "ab-ab-ab-KK", "aKK"]),
    (r"(?:(?:a?){1,2})+K", &["aK", "K", "ab-ab-ab-KK", "aKK"]),
    (r"(?:(?:a?){0,2})+K", &["aK", "K", "ab-ab-ab-KK", "aKK"]),
    (r"(?:(?:a?){1,2}?)+K", &["aK", "K", "ab-ab-ab-KK", "aKK"]),
    (r"(?:(?:a?)??)+K", &["aK", "K", "ab-ab-ab-KK", "aKK"]),
    (r"(?:(?:a|){1,2}?)+K", &["aK", "K", "ab-ab-ab-KK", "aKK"]),
    (r"(?:(?:\B[a-z]?){1,2}?)+(K)\1", &["aKK"]),
    (r"^(?:(a?)?)+$", &["a", "aa"]),
    (r"^(?:(?:x?y?)*)+z$", &["xyxyz"]),
    (r"^(?:(a?){2})+b$", &["b", "ab", "aab"]),
];
const SUBJECTS: &[&str] = &[
    "a",
    "aK",
    "K",
    "b",
    "aa",
    "ab",
    "ab-ab-ab-KK",
    "aKK",
    "xyxyz",
    "xyx",
    "aab",
    "aaaa-",
];

#[test]
fn nested_loops_that_can_match_empty_answer_as_v8() {
    // On a thread of its own, so that a match that never ends fails the test instead of
    // hanging the run.
    let (answers, received) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for (source, matched) in NESTED_LOOPS {
            let regex = compile_unicode(source, Syntax::V8_14).expect("V8 compiles it");
            for subject in SUBJECTS {
                let expected = matched.contains(subject);
                let got = regex.find(subject).is_some();
                assert_eq!(got, expected, "/{source}/u on {subject:?}");
            }
            if answers.send(source).is_err() {
                return;
            }
        }
    });
    for (source, _) in NESTED_LOOPS {
        let done = received.recv_timeout(std::time::Duration::from_secs(60));
        assert_eq!(
            done.ok(),
            Some(source),
            "/{source}/u ended in a panic or ran past a minute"
        );
    }
}

//! Which RegExp syntax the running V8 has. It differs between Node's lines: V8 12.5 (Node 24)
//! added modifiers (`(?i:…)`) and duplicate named groups, judging which duplicates may stand by
//! one range of captures per group, and matching three letters inside an `(?i:` group of a
//! Unicode pattern by their own case only; V8 14 (Node 26) judges duplicates by the
//! specification's rule and matches those letters as `/…/ui` does.
//! The core does not guess the line: JavaScript compiles [`PROBES`] once as the addon loads,
//! [`Syntax::from_probes`] reads which compiled, and the binding makes that the process's
//! syntax ([`set_running`]).

use std::sync::atomic::{AtomicU8, Ordering};

/// When a capture group's name may be that of another group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DuplicateNames {
    /// Never (V8 before 12.5: Node 20 and 22).
    Refused,
    /// When the earlier group lies in the one range of captures that V8 12.5 to 13 (Node 24)
    /// keeps per group for the alternatives before the current one. It lets through pairs
    /// the specification refuses, such as `(?<a>x)(?:y|(?<a>z))`.
    OneRange,
    /// When no match can hold both: they lie in different alternatives of a disjunction, and
    /// neither is inside the other (the specification's rule; V8 14, Node 26).
    Disjoint,
}

/// The RegExp syntax of one V8 (and one way it matches, which only its probes show).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Syntax {
    /// Modifier groups, `(?ims-ims:…)`.
    pub modifiers: bool,
    pub duplicate_names: DuplicateNames,
    /// Whether the letters ſ (U+017F), K (U+212A) and Å (U+212B) inside an `(?i:` group of a
    /// Unicode pattern match their case partners, as under the flags `ui`. V8 12.5 to 13 matches
    /// them by themselves only (found over every code point below U+20000 on Node 24).
    pub folds_in_modifiers: bool,
    /// Whether V8 words a decimal escape in a class of a Unicode pattern (`[\1]`) `Invalid
    /// decimal escape`, as V8 12.5 and later do, rather than `Invalid class escape`.
    pub decimal_escape_in_class_words_decimal: bool,
}

impl Syntax {
    /// V8 11.3 to 12.4: Node 20 and 22.
    pub const V8_11: Syntax = Syntax {
        modifiers: false,
        duplicate_names: DuplicateNames::Refused,
        folds_in_modifiers: false,
        decimal_escape_in_class_words_decimal: false,
    };
    /// V8 12.5 to 13: Node 24.
    pub const V8_13: Syntax = Syntax {
        modifiers: true,
        duplicate_names: DuplicateNames::OneRange,
        folds_in_modifiers: false,
        decimal_escape_in_class_words_decimal: true,
    };
    /// V8 14: Node 26.
    pub const V8_14: Syntax = Syntax {
        modifiers: true,
        duplicate_names: DuplicateNames::Disjoint,
        folds_in_modifiers: true,
        decimal_escape_in_class_words_decimal: true,
    };

    /// The syntax of the V8 that answered true for the probes marked true (`answers[i]` for
    /// `PROBES[i]`). Each probe decides one thing, so a V8 that mixes them differently from
    /// the known lines still gets the syntax it shows.
    pub fn from_probes(answers: [bool; 5]) -> Syntax {
        let [modifiers, duplicates, one_range, folds_in_modifiers, decimal_escape_in_class_words_decimal] =
            answers;
        Syntax {
            modifiers,
            duplicate_names: match (duplicates, one_range) {
                (false, _) => DuplicateNames::Refused,
                (true, true) => DuplicateNames::OneRange,
                (true, false) => DuplicateNames::Disjoint,
            },
            folds_in_modifiers,
            decimal_escape_in_class_words_decimal,
        }
    }
}

/// A question for the running V8 about `new RegExp(source, flags)`: whether it compiles (and,
/// given a subject, matches it), or, given a refusal, whether it throws with those words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probe {
    pub source: &'static str,
    pub flags: &'static str,
    pub subject: Option<&'static str>,
    pub refusal: Option<&'static str>,
}

/// What JavaScript asks the running V8 to tell its syntax, in the order [`Syntax::from_probes`]
/// reads the answers: a modifier group, a name in two alternatives, a pair only one range of
/// captures lets through, ſ inside an `(?i:` group against `s`, and the words for `[\1]`.
pub const PROBES: [Probe; 5] = [
    Probe {
        source: "(?i:a)",
        flags: "",
        subject: None,
        refusal: None,
    },
    Probe {
        source: "(?<a>x)|(?<a>y)",
        flags: "",
        subject: None,
        refusal: None,
    },
    Probe {
        source: "(?<a>x)(?:y|(?<a>z))",
        flags: "",
        subject: None,
        refusal: None,
    },
    Probe {
        source: "(?i:\\u017f)",
        flags: "u",
        subject: Some("s"),
        refusal: None,
    },
    Probe {
        source: "[\\1]",
        flags: "u",
        subject: None,
        refusal: Some("Invalid decimal escape"),
    },
];

/// The running syntax, as [`encode`] writes it; 0 until JavaScript has said.
static RUNNING: AtomicU8 = AtomicU8::new(0);

fn encode(syntax: Syntax) -> u8 {
    let names = match syntax.duplicate_names {
        DuplicateNames::Refused => 0,
        DuplicateNames::OneRange => 1,
        DuplicateNames::Disjoint => 2,
    };
    1 | u8::from(syntax.modifiers) << 1
        | names << 2
        | u8::from(syntax.folds_in_modifiers) << 4
        | u8::from(syntax.decimal_escape_in_class_words_decimal) << 5
}

fn decode(bits: u8) -> Syntax {
    Syntax {
        modifiers: bits & 2 != 0,
        duplicate_names: match bits >> 2 & 3 {
            0 => DuplicateNames::Refused,
            1 => DuplicateNames::OneRange,
            _ => DuplicateNames::Disjoint,
        },
        folds_in_modifiers: bits & 16 != 0,
        decimal_escape_in_class_words_decimal: bits & 32 != 0,
    }
}

/// Makes `syntax` the one every check of this process follows.
pub fn set_running(syntax: Syntax) {
    RUNNING.store(encode(syntax), Ordering::Relaxed);
}

/// The running V8's syntax; in a process no JavaScript has told (`cargo test`, a fuzz target),
/// the newest one known.
pub fn running() -> Syntax {
    match RUNNING.load(Ordering::Relaxed) {
        0 => Syntax::V8_14,
        bits => decode(bits),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_syntax_survives_the_encoding() {
        for syntax in [Syntax::V8_11, Syntax::V8_13, Syntax::V8_14] {
            assert_eq!(decode(encode(syntax)), syntax);
            assert_ne!(encode(syntax), 0);
        }
    }

    #[test]
    fn the_probes_of_each_line_name_its_syntax() {
        assert_eq!(
            Syntax::from_probes([false, false, false, false, false]),
            Syntax::V8_11
        );
        assert_eq!(
            Syntax::from_probes([true, true, true, false, true]),
            Syntax::V8_13
        );
        assert_eq!(
            Syntax::from_probes([true, true, false, true, true]),
            Syntax::V8_14
        );
    }
}

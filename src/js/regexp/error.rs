//! Why a pattern is refused: V8's own reason (its `RegExpError` words, which `new RegExp`
//! throws and Ajv passes on), or a construct V8 accepts that the engine the core matches with
//! (regress) cannot run as V8 does.

/// A reason V8 gives for refusing a pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum V8Error {
    UnterminatedGroup,
    UnmatchedParen,
    EscapeAtEndOfPattern,
    NothingToRepeat,
    /// A `{`, `}` or `]` where an atom goes (Unicode mode).
    LoneQuantifierBrackets,
    /// A `{` after an atom that does not start a quantifier (Unicode mode).
    IncompleteQuantifier,
    /// `{n,m}` with m < n.
    QuantifierOutOfOrder,
    InvalidQuantifier,
    InvalidGroup,
    MultipleFlagDashes,
    RepeatedFlag,
    InvalidFlagGroup,
    TooManyCaptures,
    InvalidCaptureGroupName,
    DuplicateCaptureGroupName,
    InvalidNamedReference,
    InvalidNamedCaptureReferenced,
    InvalidUnicodeEscape,
    InvalidEscape,
    InvalidDecimalEscape,
    InvalidClassEscape,
    InvalidPropertyName,
    InvalidClassPropertyName,
    /// A range with a class escape at an end (Unicode mode).
    InvalidCharacterClass,
    UnterminatedCharacterClass,
    /// `[b-a]`.
    ClassRangeOutOfOrder,
}

impl V8Error {
    /// V8's words for it.
    pub fn message(self) -> &'static str {
        match self {
            V8Error::UnterminatedGroup => "Unterminated group",
            V8Error::UnmatchedParen => "Unmatched ')'",
            V8Error::EscapeAtEndOfPattern => "\\ at end of pattern",
            V8Error::NothingToRepeat => "Nothing to repeat",
            V8Error::LoneQuantifierBrackets => "Lone quantifier brackets",
            V8Error::IncompleteQuantifier => "Incomplete quantifier",
            V8Error::QuantifierOutOfOrder => "numbers out of order in {} quantifier",
            V8Error::InvalidQuantifier => "Invalid quantifier",
            V8Error::InvalidGroup => "Invalid group",
            V8Error::MultipleFlagDashes => "Multiple dashes in flag group",
            V8Error::RepeatedFlag => "Repeated flag in flag group",
            V8Error::InvalidFlagGroup => "Invalid flag group",
            V8Error::TooManyCaptures => "Too many captures",
            V8Error::InvalidCaptureGroupName => "Invalid capture group name",
            V8Error::DuplicateCaptureGroupName => "Duplicate capture group name",
            V8Error::InvalidNamedReference => "Invalid named reference",
            V8Error::InvalidNamedCaptureReferenced => "Invalid named capture referenced",
            V8Error::InvalidUnicodeEscape => "Invalid Unicode escape",
            V8Error::InvalidEscape => "Invalid escape",
            V8Error::InvalidDecimalEscape => "Invalid decimal escape",
            V8Error::InvalidClassEscape => "Invalid class escape",
            V8Error::InvalidPropertyName => "Invalid property name",
            V8Error::InvalidClassPropertyName => "Invalid property name in character class",
            V8Error::InvalidCharacterClass => "Invalid character class",
            V8Error::UnterminatedCharacterClass => "Unterminated character class",
            V8Error::ClassRangeOutOfOrder => "Range out of order in character class",
        }
    }
}

/// A construct the running V8 accepts and matches in a way regress does not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unsupported {
    /// Two groups of one name that V8 12.5 to 13 lets stand although one match can hold both
    /// (regress refuses them, as the specification does).
    OverlappingDuplicateNames(String),
    /// `\k<name>` where groups of that name repeat: V8 refers to the one that took part,
    /// regress does not.
    BackreferenceToDuplicateName(String),
    /// `\w` or `\W` after a modifier group that changes `i`, before the next group opens: V8
    /// reads it with that group's case rule (ſ and K are word characters only under `i`).
    WordClassAfterCaseModifier(char),
    /// ſ, K (U+212A) or Å (U+212B) inside an `(?i:` group, which V8 12.5 to 13 matches by
    /// itself only (see `Syntax::folds_in_modifiers`).
    UnfoldedLetterInModifierGroup(char),
    /// A letter with a case partner reached only by case folding (k and K, say), after a
    /// property escape in the same `(?i:` group: V8 matches it without that partner.
    LetterAfterPropertyInModifierGroup(char),
    /// A backreference inside a negative lookaround: V8 tries a match starting inside a
    /// surrogate pair, where the backreference fails and so the lookaround holds; regress
    /// starts a match only between characters.
    BackreferenceInNegativeLookaround,
    /// Anything else regress cannot read (its reason).
    Unreadable(String),
}

impl Unsupported {
    /// The construct, named for the error that refuses it.
    pub fn describe(&self) -> String {
        match self {
            Unsupported::OverlappingDuplicateNames(name) => {
                format!("two groups named {name} that one match can hold both of")
            }
            Unsupported::BackreferenceToDuplicateName(name) => {
                format!("\\k<{name}>, a backreference to a group name used more than once")
            }
            Unsupported::WordClassAfterCaseModifier(c) => format!(
                "\\{c} after a modifier group that changes the i flag (V8 reads it with that group's flag)"
            ),
            Unsupported::UnfoldedLetterInModifierGroup(c) => format!(
                "{c} (U+{:04X}) inside a modifier group that sets the i flag (this V8 matches it by itself only)",
                u32::from(*c)
            ),
            Unsupported::LetterAfterPropertyInModifierGroup(c) => format!(
                "{c} after a property escape inside a modifier group that sets the i flag (V8 does not match all its case partners there)"
            ),
            Unsupported::BackreferenceInNegativeLookaround => {
                "a backreference inside a negative lookaround (V8 also tries a match starting inside a surrogate pair, where it fails)".to_owned()
            }
            Unsupported::Unreadable(reason) => format!("regress cannot read it ({reason})"),
        }
    }
}

/// Why a pattern does not compile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatternError {
    /// `new RegExp` throws, with this reason.
    V8(String),
    /// V8 compiles it; the engine here cannot match it as V8 does.
    Unsupported(Unsupported),
}

impl From<V8Error> for PatternError {
    fn from(error: V8Error) -> Self {
        PatternError::V8(error.message().to_owned())
    }
}

//! A syntax check of JavaScript regular expressions as V8 parses `new RegExp(pattern)` without
//! flags: the non-Unicode grammar with the web-compatibility extensions of Annex B (identity
//! escapes, `\c` as a literal backslash, legacy octal escapes, lone `{` `}` `]`, quantifiable
//! lookaheads, `\k` as a literal when there is no named group), and V8's reason when it throws.
//!
//! This is a hand-written parser rather than regress: regress (without flags) disagrees with V8
//! on about 1 in 1700 random patterns, e.g. it accepts a quantified `\b` or `\B` (`\b+`) and
//! reads `[😀-😁]` as code points. It mirrors V8's `RegExpParserImpl` decision by decision, but
//! keeps only what decides whether the constructor throws, and with which reason (the first V8
//! meets):
//! * `Nothing to repeat` (a quantifier after nothing, an assertion `^ $ \b \B`, `|`, `(`, or
//!   another quantifier; a full `{n}`/`{n,}`/`{n,m}` in atom position), `numbers out of order
//!   in {} quantifier`, `Invalid quantifier` (a quantified lookbehind);
//! * `Unterminated group`, `Unmatched ')'`, `\ at end of pattern`, how a group opens and how
//!   many captures there may be (`groups.rs`: modifier groups where the running V8 has them);
//! * `Unterminated character class`, `Range out of order in character class` (class atoms are
//!   UTF-16 code units, so `[😀-😁]` is out of order; a range with `\d`-like ends is literal);
//! * group names and their duplicates (`groups.rs`), and when the pattern has a named group
//!   anywhere: `\k` must be `\k<name>` naming an existing group, and `\k` inside a class is an
//!   `Invalid escape`.
//!
//! V8, not the specification, is the reference. Known places where V8 (and so this parser)
//! departs from ECMAScript: an escaped `>` (`\u003e`, `\u{3e}`) ends a group name where the
//! specification throws, the limit of 32767 capture groups, and V8 12.5 to 13's rule for
//! duplicate names.

use super::error::V8Error;
use super::groups::{
    count_captures, group_name, hex4, hex_value, opening, unit, Groups, Opening, END,
};
use super::respell::Respelled;
use super::syntax::Syntax;

/// What a pattern V8 accepts holds that regress does not match as V8 does.
#[derive(Debug, Default)]
pub struct Hazards {
    /// A name [`Groups`] let stand twice where the specification would not.
    pub overlapping: Option<Vec<u32>>,
    /// A `\k<name>` whose name repeats.
    pub duplicate_reference: Option<Vec<u32>>,
    /// The pattern written so that regress reads it as V8 does, where it would not read the
    /// source so: an identity escape `\u`, `\x` (`\u{2}` is `u{2}` to V8, a code point to
    /// regress) or a `\c` that is a literal backslash, written out.
    pub for_regress: Option<String>,
}

/// Why `new RegExp(pattern)` (no flags) throws in a V8 of `syntax`, if it does; else what in it
/// regress would not match as V8 does.
pub fn check(pattern: &str, syntax: Syntax) -> Result<Hazards, V8Error> {
    let units: Vec<u16> = pattern.encode_utf16().collect();
    let mut parser = Parser {
        has_named_captures: scan_for_named_captures(&units),
        capture_count: count_captures(&units),
        units,
        pos: 0,
        syntax,
        groups: Groups::new(syntax.duplicate_names),
        references: Vec::new(),
        spelled: Respelled::default(),
    };
    parser.parse()
}

/// V8's `ScanForCaptures` as far as it decides `has_named_captures_`: a `(?<` that is not
/// `(?<=`/`(?<!`, outside escapes and character classes.
fn scan_for_named_captures(units: &[u16]) -> bool {
    let at = |i: usize| unit(units, i);
    let mut i = 0;
    while i < units.len() {
        let c = at(i);
        i += 1;
        if c == u32::from(b'\\') {
            i += 1;
        } else if c == u32::from(b'[') {
            while i < units.len() {
                let c = at(i);
                i += 1;
                if c == u32::from(b'\\') {
                    i += 1;
                } else if c == u32::from(b']') {
                    break;
                }
            }
        } else if c == u32::from(b'(') && at(i) == u32::from(b'?') {
            i += 1;
            if at(i) != u32::from(b'<') {
                continue;
            }
            i += 1;
            if at(i) == u32::from(b'=') || at(i) == u32::from(b'!') {
                continue;
            }
            return true;
        }
    }
    false
}

/// A class atom: one code unit (or escaped value), or a class escape (`\d` …).
#[derive(Clone, Copy)]
enum ClassAtom {
    Char(u32),
    Class,
}

struct Parser {
    units: Vec<u16>,
    pos: usize,
    has_named_captures: bool,
    syntax: Syntax,
    groups: Groups,
    /// Names used by `\k<…>`.
    references: Vec<Vec<u32>>,
    /// How many captures the whole pattern has (V8's `ScanForCaptures`).
    capture_count: usize,
    /// Pieces of the source (start, end, in code units) regress must be given otherwise.
    spelled: Respelled,
}

type Parsed<T> = Result<T, V8Error>;

impl Parser {
    fn at(&self, i: usize) -> u32 {
        unit(&self.units, i)
    }

    fn cur(&self) -> u32 {
        self.at(self.pos)
    }

    fn is(&self, i: usize, c: u8) -> bool {
        self.at(i) == u32::from(c)
    }

    /// `ParseDisjunction` for the whole pattern; the open groups are in `groups`.
    fn parse(&mut self) -> Parsed<Hazards> {
        loop {
            let c = self.cur();
            let mut atom_is_lookbehind = false;
            if c == END {
                if self.groups.inside_group() {
                    return Err(V8Error::UnterminatedGroup);
                }
                break;
            }
            match char::from_u32(c) {
                Some(')') => {
                    let closed = self.groups.close().ok_or(V8Error::UnmatchedParen)??;
                    atom_is_lookbehind = closed.lookbehind;
                    self.pos += 1;
                }
                Some('|') => {
                    self.groups.alternative();
                    self.pos += 1;
                    continue;
                }
                Some('^' | '$') => {
                    self.pos += 1;
                    continue;
                }
                Some('*' | '+' | '?') => return Err(V8Error::NothingToRepeat),
                Some('(') => {
                    self.open_group()?;
                    continue;
                }
                Some('[') => self.class()?,
                Some('\\') => match char::from_u32(self.at(self.pos + 1)) {
                    _ if self.at(self.pos + 1) == END => return Err(V8Error::EscapeAtEndOfPattern),
                    Some('b' | 'B') => {
                        self.pos += 2;
                        continue;
                    }
                    Some('k') if self.has_named_captures => {
                        self.pos += 2;
                        if !self.is(self.pos, b'<') {
                            return Err(V8Error::InvalidNamedReference);
                        }
                        let (name, end) = group_name(&self.units, self.pos + 1)?;
                        // One that can only match the empty string regress reads otherwise
                        // without `u`.
                        if self.groups.name_refers_to_nothing(&name) {
                            self.spelled.push((self.pos - 2, end, "(?:)"));
                        }
                        self.pos = end;
                        self.references.push(name);
                    }
                    Some('1'..='9') => self.decimal_escape(),
                    // Every other escape is an atom that cannot throw without `u`:
                    // backreference or legacy octal, identity escape, `\cX` or a literal
                    // backslash before `c`, `\x`/`\u` with or without hex digits. What
                    // follows the escape character is read as plain characters again,
                    // which gives the same validity. (None: an escaped surrogate.)
                    Some(escaped) => {
                        self.spell_escape(escaped);
                        self.pos += 2;
                    }
                    None => self.pos += 2,
                },
                Some('{') => {
                    if self.interval_quantifier().is_some() {
                        return Err(V8Error::NothingToRepeat);
                    }
                    self.pos += 1;
                }
                _ => self.pos += 1,
            }
            // A quantifier after the atom.
            match char::from_u32(self.cur()) {
                Some('*' | '+' | '?') => self.pos += 1,
                Some('{') => match self.interval_quantifier() {
                    Some((min, max)) => {
                        if max < min {
                            return Err(V8Error::QuantifierOutOfOrder);
                        }
                    }
                    None => continue,
                },
                _ => continue,
            }
            if self.is(self.pos, b'?') {
                self.pos += 1;
            }
            if atom_is_lookbehind {
                return Err(V8Error::InvalidQuantifier);
            }
        }
        // `PatchNamedBackReferences`, once the whole pattern is read.
        if self.references.iter().any(|r| !self.groups.has_name(r)) {
            return Err(V8Error::InvalidNamedCaptureReferenced);
        }
        Ok(Hazards {
            for_regress: self.for_regress(),
            overlapping: self.groups.overlapping.take(),
            duplicate_reference: self
                .references
                .iter()
                .find(|r| self.groups.is_duplicated(r))
                .cloned(),
        })
    }

    /// `ParseOpenParenthesis` at `(`.
    fn open_group(&mut self) -> Parsed<()> {
        let (opening, end) = opening(&self.units, self.pos, self.syntax.modifiers)?;
        self.pos = end;
        let name = match opening {
            Opening::Capture => {
                self.groups.count_capture()?;
                None
            }
            Opening::NamedCapture => {
                self.groups.count_capture()?;
                let (name, end) = group_name(&self.units, self.pos)?;
                self.pos = end;
                Some(name)
            }
            Opening::Group(_) | Opening::Lookahead | Opening::Lookbehind => None,
        };
        self.groups.open(opening, name);
        Ok(())
    }

    /// `ParseIntervalQuantifier` at `{`: on success moves past `}` and returns (min, max),
    /// each clamped to `RegExpTree::kInfinity` (2^31 - 1); otherwise leaves `pos` alone.
    fn interval_quantifier(&mut self) -> Option<(u64, u64)> {
        const INFINITY: u64 = i32::MAX as u64;
        let digits = |p: &Self, mut i: usize| -> (u64, usize) {
            let mut v: u64 = 0;
            while let Some(d) = char::from_u32(p.at(i)).and_then(|c| c.to_digit(10)) {
                v = (v * 10 + u64::from(d)).min(INFINITY + 1);
                i += 1;
            }
            (v.min(INFINITY), i)
        };
        let start = self.pos + 1;
        if !char::from_u32(self.at(start)).is_some_and(|c| c.is_ascii_digit()) {
            return None;
        }
        let (min, i) = digits(self, start);
        let (max, end) = if self.is(i, b'}') {
            (min, i + 1)
        } else if self.is(i, b',') {
            if self.is(i + 1, b'}') {
                (INFINITY, i + 2)
            } else {
                let (max, j) = digits(self, i + 1);
                if !self.is(j, b'}') {
                    return None;
                }
                (max, j + 1)
            }
        } else {
            return None;
        };
        self.pos = end;
        Some((min, max))
    }

    /// `ParseCharacterClass` at `[` (non-Unicode `ParseClassRanges`).
    fn class(&mut self) -> Parsed<()> {
        self.pos += 1;
        if self.is(self.pos, b'^') {
            self.pos += 1;
        }
        loop {
            if self.cur() == END {
                return Err(V8Error::UnterminatedCharacterClass);
            }
            if self.is(self.pos, b']') {
                self.pos += 1;
                return Ok(());
            }
            let first = self.class_atom()?;
            if self.is(self.pos, b'-') {
                self.pos += 1;
                if self.cur() == END {
                    return Err(V8Error::UnterminatedCharacterClass);
                }
                if self.is(self.pos, b']') {
                    self.pos += 1;
                    return Ok(());
                }
                let second = self.class_atom()?;
                if let (ClassAtom::Char(a), ClassAtom::Char(b)) = (first, second) {
                    if a > b {
                        return Err(V8Error::ClassRangeOutOfOrder);
                    }
                }
            }
        }
    }

    /// `ParseClassEscape` (or a plain code unit) inside a class.
    fn class_atom(&mut self) -> Parsed<ClassAtom> {
        let c = self.cur();
        if c != u32::from(b'\\') {
            self.pos += 1;
            return Ok(ClassAtom::Char(c));
        }
        let next = self.at(self.pos + 1);
        if next == END {
            return Err(V8Error::EscapeAtEndOfPattern);
        }
        // An escaped surrogate code unit is an identity escape (`_` arm below).
        let escaped = char::from_u32(next).unwrap_or('\u{FFFD}');
        let value = match escaped {
            'b' => {
                self.pos += 2;
                0x08
            }
            'd' | 'D' | 's' | 'S' | 'w' | 'W' => {
                self.pos += 2;
                return Ok(ClassAtom::Class);
            }
            'f' | 'n' | 'r' | 't' | 'v' => {
                self.pos += 2;
                match escaped {
                    'f' => 0x0C,
                    'n' => 0x0A,
                    'r' => 0x0D,
                    't' => 0x09,
                    _ => 0x0B,
                }
            }
            'c' => {
                let control = self.at(self.pos + 2);
                let letter = control & !0x20;
                let is_letter = (u32::from(b'A')..=u32::from(b'Z')).contains(&letter);
                let is_class_control = (u32::from(b'0')..=u32::from(b'9')).contains(&control)
                    || control == u32::from(b'_');
                if is_letter || is_class_control {
                    self.pos += 3;
                    control & 0x1F
                } else {
                    // A literal backslash; the `c` is read next.
                    self.spelled.push((self.pos, self.pos + 1, "\\\\"));
                    self.pos += 1;
                    u32::from(b'\\')
                }
            }
            '0' if !char::from_u32(self.at(self.pos + 2)).is_some_and(|d| d.is_ascii_digit()) => {
                self.pos += 2;
                0
            }
            '0'..='7' => {
                self.pos += 1;
                self.octal()
            }
            'x' => match (
                hex_value(self.at(self.pos + 2)),
                hex_value(self.at(self.pos + 3)),
            ) {
                (Some(h), Some(l)) => {
                    self.pos += 4;
                    h * 16 + l
                }
                _ => {
                    self.spelled.push((self.pos, self.pos + 1, ""));
                    self.pos += 2;
                    u32::from(b'x')
                }
            },
            'u' => match hex4(&self.units, self.pos + 2) {
                Some(v) => {
                    self.pos += 6;
                    v
                }
                None => {
                    self.spelled.push((self.pos, self.pos + 1, ""));
                    self.pos += 2;
                    u32::from(b'u')
                }
            },
            'k' if self.has_named_captures => return Err(V8Error::InvalidEscape),
            _ => {
                self.pos += 2;
                next
            }
        };
        Ok(ClassAtom::Char(value))
    }

    /// Notes how regress must be given the atom escape `\<escaped>` at `pos`, outside a class.
    fn spell_escape(&mut self, escaped: char) {
        let hex = |p: &Self, i: usize| hex_value(p.at(i)).is_some();
        let spelled = match escaped {
            'u' if hex4(&self.units, self.pos + 2).is_none() => "",
            'x' if !hex(self, self.pos + 2) || !hex(self, self.pos + 3) => "",
            'c' if !char::from_u32(self.at(self.pos + 2))
                .is_some_and(|c| c.is_ascii_alphabetic()) =>
            {
                "\\\\"
            }
            _ => return,
        };
        self.spelled.push((self.pos, self.pos + 1, spelled));
    }

    /// `\1` to `\9…` at `pos`: a backreference where the pattern has that many captures
    /// (`ParseBackReferenceIndex`), else an octal or identity escape. One that can only match
    /// the empty string (`Groups::refers_to_nothing`) regress reads otherwise without `u`.
    fn decimal_escape(&mut self) {
        const MAX_CAPTURES: usize = 1 << 16;
        let mut end = self.pos + 1;
        let mut value = 0;
        while let Some(d) = char::from_u32(self.at(end)).and_then(|c| c.to_digit(10)) {
            value = value * 10 + d as usize;
            if value > MAX_CAPTURES {
                break;
            }
            end += 1;
        }
        if value <= self.capture_count && self.groups.refers_to_nothing(value) {
            self.spelled.push((self.pos, end, "(?:)"));
            self.pos = end;
        } else {
            self.pos += 2;
        }
    }

    /// The source with [`Parser::spelled`] applied, if anything is.
    fn for_regress(&self) -> Option<String> {
        self.spelled.apply(&self.units)
    }

    /// `ParseOctalLiteral` at the first digit: up to three octal digits below 256.
    fn octal(&mut self) -> u32 {
        let octal_digit = |u: u32| (u32::from(b'0')..=u32::from(b'7')).contains(&u);
        let mut value = self.cur() - u32::from(b'0');
        self.pos += 1;
        if octal_digit(self.cur()) {
            value = value * 8 + self.cur() - u32::from(b'0');
            self.pos += 1;
            if value < 32 && octal_digit(self.cur()) {
                value = value * 8 + self.cur() - u32::from(b'0');
                self.pos += 1;
            }
        }
        value
    }
}

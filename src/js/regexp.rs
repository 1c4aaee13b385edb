//! A syntax check of JavaScript regular expressions as V8 11.3 (Node 20) parses
//! `new RegExp(pattern)` without flags: the non-Unicode grammar with the web-compatibility
//! extensions of Annex B (identity escapes, `\c` as a literal backslash, legacy octal escapes,
//! lone `{` `}` `]`, quantifiable lookaheads, `\k` as a literal when there is no named group).
//!
//! This is a hand-written parser rather than regress: regress (without flags) disagrees with V8
//! on about 1 in 1700 random patterns, e.g. it accepts a quantified `\b` or `\B` (`\b+`) and
//! reads `[😀-😁]` as code points. It mirrors V8's `RegExpParserImpl` decision by decision, but keeps only
//! what decides whether the constructor throws:
//! * `Nothing to repeat` (a quantifier after nothing, an assertion `^ $ \b \B`, `|`, `(`, or
//!   another quantifier; a full `{n}`/`{n,}`/`{n,m}` in atom position), `numbers out of order
//!   in {} quantifier`, `Invalid quantifier` (a quantified lookbehind);
//! * `Unterminated group`, `Unmatched ')'`, `Invalid group` (`(?` not followed by `:`, `=`, `!`,
//!   `<=`, `<!` or a group name: no modifiers in V8 11.3), `Too many captures` (more than 32767,
//!   measured on Node 20), `\ at end of pattern`;
//! * `Unterminated character class`, `Range out of order in character class` (class atoms are
//!   UTF-16 code units, so `[😀-😁]` is out of order; a range with `\d`-like ends is literal);
//! * group names (`RegExpIdentifierName`: ID_Start / ID_Continue of Unicode 17, `$`, `_`,
//!   ZWNJ/ZWJ, surrogate pairs and `\u` escapes including `\u{…}`; an escaped `>` ends the name
//!   as in V8), `Duplicate capture group name` (V8 11.3 has no duplicate named groups), and
//!   when the pattern has a named group anywhere: `\k` must be `\k<name>` naming an existing
//!   group, and `\k` inside a class is an `Invalid escape`.
//!
//! V8, not the specification, is the reference. Known places where V8 (and so this parser)
//! departs from ECMAScript: an escaped `>` (`\u003e`, `\u{3e}`) ends a group name where the
//! specification throws, and the limit of 32767 capture groups.

use std::sync::LazyLock;

use regress::Regex;

use super::utf16::{combine_surrogates, is_lead_surrogate, is_trail_surrogate};

fn compile(pattern: &str, flags: &str) -> Regex {
    Regex::with_flags(pattern, flags).expect("a constant regular expression compiles in regress")
}

/// Past the end of the pattern (V8's `kEndMarker`).
const END: u32 = u32::MAX;
/// The largest number of capture groups V8 11.3 accepts (more throw `Too many captures`).
const MAX_CAPTURES: usize = 32_767;

static ID_START: LazyLock<Regex> = LazyLock::new(|| compile(r"^[$_\p{ID_Start}]$", "u"));
static ID_PART: LazyLock<Regex> =
    LazyLock::new(|| compile(r"^[$_\u200C\u200D\p{ID_Continue}]$", "u"));

/// V8's `IsIdentifierStart` (with ICU): ASCII letters, `$`, `_`, or Unicode ID_Start.
fn is_identifier_start(c: u32) -> bool {
    match char::from_u32(c) {
        Some(ch) if ch.is_ascii() => ch.is_ascii_alphabetic() || ch == '$' || ch == '_',
        Some(ch) => ID_START.find(ch.encode_utf8(&mut [0; 4])).is_some(),
        None => false,
    }
}

/// V8's `IsIdentifierPart`: ASCII letters, digits, `$`, `_`, or Unicode ID_Continue, ZWNJ,
/// ZWJ.
fn is_identifier_part(c: u32) -> bool {
    match char::from_u32(c) {
        Some(ch) if ch.is_ascii() => ch.is_ascii_alphanumeric() || ch == '$' || ch == '_',
        Some(ch) => ID_PART.find(ch.encode_utf8(&mut [0; 4])).is_some(),
        None => false,
    }
}

fn hex_value(u: u32) -> Option<u32> {
    char::from_u32(u)?.to_digit(16)
}

/// Whether `new RegExp(pattern)` (no flags) would not throw in Node 20.
pub fn is_valid_pattern(pattern: &str) -> bool {
    let units: Vec<u16> = pattern.encode_utf16().collect();
    let mut parser = Parser {
        has_named_captures: scan_for_named_captures(&units),
        units,
        pos: 0,
        captures: 0,
        names: Vec::new(),
        references: Vec::new(),
    };
    parser.parse().is_some()
}

/// V8's `ScanForCaptures` as far as it decides `has_named_captures_`: a `(?<` that is not
/// `(?<=`/`(?<!`, outside escapes and character classes.
fn scan_for_named_captures(units: &[u16]) -> bool {
    let at = |i: usize| units.get(i).map_or(END, |&u| u32::from(u));
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
    captures: usize,
    /// Names of the named groups, in order (code points).
    names: Vec<Vec<u32>>,
    /// Names used by `\k<…>`.
    references: Vec<Vec<u32>>,
}

/// A `Some(())`/`None` early exit used for "throws".
type Parsed<T> = Option<T>;

impl Parser {
    fn at(&self, i: usize) -> u32 {
        self.units.get(i).map_or(END, |&u| u32::from(u))
    }

    fn cur(&self) -> u32 {
        self.at(self.pos)
    }

    fn is(&self, i: usize, c: u8) -> bool {
        self.at(i) == u32::from(c)
    }

    /// `ParseDisjunction` for the whole pattern, with an explicit group stack.
    fn parse(&mut self) -> Parsed<()> {
        // For each open group: whether it is a lookbehind.
        let mut groups: Vec<bool> = Vec::new();
        loop {
            let c = self.cur();
            let mut atom_is_lookbehind = false;
            if c == END {
                if !groups.is_empty() {
                    return None; // Unterminated group
                }
                break;
            }
            match char::from_u32(c) {
                Some(')') => {
                    atom_is_lookbehind = groups.pop()?; // None: Unmatched ')'
                    self.pos += 1;
                }
                Some('|' | '^' | '$') => {
                    self.pos += 1;
                    continue;
                }
                Some('*' | '+' | '?') => return None, // Nothing to repeat
                Some('(') => {
                    let is_lookbehind = self.open_group()?;
                    groups.push(is_lookbehind);
                    continue;
                }
                Some('[') => self.class()?,
                Some('\\') => match char::from_u32(self.at(self.pos + 1)) {
                    _ if self.at(self.pos + 1) == END => return None, // \ at end of pattern
                    Some('b' | 'B') => {
                        self.pos += 2;
                        continue;
                    }
                    Some('k') if self.has_named_captures => {
                        self.pos += 2;
                        if !self.is(self.pos, b'<') {
                            return None; // Invalid named reference
                        }
                        self.pos += 1;
                        let name = self.group_name()?;
                        self.references.push(name);
                    }
                    // Every other escape is an atom that cannot throw without `u`:
                    // backreference or legacy octal, identity escape, `\cX` or a literal
                    // backslash before `c`, `\x`/`\u` with or without hex digits. What
                    // follows the escape character is read as plain characters again,
                    // which gives the same validity. (None: an escaped surrogate.)
                    Some(_) | None => self.pos += 2,
                },
                Some('{') => {
                    if self.interval_quantifier().is_some() {
                        return None; // Nothing to repeat
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
                            return None; // numbers out of order in {} quantifier
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
                return None; // Invalid quantifier
            }
        }
        for (i, name) in self.names.iter().enumerate() {
            if self.names[..i].contains(name) {
                return None; // Duplicate capture group name
            }
        }
        if self.references.iter().any(|r| !self.names.contains(r)) {
            return None; // Invalid named capture referenced
        }
        Some(())
    }

    /// `ParseOpenParenthesis` at `(`: returns whether the group is a lookbehind.
    fn open_group(&mut self) -> Parsed<bool> {
        if !self.is(self.pos + 1, b'?') {
            self.pos += 1;
            self.add_capture()?;
            return Some(false);
        }
        match char::from_u32(self.at(self.pos + 2)) {
            Some(':' | '=' | '!') => {
                self.pos += 3;
                Some(false)
            }
            Some('<') => {
                if self.is(self.pos + 3, b'=') || self.is(self.pos + 3, b'!') {
                    self.pos += 4;
                    return Some(true);
                }
                self.pos += 3;
                self.add_capture()?;
                let name = self.group_name()?;
                self.names.push(name);
                Some(false)
            }
            _ => None, // Invalid group
        }
    }

    fn add_capture(&mut self) -> Parsed<()> {
        if self.captures >= MAX_CAPTURES {
            return None; // Too many captures
        }
        self.captures += 1;
        Some(())
    }

    /// `ParseCaptureGroupName` from the first character after `<`, through the `>`.
    /// Reads code points (surrogate pairs combine, as V8 forces Unicode mode here).
    fn group_name(&mut self) -> Parsed<Vec<u32>> {
        let mut name = Vec::new();
        loop {
            let mut c = self.cur();
            let mut next = self.pos + 1;
            if is_lead_surrogate(c) && is_trail_surrogate(self.at(next)) {
                c = combine_surrogates(c, self.at(next));
                next += 1;
            }
            // Convert unicode escapes.
            if c == u32::from(b'\\') && self.is(self.pos + 1, b'u') {
                let (value, end) = self.unicode_escape(self.pos + 2)?; // Invalid Unicode escape
                c = value;
                next = end;
            }
            // The backslash char is misclassified as both ID_Start and ID_Continue.
            if c == u32::from(b'\\') {
                return None;
            }
            if name.is_empty() {
                if !is_identifier_start(c) {
                    return None; // Invalid capture group name
                }
                name.push(c);
            } else if c == u32::from(b'>') {
                self.pos = next;
                return Some(name);
            } else if is_identifier_part(c) {
                name.push(c);
            } else {
                return None; // Invalid capture group name
            }
            self.pos = next;
        }
    }

    /// `ParseUnicodeEscape` in Unicode mode, after `\u` (at `i`): `{hex…}` up to 0x10FFFF,
    /// or four hex digits, a lead surrogate combining with an escaped trail surrogate.
    fn unicode_escape(&self, i: usize) -> Option<(u32, usize)> {
        if self.is(i, b'{') {
            let mut j = i + 1;
            let mut value: u32 = 0;
            while let Some(d) = hex_value(self.at(j)) {
                value = value * 16 + d;
                if value > 0x10FFFF {
                    return None;
                }
                j += 1;
            }
            if j == i + 1 || !self.is(j, b'}') {
                return None;
            }
            return Some((value, j + 1));
        }
        let lead = self.hex4(i)?;
        if is_lead_surrogate(lead) && self.is(i + 4, b'\\') && self.is(i + 5, b'u') {
            if let Some(trail) = self.hex4(i + 6) {
                if is_trail_surrogate(trail) {
                    return Some((combine_surrogates(lead, trail), i + 10));
                }
            }
        }
        Some((lead, i + 4))
    }

    fn hex4(&self, i: usize) -> Option<u32> {
        (i..i + 4).try_fold(0, |acc, j| Some(acc * 16 + hex_value(self.at(j))?))
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
                return None; // Unterminated character class
            }
            if self.is(self.pos, b']') {
                self.pos += 1;
                return Some(());
            }
            let first = self.class_atom()?;
            if self.is(self.pos, b'-') {
                self.pos += 1;
                if self.cur() == END {
                    return None; // Unterminated character class
                }
                if self.is(self.pos, b']') {
                    self.pos += 1;
                    return Some(());
                }
                let second = self.class_atom()?;
                if let (ClassAtom::Char(a), ClassAtom::Char(b)) = (first, second) {
                    if a > b {
                        return None; // Range out of order in character class
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
            return Some(ClassAtom::Char(c));
        }
        let next = self.at(self.pos + 1);
        if next == END {
            return None; // \ at end of pattern
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
                return Some(ClassAtom::Class);
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
                    self.pos += 2;
                    u32::from(b'x')
                }
            },
            'u' => match self.hex4(self.pos + 2) {
                Some(v) => {
                    self.pos += 6;
                    v
                }
                None => {
                    self.pos += 2;
                    u32::from(b'u')
                }
            },
            'k' if self.has_named_captures => return None, // Invalid escape
            _ => {
                self.pos += 2;
                next
            }
        };
        Some(ClassAtom::Char(value))
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

/// V8's words for a regular expression it refuses, from the regex engine's (`new RegExp`
/// throws them and Ajv passes them on); an error without a known counterpart keeps its own text.
pub fn v8_error_reason(source: &str, reason: &str) -> String {
    let reversed_braces = source.split('{').skip(1).any(|rest| {
        let inner = rest.split('}').next().unwrap_or("");
        match inner.split_once(',') {
            Some((lo, hi)) => {
                matches!((lo.parse::<u64>(), hi.parse::<u64>()), (Ok(lo), Ok(hi)) if lo > hi)
            }
            None => false,
        }
    });
    if reversed_braces
        && matches!(
            reason,
            "Invalid quantifier" | "Invalid braced quantifier" | "Invalid atom character"
        )
    {
        return "numbers out of order in {} quantifier".into();
    }
    let opened = source.matches('(').count();
    let closed = source.matches(')').count();
    let v8 = match reason {
        "Unbalanced parenthesis" if opened > closed => "Unterminated group",
        "Unbalanced parenthesis" => "Unmatched ')'",
        "Unbalanced bracket" => "Unterminated character class",
        "Range values reversed, start char code is greater than end char code."
        | "Invalid character range" => "Range out of order in character class",
        "Invalid atom character" | "Invalid quantifier" | "Quantifier not allowed here" => {
            "Nothing to repeat"
        }
        "Invalid braced quantifier" => "Incomplete quantifier",
        "Invalid character escape" | "Invalid unicode escape" | "Incomplete escape" => {
            "Invalid escape"
        }
        "Unterminated escape" => "\\ at end of pattern",
        "Invalid property name"
        | "Invalid property escape"
        | "Invalid character at property escape start" => "Invalid property name",
        "Duplicate capture group name" => "Duplicate capture group name",
        "Invalid token at named capture group identifier" => "Invalid capture group name",
        "Invalid named backreference syntax" => "Invalid named reference",
        other if other.starts_with("Backreference to invalid named capture group") => {
            "Invalid named capture referenced"
        }
        other => other,
    };
    v8.to_owned()
}

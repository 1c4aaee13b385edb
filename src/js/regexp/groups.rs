//! What V8 decides about groups, the same with and without the `u` flag: how a group opens
//! (`(?:`, lookarounds, a named capture, a modifier group), a group's name, the number of
//! captures, and which duplicate names stand under each [`DuplicateNames`] rule (V8's
//! `RegExpParserState` bookkeeping of the captures in other alternatives).

use std::sync::LazyLock;

use regress::Regex;

use super::error::V8Error;
use super::syntax::DuplicateNames;
use crate::js::utf16::{combine_surrogates, is_lead_surrogate, is_trail_surrogate};

/// Past the end of the pattern (V8's `kEndMarker`).
pub(super) const END: u32 = u32::MAX;
/// The largest number of capture groups V8 accepts (more throw `Too many captures`).
const MAX_CAPTURES: usize = 32_767;

/// The code unit at `i`, or [`END`].
pub(super) fn unit(units: &[u16], i: usize) -> u32 {
    units.get(i).map_or(END, |&u| u32::from(u))
}

fn is(units: &[u16], i: usize, c: u8) -> bool {
    unit(units, i) == u32::from(c)
}

fn compile(pattern: &str) -> Regex {
    Regex::with_flags(pattern, "u").expect("a constant regular expression compiles in regress")
}

static ID_START: LazyLock<Regex> = LazyLock::new(|| compile(r"^[$_\p{ID_Start}]$"));
static ID_PART: LazyLock<Regex> = LazyLock::new(|| compile(r"^[$_\u200C\u200D\p{ID_Continue}]$"));

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

pub(super) fn hex_value(u: u32) -> Option<u32> {
    char::from_u32(u)?.to_digit(16)
}

pub(super) fn hex4(units: &[u16], i: usize) -> Option<u32> {
    (i..i + 4).try_fold(0, |acc, j| Some(acc * 16 + hex_value(unit(units, j))?))
}

/// `ParseUnicodeEscape` in Unicode mode, after `\u` (at `i`): `{hex…}` up to 0x10FFFF, or four
/// hex digits, a lead surrogate combining with an escaped trail surrogate. The value and the
/// index past it.
pub(super) fn unicode_escape(units: &[u16], i: usize) -> Option<(u32, usize)> {
    if is(units, i, b'{') {
        let mut j = i + 1;
        let mut value: u32 = 0;
        while let Some(d) = hex_value(unit(units, j)) {
            value = value * 16 + d;
            if value > 0x10FFFF {
                return None;
            }
            j += 1;
        }
        if j == i + 1 || !is(units, j, b'}') {
            return None;
        }
        return Some((value, j + 1));
    }
    let lead = hex4(units, i)?;
    if is_lead_surrogate(lead) && is(units, i + 4, b'\\') && is(units, i + 5, b'u') {
        if let Some(trail) = hex4(units, i + 6) {
            if is_trail_surrogate(trail) {
                return Some((combine_surrogates(lead, trail), i + 10));
            }
        }
    }
    Some((lead, i + 4))
}

/// `ParseCaptureGroupName` from the first unit after `<` (at `at`), through the `>`: the name
/// (code points) and the index past the `>`. Surrogate pairs combine and `\u` escapes count, in
/// any mode, as V8 reads names in Unicode mode.
pub(super) fn group_name(units: &[u16], at: usize) -> Result<(Vec<u32>, usize), V8Error> {
    let mut name = Vec::new();
    let mut pos = at;
    loop {
        let mut c = unit(units, pos);
        let mut next = pos + 1;
        if is_lead_surrogate(c) && is_trail_surrogate(unit(units, next)) {
            c = combine_surrogates(c, unit(units, next));
            next += 1;
        }
        if c == u32::from(b'\\') && is(units, pos + 1, b'u') {
            (c, next) = unicode_escape(units, pos + 2).ok_or(V8Error::InvalidUnicodeEscape)?;
        }
        // The backslash is misclassified as both ID_Start and ID_Continue.
        if c == u32::from(b'\\') {
            return Err(V8Error::InvalidCaptureGroupName);
        }
        if name.is_empty() {
            if !is_identifier_start(c) {
                return Err(V8Error::InvalidCaptureGroupName);
            }
            name.push(c);
        } else if c == u32::from(b'>') {
            // An escaped `>` (`\u003e`) ends the name too, where the specification throws.
            return Ok((name, next));
        } else if is_identifier_part(c) {
            name.push(c);
        } else {
            return Err(V8Error::InvalidCaptureGroupName);
        }
        pos = next;
    }
}

/// The flags a modifier group sets and clears: bit 0 `i`, bit 1 `m`, bit 2 `s`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Modifiers {
    pub add: u8,
    pub remove: u8,
}

impl Modifiers {
    pub(super) const I: u8 = 1;

    /// Whether `i` holds inside the group, given whether it held outside.
    pub(super) fn ignore_case(self, outside: bool) -> bool {
        (outside || self.add & Self::I != 0) && self.remove & Self::I == 0
    }
}

/// What a `(` opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Opening {
    Capture,
    /// `(?<`: the name starts where [`opening`] stopped.
    NamedCapture,
    /// `(?:` and `(?ims-ims:`.
    Group(Modifiers),
    Lookahead,
    Lookbehind,
}

/// `ParseOpenParenthesis` at the `(` at `at`: what it opens and the index past its opener.
/// `modifiers`: whether this V8 reads modifier groups (older ones refuse `(?i` as a group).
pub(super) fn opening(
    units: &[u16],
    at: usize,
    modifiers: bool,
) -> Result<(Opening, usize), V8Error> {
    if !is(units, at + 1, b'?') {
        return Ok((Opening::Capture, at + 1));
    }
    let mut pos = at + 2;
    let mut seen = Modifiers::default();
    let mut dashed = false;
    loop {
        let c = char::from_u32(unit(units, pos));
        let in_modifiers = seen != Modifiers::default() || dashed;
        match c {
            Some(c @ ('-' | 'i' | 'm' | 's')) if modifiers => {
                if c == '-' {
                    if dashed {
                        return Err(V8Error::MultipleFlagDashes);
                    }
                    dashed = true;
                } else {
                    let bit = match c {
                        'i' => Modifiers::I,
                        'm' => 2,
                        _ => 4,
                    };
                    if (seen.add | seen.remove) & bit != 0 {
                        return Err(V8Error::RepeatedFlag);
                    }
                    if dashed {
                        seen.remove |= bit;
                    } else {
                        seen.add |= bit;
                    }
                }
                pos += 1;
            }
            Some(':') => {
                if dashed && seen == Modifiers::default() {
                    return Err(V8Error::InvalidFlagGroup);
                }
                return Ok((Opening::Group(seen), pos + 1));
            }
            Some('=' | '!') if !in_modifiers => return Ok((Opening::Lookahead, pos + 1)),
            Some('<') if !in_modifiers => {
                return Ok(match char::from_u32(unit(units, pos + 1)) {
                    Some('=' | '!') => (Opening::Lookbehind, pos + 2),
                    _ => (Opening::NamedCapture, pos + 1),
                });
            }
            _ => return Err(V8Error::InvalidGroup),
        }
    }
}

/// One open group (or the whole pattern, at the bottom).
#[derive(Debug, Clone)]
struct Frame {
    /// V8's `disjunction_capture_index`: the group's own capture index, or the number of
    /// captures opened before it.
    index: usize,
    capture: bool,
    name: Option<Vec<u32>>,
    lookaround: bool,
    lookbehind: bool,
    /// [`DuplicateNames::OneRange`]'s captures of earlier alternatives, `[from, to]`.
    one_range: (usize, usize),
    /// [`DuplicateNames::Disjoint`]'s captures of earlier alternatives, ascending `[from, to]`s.
    ranges: Vec<(usize, usize)>,
}

/// Whether capture `i` lies in one of `ranges` (ascending), V8 14's walk of them.
fn in_other_alternative(ranges: &[(usize, usize)], i: usize) -> bool {
    for &(from, to) in ranges {
        if (from..=to).contains(&i) {
            return true;
        }
        if i <= from {
            return false;
        }
    }
    false
}

/// What a closed group was, for the quantifier after it.
pub(super) struct Closed {
    pub lookaround: bool,
    pub lookbehind: bool,
}

/// The open groups and the names of the closed ones, as V8 keeps them while it parses.
pub(super) struct Groups {
    rule: DuplicateNames,
    captures: usize,
    /// Each name, and the indices of the captures that carry it.
    named: Vec<(Vec<u32>, Vec<usize>)>,
    frames: Vec<Frame>,
    /// The first name `rule` let stand twice where [`DuplicateNames::Disjoint`] would not.
    pub overlapping: Option<Vec<u32>>,
}

impl Groups {
    pub(super) fn new(rule: DuplicateNames) -> Groups {
        Groups {
            rule,
            captures: 0,
            named: Vec::new(),
            frames: vec![Frame {
                index: 0,
                capture: false,
                name: None,
                lookaround: false,
                lookbehind: false,
                one_range: (0, 0),
                ranges: Vec::new(),
            }],
            overlapping: None,
        }
    }

    /// Counts a capture group as it opens (before its name is read, as V8 does).
    pub(super) fn count_capture(&mut self) -> Result<(), V8Error> {
        if self.captures >= MAX_CAPTURES {
            return Err(V8Error::TooManyCaptures);
        }
        self.captures += 1;
        Ok(())
    }

    /// Opens a group, after [`count_capture`](Self::count_capture) for a capture.
    pub(super) fn open(&mut self, opening: Opening, name: Option<Vec<u32>>) {
        let (one_range, ranges) = self
            .frames
            .last()
            .map(|f| (f.one_range, f.ranges.clone()))
            .unwrap_or_default();
        self.frames.push(Frame {
            index: self.captures,
            capture: matches!(opening, Opening::Capture | Opening::NamedCapture),
            name,
            lookaround: matches!(opening, Opening::Lookahead | Opening::Lookbehind),
            lookbehind: opening == Opening::Lookbehind,
            one_range,
            ranges,
        });
    }

    /// A `|` in the innermost open group: the captures so far are in an earlier alternative.
    pub(super) fn alternative(&mut self) {
        let captures = self.captures;
        let Some(frame) = self.frames.last_mut() else {
            return;
        };
        if frame.one_range.1 != 0 {
            frame.one_range.1 = captures;
        } else {
            frame.one_range = (frame.index, captures);
        }
        if frame.index == captures {
            return;
        }
        let from = frame.index + 1;
        match frame.ranges.last_mut() {
            Some(last) if last.1 + 1 == captures => last.1 = captures,
            _ => frame.ranges.push((from, captures)),
        }
    }

    /// Whether a group is open.
    pub(super) fn inside_group(&self) -> bool {
        self.frames.len() > 1
    }

    /// Closes the innermost group (`None`: none is open). A named capture's name is checked
    /// against the others here, as V8 does at its `)`.
    pub(super) fn close(&mut self) -> Option<Result<Closed, V8Error>> {
        if !self.inside_group() {
            return None;
        }
        let frame = self.frames.pop()?;
        let closed = Closed {
            lookaround: frame.lookaround,
            lookbehind: frame.lookbehind,
        };
        let Some(name) = &frame.name else {
            return Some(Ok(closed));
        };
        let earlier: &[usize] = self
            .named
            .iter()
            .find(|(n, _)| n == name)
            .map_or(&[], |(_, indices)| indices);
        let nested = self.frames.iter().any(|f| f.name.as_ref() == Some(name));
        let stands = |rule: DuplicateNames| match rule {
            DuplicateNames::Refused => earlier.is_empty(),
            DuplicateNames::OneRange => {
                let (from, to) = frame.one_range;
                earlier.iter().all(|&i| from <= i && i <= to)
            }
            DuplicateNames::Disjoint => {
                !nested
                    && earlier
                        .iter()
                        .all(|&i| in_other_alternative(&frame.ranges, i))
            }
        };
        if !stands(self.rule) {
            return Some(Err(V8Error::DuplicateCaptureGroupName));
        }
        if self.overlapping.is_none() && !stands(DuplicateNames::Disjoint) {
            self.overlapping = Some(name.clone());
        }
        let index = frame.index;
        match self.named.iter_mut().find(|(n, _)| n == name) {
            Some((_, indices)) => indices.push(index),
            None => self.named.push((name.clone(), vec![index])),
        }
        Some(Ok(closed))
    }

    /// Whether a backreference here to capture `index` can only match the empty string: it is
    /// inside that capture (V8 reads it as empty), or the capture comes later (not inside a
    /// lookbehind, which matches backwards and so may have read it first).
    pub(super) fn refers_to_nothing(&self, index: usize) -> bool {
        let later = index > self.captures && !self.frames.iter().any(|f| f.lookbehind);
        self.inside_capture(index) || later
    }

    /// The same for a `\k<name>`.
    pub(super) fn name_refers_to_nothing(&self, name: &[u32]) -> bool {
        let later = !self.has_name(name) && !self.frames.iter().any(|f| f.lookbehind);
        self.inside_name(name) || later
    }

    /// Whether capture `index` is open here (a backreference to it V8 reads as empty).
    pub(super) fn inside_capture(&self, index: usize) -> bool {
        self.frames.iter().any(|f| f.capture && f.index == index)
    }

    /// Whether a capture of this name is open here.
    pub(super) fn inside_name(&self, name: &[u32]) -> bool {
        self.frames.iter().any(|f| f.name.as_deref() == Some(name))
    }

    /// Whether a group of this name exists (closed).
    pub(super) fn has_name(&self, name: &[u32]) -> bool {
        self.named.iter().any(|(n, _)| n == name)
    }

    /// Whether more than one group has this name.
    pub(super) fn is_duplicated(&self, name: &[u32]) -> bool {
        self.named
            .iter()
            .any(|(n, indices)| n == name && indices.len() > 1)
    }
}

/// A name as text, for an error.
pub(super) fn name_text(name: &[u32]) -> String {
    name.iter().filter_map(|&c| char::from_u32(c)).collect()
}

/// V8's `ScanForCaptures` (without `v`): every `(` that is not `(?`, and every `(?<` that is
/// not a lookbehind, outside escapes and classes.
pub(super) fn count_captures(units: &[u16]) -> usize {
    let mut count = 0;
    let mut i = 0;
    while i < units.len() {
        let c = unit(units, i);
        i += 1;
        if c == u32::from(b'\\') {
            i += 1;
        } else if c == u32::from(b'[') {
            while i < units.len() {
                let c = unit(units, i);
                i += 1;
                if c == u32::from(b'\\') {
                    i += 1;
                } else if c == u32::from(b']') {
                    break;
                }
            }
        } else if c == u32::from(b'(') {
            let named = unit(units, i + 1) == u32::from(b'<')
                && !matches!(char::from_u32(unit(units, i + 2)), Some('=' | '!'));
            if unit(units, i) != u32::from(b'?') || named {
                count += 1;
            }
        }
    }
    count
}

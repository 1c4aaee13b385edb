//! The atoms of a Unicode-mode pattern as V8 reads them: escapes (`ParseCharacterEscape` and
//! its callers with the `u` flag), classes (`ParseCharacterClass` without `v`), property
//! escapes, and quantifiers. Which property names exist is asked of regress, whose Unicode
//! tables are the ones the pattern is matched with.

use regress::Regex;

use super::error::V8Error;
use super::groups::{group_name, hex_value, unicode_escape, END};
use super::unicode::Reader;
use crate::js::utf16::{combine_surrogates, is_lead_surrogate, is_trail_surrogate};

/// What an atom is, for the quantifier after it.
pub(super) enum Atom {
    Quantifiable,
    /// `^`, `$`, `\b`, `\B`: a quantifier after it is `Nothing to repeat`.
    Assertion,
    /// A lookaround group: a quantifier after it is `Invalid quantifier` in Unicode mode.
    Lookaround,
}

/// What a class atom is.
#[derive(Clone, Copy)]
enum ClassAtom {
    Char(u32),
    /// `\d`, `\p{…}` and the like: no end of a range.
    Class,
}

/// `{n}`, `{n,}` or `{n,m}` at `i`, if one is there: the index past it, n and m (no m: the
/// largest count), each count clamped as V8 clamps it.
pub(super) fn quantifier(units: &[u16], i: usize) -> Option<(usize, u64, u64)> {
    const INFINITY: u64 = i32::MAX as u64;
    let at = |j: usize| units.get(j).map_or(END, |&u| u32::from(u));
    let number = |mut j: usize| {
        let start = j;
        let mut value: u64 = 0;
        while let Some(d) = char::from_u32(at(j)).and_then(|c| c.to_digit(10)) {
            value = (value * 10 + u64::from(d)).min(INFINITY);
            j += 1;
        }
        (j > start).then_some((j, value))
    };
    let (j, min) = number(i + 1)?;
    if at(j) == u32::from(b'}') {
        return Some((j + 1, min, min));
    }
    if at(j) != u32::from(b',') {
        return None;
    }
    if at(j + 1) == u32::from(b'}') {
        return Some((j + 2, min, INFINITY));
    }
    let (k, max) = number(j + 1)?;
    (at(k) == u32::from(b'}')).then_some((k + 1, min, max))
}

/// A syntax character (or `/`), which Unicode mode lets be escaped as itself.
fn is_syntax_character(c: u32) -> bool {
    char::from_u32(c).is_some_and(|c| "^$\\.*+?()[]{}|/".contains(c))
}

fn is_decimal(c: u32) -> bool {
    char::from_u32(c).is_some_and(|c| c.is_ascii_digit())
}

impl Reader {
    /// The code point at `i` (a surrogate pair is one) and the index past it.
    pub(super) fn code_point(&self, i: usize) -> (u32, usize) {
        let (lead, trail) = (self.at(i), self.at(i + 1));
        if is_lead_surrogate(lead) && is_trail_surrogate(trail) {
            (combine_surrogates(lead, trail), i + 2)
        } else {
            (lead, i + 1)
        }
    }

    /// An escape outside a class, at its `\`.
    pub(super) fn atom_escape(&mut self) -> Result<Atom, V8Error> {
        let escaped = self.at(self.pos + 1);
        match char::from_u32(escaped) {
            _ if escaped == END => Err(V8Error::EscapeAtEndOfPattern),
            Some('b' | 'B') => {
                self.pos += 2;
                Ok(Atom::Assertion)
            }
            Some('1'..='9') => {
                // A backreference when it names a capture of the pattern; anything else is
                // refused (no octal escapes in Unicode mode).
                let mut end = self.pos + 1;
                let mut value: usize = 0;
                while is_decimal(self.at(end)) && value <= self.capture_count {
                    value = value * 10 + (self.at(end) - u32::from(b'0')) as usize;
                    end += 1;
                }
                if value > self.capture_count {
                    return Err(V8Error::InvalidEscape);
                }
                self.backreference(value, self.pos, end);
                self.pos = end;
                Ok(Atom::Quantifiable)
            }
            Some('k') => {
                if !self.is(self.pos + 2, b'<') {
                    return Err(V8Error::InvalidNamedReference);
                }
                let (name, end) = group_name(&self.units, self.pos + 3)?;
                self.reference(name, self.pos, end);
                self.pos = end;
                Ok(Atom::Quantifiable)
            }
            Some('d' | 'D' | 's' | 'S' | 'w' | 'W') => {
                if matches!(char::from_u32(escaped), Some('w' | 'W')) {
                    self.word_class(escaped);
                }
                self.pos += 2;
                Ok(Atom::Quantifiable)
            }
            Some('p' | 'P') => {
                self.property(V8Error::InvalidPropertyName)?;
                self.property_read();
                Ok(Atom::Quantifiable)
            }
            _ => {
                let c = self.character_escape()?;
                self.literal(c);
                Ok(Atom::Quantifiable)
            }
        }
    }

    /// `ParseCharacterEscape` in Unicode mode at a `\` whose escape is not a class, an
    /// assertion or a reference: the character, with the position past it.
    fn character_escape(&mut self) -> Result<u32, V8Error> {
        let escaped = self.at(self.pos + 1);
        let value = match char::from_u32(escaped) {
            _ if escaped == END => return Err(V8Error::EscapeAtEndOfPattern),
            Some('f') => 0x0C,
            Some('n') => 0x0A,
            Some('r') => 0x0D,
            Some('t') => 0x09,
            Some('v') => 0x0B,
            Some('c') => {
                let letter = self.at(self.pos + 2);
                if !char::from_u32(letter).is_some_and(|c| c.is_ascii_alphabetic()) {
                    return Err(V8Error::InvalidUnicodeEscape);
                }
                self.pos += 3;
                return Ok(letter % 32);
            }
            Some('0') => {
                if is_decimal(self.at(self.pos + 2)) {
                    return Err(V8Error::InvalidDecimalEscape);
                }
                0
            }
            Some('x') => {
                let (high, low) = (
                    hex_value(self.at(self.pos + 2)),
                    hex_value(self.at(self.pos + 3)),
                );
                let (Some(high), Some(low)) = (high, low) else {
                    return Err(V8Error::InvalidEscape);
                };
                self.pos += 4;
                return Ok(high * 16 + low);
            }
            Some('u') => {
                let (value, end) = unicode_escape(&self.units, self.pos + 2)
                    .ok_or(V8Error::InvalidUnicodeEscape)?;
                self.pos = end;
                return Ok(value);
            }
            _ if is_syntax_character(escaped) => escaped,
            _ => return Err(V8Error::InvalidEscape),
        };
        self.pos += 2;
        Ok(value)
    }

    /// `\p{…}` or `\P{…}` at its `\`: `ParsePropertyClassName`'s shape, then whether the
    /// name exists. `invalid`: what V8 calls a bad one here.
    fn property(&mut self, invalid: V8Error) -> Result<(), V8Error> {
        let start = self.pos;
        if !self.is(self.pos + 2, b'{') {
            return Err(invalid);
        }
        let mut i = self.pos + 3;
        let mut equals = false;
        loop {
            let c = self.at(i);
            if c == u32::from(b'}') {
                break;
            }
            if c == u32::from(b'=') && !equals {
                equals = true;
            } else if !char::from_u32(c).is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(invalid);
            }
            i += 1;
        }
        self.pos = i + 1;
        if self.check_properties {
            let text = String::from_utf16_lossy(&self.units[start..self.pos]);
            if Regex::with_flags(&text, "u").is_err() {
                return Err(invalid);
            }
        }
        Ok(())
    }

    /// `ParseCharacterClass` at `[` (Unicode mode, no `v`).
    pub(super) fn class(&mut self) -> Result<Atom, V8Error> {
        self.pos += 1;
        if self.is(self.pos, b'^') {
            self.pos += 1;
        }
        loop {
            if self.at(self.pos) == END {
                return Err(V8Error::UnterminatedCharacterClass);
            }
            if self.is(self.pos, b']') {
                self.pos += 1;
                return Ok(Atom::Quantifiable);
            }
            let first = self.class_atom()?;
            if !self.is(self.pos, b'-') {
                continue;
            }
            self.pos += 1;
            if self.at(self.pos) == END {
                return Err(V8Error::UnterminatedCharacterClass);
            }
            if self.is(self.pos, b']') {
                continue;
            }
            let second = self.class_atom()?;
            match (first, second) {
                (ClassAtom::Char(a), ClassAtom::Char(b)) if a > b => {
                    return Err(V8Error::ClassRangeOutOfOrder)
                }
                (ClassAtom::Char(_), ClassAtom::Char(_)) => {}
                _ => return Err(V8Error::InvalidCharacterClass),
            }
        }
    }

    /// `ParseClassEscape` (or a plain character) inside a class.
    fn class_atom(&mut self) -> Result<ClassAtom, V8Error> {
        if !self.is(self.pos, b'\\') {
            let (c, end) = self.code_point(self.pos);
            self.pos = end;
            return Ok(ClassAtom::Char(c));
        }
        let escaped = self.at(self.pos + 1);
        match char::from_u32(escaped) {
            _ if escaped == END => Err(V8Error::EscapeAtEndOfPattern),
            Some('b') => {
                self.pos += 2;
                Ok(ClassAtom::Char(0x08))
            }
            Some('-') => {
                self.pos += 2;
                Ok(ClassAtom::Char(u32::from(b'-')))
            }
            Some('d' | 'D' | 's' | 'S' | 'w' | 'W') => {
                if matches!(char::from_u32(escaped), Some('w' | 'W')) {
                    self.word_class(escaped);
                }
                self.pos += 2;
                Ok(ClassAtom::Class)
            }
            Some('p' | 'P') => {
                self.property(V8Error::InvalidClassPropertyName)?;
                self.property_read();
                Ok(ClassAtom::Class)
            }
            // A decimal escape (`\0` alone is NUL): V8 words it by its version.
            Some('1'..='9') | Some('0')
                if escaped != u32::from(b'0') || is_decimal(self.at(self.pos + 2)) =>
            {
                if self.syntax.decimal_escape_in_class_words_decimal {
                    Err(V8Error::InvalidDecimalEscape)
                } else {
                    Err(V8Error::InvalidClassEscape)
                }
            }
            Some('k' | 'B') => Err(V8Error::InvalidEscape),
            _ => Ok(ClassAtom::Char(self.character_escape()?)),
        }
    }
}

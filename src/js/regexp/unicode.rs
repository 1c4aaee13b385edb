//! `new RegExp(source, 'u')`, as Ajv compiles `pattern` and `patternProperties`, matched here
//! by regress. regress reads the Unicode grammar as the newest specification does, so what it
//! refuses V8 refuses too (in V8's words, see `reason.rs`); what it accepts is read again here
//! for what V8 decides otherwise or matches otherwise:
//! * group syntax that the running V8 lacks or judges otherwise (modifier groups before V8
//!   12.5, duplicate names by its own rule: `groups.rs`);
//! * a quantified assertion (`\b*`), which V8 refuses and regress accepts;
//! * constructs regress does not match as V8 does ([`Unsupported`]).

use regress::Regex;

use super::error::{PatternError, Unsupported, V8Error};
use super::groups::{group_name, name_text, opening, unicode_escape, unit, Groups, Opening, END};
use super::reason::v8_error_reason;
use super::syntax::Syntax;
use crate::js::utf16::{combine_surrogates, is_lead_surrogate, is_trail_surrogate};

/// `new RegExp(source, 'u')` in a V8 of `syntax`, as a regress `Regex` with the same matches;
/// or why not.
pub fn compile(source: &str, syntax: Syntax) -> Result<Regex, PatternError> {
    let read = read(source, syntax);
    match Regex::with_flags(source, "u") {
        Ok(regex) => match (read.v8, read.unsupported) {
            (Some(error), _) => Err(error.into()),
            (None, Some(construct)) => Err(PatternError::Unsupported(construct)),
            (None, None) => Ok(regex),
        },
        // What the running V8 alone decides (a group it has no syntax for, a name it lets
        // repeat or not) and a quantified lookaround (regress words it as any other quantifier
        // after nothing) are V8's words; so is anything where regress judged names, which it
        // does by the specification's rule as each group opens, and V8 by its own as each
        // closes. Anything else regress refused, V8 refuses too.
        Err(error) => {
            let reason = error.to_string();
            let judged_names = reason == "Duplicate capture group name";
            match (read.v8, read.unsupported) {
                (Some(error), _) if judged_names || decided_by_v8_alone(error) => Err(error.into()),
                (None, Some(construct @ Unsupported::OverlappingDuplicateNames(_))) => {
                    Err(PatternError::Unsupported(construct))
                }
                _ => Err(PatternError::V8(v8_error_reason(source, &reason))),
            }
        }
    }
}

/// Whether V8's reason for this is one regress has no word or no rule of its own for.
fn decided_by_v8_alone(error: V8Error) -> bool {
    matches!(
        error,
        V8Error::InvalidGroup
            | V8Error::MultipleFlagDashes
            | V8Error::RepeatedFlag
            | V8Error::InvalidFlagGroup
            | V8Error::DuplicateCaptureGroupName
            | V8Error::InvalidQuantifier
    )
}

/// What [`read`] found: the first reason V8 refuses the pattern for, and the first construct
/// regress does not match as V8 does.
#[derive(Default)]
struct Read {
    v8: Option<V8Error>,
    unsupported: Option<Unsupported>,
}

/// Reads `source` as V8 does in Unicode mode, as far as groups, quantified assertions and the
/// case rule of `\w` go. Made for patterns regress accepts; on others it stops at what it cannot
/// read, or reads on as best it can, and decides nothing that [`compile`] would use wrongly.
fn read(source: &str, syntax: Syntax) -> Read {
    let units: Vec<u16> = source.encode_utf16().collect();
    let mut read = Read::default();
    if let Err(error) = walk(&units, syntax, &mut read) {
        read.v8 = Some(error);
    }
    read
}

fn walk(units: &[u16], syntax: Syntax, read: &mut Read) -> Result<(), V8Error> {
    let mut groups = Groups::new(syntax.duplicate_names);
    let mut references: Vec<Vec<u32>> = Vec::new();
    // Whether `i` holds in each open group (the pattern itself at the bottom: it has only `u`).
    let mut ignore_case = vec![false];
    // V8's parser flags, which its `\w` and `\W` are read with: the flags of the group opened
    // last, which its `)` does not undo.
    let mut parser_ignore_case = false;
    // A letter this V8 matches otherwise inside an `(?i:` group (`Syntax::folds_in_modifiers`).
    let literal = |read: &mut Read, c: u32, ignore_case: bool| {
        if syntax.modifiers
            && !syntax.folds_in_modifiers
            && ignore_case
            && UNFOLDED_IN_MODIFIERS.contains(&c)
        {
            note(read, Unsupported::UnfoldedLetterInModifierGroup(letter(c)));
        }
    };
    let mut pos = 0;
    loop {
        let c = unit(units, pos);
        if c == END {
            break;
        }
        // What the quantifier after this atom, if any, may not follow.
        let mut assertion = false;
        let mut lookaround = false;
        match char::from_u32(c) {
            Some('(') => {
                let (opened, end) = opening(units, pos, syntax.modifiers)?;
                pos = end;
                let outside = ignore_case.last().copied().unwrap_or(false);
                let mut inside = outside;
                let name = match opened {
                    Opening::Capture => {
                        groups.count_capture()?;
                        None
                    }
                    Opening::NamedCapture => {
                        groups.count_capture()?;
                        let (name, end) = group_name(units, pos)?;
                        pos = end;
                        Some(name)
                    }
                    Opening::Group(modifiers) => {
                        inside = modifiers.ignore_case(outside);
                        None
                    }
                    Opening::Lookahead | Opening::Lookbehind => None,
                };
                groups.open(opened, name);
                ignore_case.push(inside);
                parser_ignore_case = inside;
                continue;
            }
            Some(')') => {
                let Some(closed) = groups.close() else {
                    return Err(V8Error::UnmatchedParen);
                };
                lookaround = closed?.lookaround;
                ignore_case.pop();
                pos += 1;
            }
            Some('|') => {
                groups.alternative();
                pos += 1;
                continue;
            }
            Some('^' | '$') => {
                assertion = true;
                pos += 1;
            }
            Some('[') => {
                pos += 1;
                while pos < units.len() && !is(units, pos, b']') {
                    if is(units, pos, b'\\') {
                        let escaped = unit(units, pos + 1);
                        if is_word_class(escaped)
                            && parser_ignore_case != ignore_case.last().copied().unwrap_or(false)
                        {
                            note(
                                read,
                                Unsupported::WordClassAfterCaseModifier(letter(escaped)),
                            );
                        }
                        pos += 1;
                    }
                    pos = past_code_point(units, pos);
                }
                pos += 1;
            }
            Some('\\') => {
                let escaped = unit(units, pos + 1);
                match char::from_u32(escaped) {
                    Some('b' | 'B') => {
                        assertion = true;
                        pos += 2;
                    }
                    Some('k') if is(units, pos + 2, b'<') => {
                        let (name, end) = group_name(units, pos + 3)?;
                        references.push(name);
                        pos = end;
                    }
                    Some('u') => {
                        let (value, end) = unicode_escape(units, pos + 2).unwrap_or((END, pos + 2));
                        literal(read, value, ignore_case.last().copied().unwrap_or(false));
                        pos = end;
                    }
                    Some('p' | 'P') if is(units, pos + 2, b'{') => {
                        pos += 3;
                        while pos < units.len() && !is(units, pos, b'}') {
                            pos += 1;
                        }
                        pos += 1;
                    }
                    _ => {
                        if is_word_class(escaped)
                            && parser_ignore_case != ignore_case.last().copied().unwrap_or(false)
                        {
                            note(
                                read,
                                Unsupported::WordClassAfterCaseModifier(letter(escaped)),
                            );
                        }
                        pos = past_code_point(units, pos + 1);
                    }
                }
            }
            _ => {
                let end = past_code_point(units, pos);
                literal(
                    read,
                    code_point(units, pos),
                    ignore_case.last().copied().unwrap_or(false),
                );
                pos = end;
            }
        }
        let quantified = match char::from_u32(unit(units, pos)) {
            Some('*' | '+' | '?') => {
                pos += 1;
                true
            }
            Some('{') => match quantifier_end(units, pos) {
                Some(end) => {
                    pos = end;
                    true
                }
                None => false,
            },
            _ => false,
        };
        if quantified {
            if is(units, pos, b'?') {
                pos += 1;
            }
            if assertion {
                return Err(V8Error::NothingToRepeat);
            }
            if lookaround {
                return Err(V8Error::InvalidQuantifier);
            }
        }
    }
    if groups.inside_group() {
        return Err(V8Error::UnterminatedGroup);
    }
    if references.iter().any(|r| !groups.has_name(r)) {
        return Err(V8Error::InvalidNamedCaptureReferenced);
    }
    if let Some(name) = groups.overlapping.take() {
        note(
            read,
            Unsupported::OverlappingDuplicateNames(name_text(&name)),
        );
    }
    if let Some(name) = references.iter().find(|r| groups.is_duplicated(r)) {
        note(
            read,
            Unsupported::BackreferenceToDuplicateName(name_text(name)),
        );
    }
    Ok(())
}

/// Keeps the first construct found.
fn note(read: &mut Read, construct: Unsupported) {
    read.unsupported.get_or_insert(construct);
}

fn is(units: &[u16], i: usize, c: u8) -> bool {
    unit(units, i) == u32::from(c)
}

/// ſ, K (Kelvin) and Å (Angstrom): see `Syntax::folds_in_modifiers`.
const UNFOLDED_IN_MODIFIERS: [u32; 3] = [0x017F, 0x212A, 0x212B];

/// The code point at `i` (a surrogate pair combined).
fn code_point(units: &[u16], i: usize) -> u32 {
    let (lead, trail) = (unit(units, i), unit(units, i + 1));
    if is_lead_surrogate(lead) && is_trail_surrogate(trail) {
        combine_surrogates(lead, trail)
    } else {
        lead
    }
}

fn is_word_class(c: u32) -> bool {
    c == u32::from(b'w') || c == u32::from(b'W')
}

fn letter(c: u32) -> char {
    char::from_u32(c).unwrap_or('\u{FFFD}')
}

/// The index past the code point at `i` (a surrogate pair is one, as in Unicode mode).
fn past_code_point(units: &[u16], i: usize) -> usize {
    if is_lead_surrogate(unit(units, i)) && is_trail_surrogate(unit(units, i + 1)) {
        i + 2
    } else {
        i + 1
    }
}

/// The index past `{n}`, `{n,}` or `{n,m}` at `i`, if one is there.
fn quantifier_end(units: &[u16], i: usize) -> Option<usize> {
    let digits = |mut j: usize| {
        let start = j;
        while char::from_u32(unit(units, j)).is_some_and(|c| c.is_ascii_digit()) {
            j += 1;
        }
        (j > start).then_some(j)
    };
    let j = digits(i + 1)?;
    if is(units, j, b'}') {
        return Some(j + 1);
    }
    if !is(units, j, b',') {
        return None;
    }
    if is(units, j + 1, b'}') {
        return Some(j + 2);
    }
    let k = digits(j + 1)?;
    is(units, k, b'}').then_some(k + 1)
}

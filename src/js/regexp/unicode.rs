//! `new RegExp(source, 'u')`, as Ajv compiles `pattern` and `patternProperties`, matched here
//! by regress. regress reads the Unicode grammar as the newest specification does, which is not
//! what every V8 reads, nor in V8's words; so the pattern is read here as the running V8 reads
//! it (`ParseDisjunction` in Unicode mode, decision by decision, with the group rules of
//! `groups.rs` and the atoms of `unicode_atoms.rs`), and regress only matches. The reading
//! finds V8's first reason to refuse, and the constructs regress does not match as V8 does
//! ([`Unsupported`]).

use regress::Regex;

use super::error::{PatternError, Unsupported, V8Error};
use super::groups::{count_captures, group_name, name_text, opening, unit, Groups, Opening, END};
use super::reason::v8_error_reason;
use super::respell::Respelled;
use super::syntax::Syntax;
use super::unicode_atoms::{quantifier, Atom};

/// `new RegExp(source, 'u')` in a V8 of `syntax`, as a regress `Regex` with the same matches;
/// or why not.
pub fn compile(source: &str, syntax: Syntax) -> Result<Regex, PatternError> {
    let compiled = Regex::with_flags(source, "u");
    // Property names are the one thing read by asking regress; where it took the whole
    // pattern, it knows each of them.
    let mut reader = Reader::new(source, syntax, compiled.is_err());
    if let Err(reason) = reader.read() {
        return Err(PatternError::V8(reason));
    }
    let compiled = match reader.for_regress() {
        Some(written) => Regex::with_flags(&written, "u"),
        None => compiled,
    };
    match (compiled, reader.unsupported) {
        (Ok(_), Some(construct)) | (Err(_), Some(construct)) => {
            Err(PatternError::Unsupported(construct))
        }
        (Ok(regex), None) => Ok(regex),
        (Err(error), None) => Err(PatternError::Unsupported(Unsupported::Unreadable(
            v8_error_reason(source, &error.to_string()),
        ))),
    }
}

/// The reading of one pattern: its code units, the groups open, and what was found so far.
pub(super) struct Reader {
    pub units: Vec<u16>,
    pub syntax: Syntax,
    pub pos: usize,
    /// Whether to ask regress about property names.
    pub check_properties: bool,
    /// How many captures the whole pattern has (V8's `ScanForCaptures`).
    pub capture_count: usize,
    groups: Groups,
    references: Vec<Vec<u32>>,
    /// The case rule of each open group (the pattern itself at the bottom: it has only `u`).
    cases: Vec<Case>,
    /// V8's parser flags, which its `\w` and `\W` are read with: the flags of the group opened
    /// last, which its `)` does not undo.
    parser_ignore_case: bool,
    /// The first construct regress does not match as V8 does.
    pub unsupported: Option<Unsupported>,
    /// Pieces of the source (start, end, in code units) regress is given otherwise.
    spelled: Respelled,
}

impl Reader {
    fn new(source: &str, syntax: Syntax, check_properties: bool) -> Reader {
        let units: Vec<u16> = source.encode_utf16().collect();
        Reader {
            capture_count: count_captures(&units),
            units,
            syntax,
            pos: 0,
            check_properties,
            groups: Groups::new(syntax.duplicate_names),
            references: Vec::new(),
            cases: vec![Case::default()],
            parser_ignore_case: false,
            unsupported: None,
            spelled: Respelled::default(),
        }
    }

    pub(super) fn at(&self, i: usize) -> u32 {
        unit(&self.units, i)
    }

    pub(super) fn is(&self, i: usize, c: u8) -> bool {
        self.at(i) == u32::from(c)
    }

    /// Keeps the first construct found.
    pub(super) fn note(&mut self, construct: Unsupported) {
        self.unsupported.get_or_insert(construct);
    }

    fn case(&self) -> Case {
        self.cases.last().copied().unwrap_or_default()
    }

    /// `\w` or `\W`: V8 reads it with its parser flags, not those of the group it is in.
    pub(super) fn word_class(&mut self, escaped: u32) {
        if self.parser_ignore_case != self.case().ignore {
            let letter = char::from_u32(escaped).unwrap_or('w');
            self.note(Unsupported::WordClassAfterCaseModifier(letter));
        }
    }

    /// `\p{…}` or `\P{…}`: under `i`, the letters after it in the group fold otherwise in V8.
    pub(super) fn property_read(&mut self) {
        if self.case().ignore {
            for case in self.cases.iter_mut().filter(|c| c.ignore) {
                case.after_property = true;
            }
        }
    }

    /// A literal character outside a class: is it a letter V8 folds otherwise here?
    pub(super) fn literal(&mut self, c: u32) {
        let case = self.case();
        if !case.ignore {
            return;
        }
        let letter = char::from_u32(c).unwrap_or('\u{FFFD}');
        let syntax = self.syntax;
        if syntax.modifiers && !syntax.folds_in_modifiers && UNFOLDED.contains(&c) {
            self.note(Unsupported::UnfoldedLetterInModifierGroup(letter));
        }
        if case.after_property && SPECIAL_CASE_PARTNERS.contains(&c) {
            self.note(Unsupported::LetterAfterPropertyInModifierGroup(letter));
        }
    }

    /// Reads the whole pattern: V8's reason to refuse it, if it has one.
    fn read(&mut self) -> Result<(), String> {
        self.disjunction()
            .map_err(|error| error.message().to_owned())?;
        if let Some(name) = self.groups.overlapping.take() {
            self.note(Unsupported::OverlappingDuplicateNames(name_text(&name)));
        }
        if let Some(name) = self
            .references
            .iter()
            .find(|r| self.groups.is_duplicated(r))
        {
            let name = name_text(name);
            self.note(Unsupported::BackreferenceToDuplicateName(name));
        }
        Ok(())
    }

    /// `ParseDisjunction` in Unicode mode.
    fn disjunction(&mut self) -> Result<(), V8Error> {
        loop {
            let c = self.at(self.pos);
            if c == END {
                break;
            }
            let atom = match char::from_u32(c) {
                Some('(') => {
                    self.open_group()?;
                    continue;
                }
                Some(')') => {
                    let closed = self.groups.close().ok_or(V8Error::UnmatchedParen)??;
                    self.cases.pop();
                    self.pos += 1;
                    if closed.lookaround {
                        Atom::Lookaround
                    } else {
                        Atom::Quantifiable
                    }
                }
                Some('|') => {
                    self.groups.alternative();
                    self.pos += 1;
                    continue;
                }
                Some('*' | '+' | '?') => return Err(V8Error::NothingToRepeat),
                Some('^' | '$') => {
                    self.pos += 1;
                    Atom::Assertion
                }
                Some('[') => self.class()?,
                Some('\\') => self.atom_escape()?,
                Some('{') if quantifier(&self.units, self.pos).is_some() => {
                    return Err(V8Error::NothingToRepeat)
                }
                Some('{' | '}' | ']') => return Err(V8Error::LoneQuantifierBrackets),
                _ => {
                    let (c, end) = self.code_point(self.pos);
                    self.literal(c);
                    self.pos = end;
                    Atom::Quantifiable
                }
            };
            self.quantifier_after(atom)?;
        }
        if self.groups.inside_group() {
            return Err(V8Error::UnterminatedGroup);
        }
        // `PatchNamedBackReferences`, once the whole pattern is read.
        if self.references.iter().any(|r| !self.groups.has_name(r)) {
            return Err(V8Error::InvalidNamedCaptureReferenced);
        }
        Ok(())
    }

    /// `ParseOpenParenthesis` at `(`.
    fn open_group(&mut self) -> Result<(), V8Error> {
        let (opened, end) = opening(&self.units, self.pos, self.syntax.modifiers)?;
        self.pos = end;
        let outside = self.case();
        let mut inside = outside;
        if matches!(opened, Opening::Lookahead | Opening::Lookbehind) && self.is(end - 1, b'!') {
            inside.negative = true;
        }
        let name = match opened {
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
            Opening::Group(modifiers) => {
                inside.ignore = modifiers.ignore_case(outside.ignore);
                inside.after_property &= inside.ignore;
                None
            }
            Opening::Lookahead | Opening::Lookbehind => None,
        };
        self.groups.open(opened, name);
        self.cases.push(inside);
        self.parser_ignore_case = inside.ignore;
        Ok(())
    }

    /// A `\k<name>`, from `start` to `end`.
    pub(super) fn reference(&mut self, name: Vec<u32>, start: usize, end: usize) {
        if self.groups.name_refers_to_nothing(&name) {
            self.spelled.push((start, end, EMPTY));
        }
        let inside = self.groups.inside_name(&name);
        self.backreference_read(inside);
        self.references.push(name);
    }

    /// A backreference to capture `index`, from `start` to `end`.
    pub(super) fn backreference(&mut self, index: usize, start: usize, end: usize) {
        if self.groups.refers_to_nothing(index) {
            self.spelled.push((start, end, EMPTY));
        }
        let inside = self.groups.inside_capture(index);
        self.backreference_read(inside);
    }

    /// A backreference V8 keeps (`inside`: it is in its own group, which V8 reads as empty):
    /// under a negative lookaround, it fails where a match starts inside a surrogate pair in
    /// V8, which tries such a start, so the pattern matches there; regress does not.
    fn backreference_read(&mut self, inside: bool) {
        if !inside && self.case().negative {
            self.note(Unsupported::BackreferenceInNegativeLookaround);
        }
    }

    /// The source with [`Reader::spelled`] applied, if anything is.
    fn for_regress(&self) -> Option<String> {
        self.spelled.apply(&self.units)
    }

    /// The quantifier after an atom, if any: what V8 refuses there.
    fn quantifier_after(&mut self, atom: Atom) -> Result<(), V8Error> {
        match char::from_u32(self.at(self.pos)) {
            Some('*' | '+' | '?') => self.pos += 1,
            Some('{') => {
                let (end, min, max) =
                    quantifier(&self.units, self.pos).ok_or(V8Error::IncompleteQuantifier)?;
                if max < min {
                    return Err(V8Error::QuantifierOutOfOrder);
                }
                self.pos = end;
            }
            _ => return Ok(()),
        }
        if self.is(self.pos, b'?') {
            self.pos += 1;
        }
        match atom {
            Atom::Assertion => Err(V8Error::NothingToRepeat),
            Atom::Lookaround => Err(V8Error::InvalidQuantifier),
            Atom::Quantifiable => Ok(()),
        }
    }
}

/// What a backreference that can only match the empty string (`Groups::refers_to_nothing`) is
/// written as for regress, which may match it against what the group held before it backtracked.
const EMPTY: &str = "(?:)";

/// The case rule of one group, as V8 applies it inside a Unicode pattern.
#[derive(Debug, Clone, Copy, Default)]
struct Case {
    /// Whether `i` holds.
    ignore: bool,
    /// Whether a property escape came earlier under this `i` (see [`SPECIAL_CASE_PARTNERS`]).
    after_property: bool,
    /// Whether this is inside a negative lookaround.
    negative: bool,
}

/// ſ, K (Kelvin) and Å (Angstrom): V8 12.5 to 13 matches them by themselves only inside an `(?i:`
/// group (see `Syntax::folds_in_modifiers`).
const UNFOLDED: [u32; 3] = [0x017F, 0x212A, 0x212B];

/// The letters whose case partners include one `/…/ui` reaches only by case folding (k, K, K; s,
/// S, ſ; å, Å, Å; ß, ẞ; ÿ, Ÿ): after a property escape in an `(?i:` group, V8 (12.5 to 14)
/// matches them without those partners (found by the seeded patterns of
/// `__test__/regexp-lines.test.mjs` on Node 24 and 26).
const SPECIAL_CASE_PARTNERS: [u32; 13] = [
    0x6B, 0x4B, 0x212A, 0x73, 0x53, 0x017F, 0xE5, 0xC5, 0x212B, 0xDF, 0x1E9E, 0xFF, 0x178,
];

//! JavaScript's regular expressions as the running V8 has them: whether `new RegExp(source)`
//! throws and in which words, with and without the `u` flag, and, for the patterns the core
//! matches with regress, what regress would not match as V8 does.
//!
//! The syntax is not one V8's: Node's lines differ in it ([`Syntax`]), and the process follows
//! the V8 it runs in ([`running`], set as the addon loads from what that V8 compiles).

mod annex_b;
mod error;
mod groups;
mod reason;
mod respell;
mod syntax;
mod unicode;
mod unicode_atoms;

pub use error::{PatternError, Unsupported, V8Error};
pub use reason::v8_error_reason;
pub use syntax::{running, set_running, DuplicateNames, Syntax, PROBES};

use regress::Regex;

/// Whether `new RegExp(pattern)` (no flags) would not throw in a V8 of `syntax`.
pub fn is_valid_pattern(pattern: &str, syntax: Syntax) -> bool {
    annex_b::check(pattern, syntax).is_ok()
}

/// `new RegExp(source)` (no flags) in a V8 of `syntax`, as a regress `Regex` (without flags)
/// with the same matches; or why not.
pub fn compile_annex_b(source: &str, syntax: Syntax) -> Result<Regex, PatternError> {
    let hazards = annex_b::check(source, syntax)?;
    if let Some(name) = hazards.overlapping {
        return Err(PatternError::Unsupported(
            Unsupported::OverlappingDuplicateNames(groups::name_text(&name)),
        ));
    }
    if let Some(name) = hazards.duplicate_reference {
        return Err(PatternError::Unsupported(
            Unsupported::BackreferenceToDuplicateName(groups::name_text(&name)),
        ));
    }
    let readable = hazards.for_regress.as_deref().unwrap_or(source);
    Regex::with_flags(readable, "").map_err(|error| {
        PatternError::Unsupported(Unsupported::Unreadable(v8_error_reason(
            source,
            &error.to_string(),
        )))
    })
}

/// `new RegExp(source, 'u')` in a V8 of `syntax`, as a regress `Regex` (flag `u`) with the
/// same matches; or why not.
pub fn compile_unicode(source: &str, syntax: Syntax) -> Result<Regex, PatternError> {
    unicode::compile(source, syntax)
}

#[cfg(test)]
mod tests;

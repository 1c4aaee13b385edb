//! The running V8's RegExp syntax, told to the core as the addon loads: `lib/native.js` runs
//! the core's probes with `new RegExp` and hands back their answers.

use super::errors::{JsError, NativeError, NativeErrorCode};
use crate::js::regexp::{running, set_running, DuplicateNames, Syntax, PROBES};
use napi_derive::napi;

/// A probe: true when `new RegExp(source, flags)` compiles and matches `subject`, if any; or,
/// given a refusal, when it throws with a message ending in those words.
#[napi(object)]
pub struct RegexpProbeJs {
    pub source: String,
    pub flags: String,
    pub subject: Option<String>,
    pub refusal: Option<String>,
}

/// The probes, in the order `useRegexpSyntax` takes the answers.
#[napi(js_name = "regexpSyntaxProbes")]
pub fn regexp_syntax_probes() -> Vec<RegexpProbeJs> {
    PROBES
        .iter()
        .map(|probe| RegexpProbeJs {
            source: probe.source.to_owned(),
            flags: probe.flags.to_owned(),
            subject: probe.subject.map(str::to_owned),
            refusal: probe.refusal.map(str::to_owned),
        })
        .collect()
}

/// Makes the syntax of the V8 that gave these answers the process's.
#[napi(js_name = "useRegexpSyntax")]
pub fn use_regexp_syntax(answers: Vec<bool>) -> Result<(), JsError> {
    let answers: [bool; PROBES.len()] = answers.try_into().map_err(|answers: Vec<bool>| {
        NativeError::new(
            NativeErrorCode::InvalidArgument,
            format!(
                "one answer per probe: {} probes, {} answers",
                PROBES.len(),
                answers.len()
            ),
        )
    })?;
    set_running(Syntax::from_probes(answers));
    Ok(())
}

/// The syntax the core follows, as the tests read it.
#[napi(object)]
pub struct RegexpSyntaxJs {
    pub modifiers: bool,
    /// `refused`, `one-range` or `disjoint` (see `DuplicateNames`).
    pub duplicate_names: String,
    pub folds_in_modifiers: bool,
    pub decimal_escape_in_class_words_decimal: bool,
}

#[napi(js_name = "regexpSyntax")]
pub fn regexp_syntax() -> RegexpSyntaxJs {
    let syntax = running();
    RegexpSyntaxJs {
        modifiers: syntax.modifiers,
        duplicate_names: match syntax.duplicate_names {
            DuplicateNames::Refused => "refused",
            DuplicateNames::OneRange => "one-range",
            DuplicateNames::Disjoint => "disjoint",
        }
        .to_owned(),
        folds_in_modifiers: syntax.folds_in_modifiers,
        decimal_escape_in_class_words_decimal: syntax.decimal_escape_in_class_words_decimal,
    }
}

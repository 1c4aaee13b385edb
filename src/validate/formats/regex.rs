//! `regex`: whether `new RegExp(str)` would throw in the running V8 (see `crate::js::regexp`).

use crate::js::regexp::{is_valid_pattern, running, Syntax};

/// `regex(str)`: false when `Z_ANCHOR = /[^\\]\\Z/` matches, else whether `new RegExp(str)`
/// (NO flags: the installed ajv-formats does not pass "u") would not throw in the V8 this
/// process runs in. See [`is_valid_pattern`] for the port of V8's non-Unicode (Annex B) syntax.
pub fn regex(value: &str) -> bool {
    regex_in(value, running())
}

/// `regex(str)` in a V8 of `syntax`.
pub fn regex_in(value: &str, syntax: Syntax) -> bool {
    !has_z_anchor(value) && is_valid_pattern(value, syntax)
}

/// `/[^\\]\\Z/.test(str)`: a `\Z` preceded by any code unit but a backslash. A UTF-8 byte before
/// the backslash is a backslash exactly when the UTF-16 code unit before it is.
fn has_z_anchor(value: &str) -> bool {
    let b = value.as_bytes();
    (1..b.len().saturating_sub(1)).any(|i| b[i] == b'\\' && b[i + 1] == b'Z' && b[i - 1] != b'\\')
}

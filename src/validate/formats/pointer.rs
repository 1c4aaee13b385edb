//! `json-pointer`, `json-pointer-uri-fragment` and `relative-json-pointer`.

use super::compile;
use regress::Regex;
use std::sync::LazyLock;

/// `json-pointer`, no flags. `[^~/]` matches one UTF-16 code unit in JS and one code point here;
/// it only occurs under `*`, so an astral character (two code units) matches in both.
pub(super) const JSON_POINTER_JS: (&str, &str) = (r"^(?:\/(?:[^~/]|~0|~1)*)*$", "");
static JSON_POINTER: LazyLock<Regex> =
    LazyLock::new(|| compile(JSON_POINTER_JS.0, JSON_POINTER_JS.1));

/// `json-pointer-uri-fragment`, flag `i`; positive ASCII classes only.
pub(super) const JSON_POINTER_URI_FRAGMENT_JS: (&str, &str) = (
    r"^#(?:\/(?:[a-z0-9_\-.!$&'()*+,;:=@]|%[0-9a-f]{2}|~0|~1)*)*$",
    "i",
);
static JSON_POINTER_URI_FRAGMENT: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        JSON_POINTER_URI_FRAGMENT_JS.0,
        JSON_POINTER_URI_FRAGMENT_JS.1,
    )
});

/// `relative-json-pointer`, no flags; `[^~/]` as in `json-pointer`.
pub(super) const RELATIVE_JSON_POINTER_JS: (&str, &str) =
    (r"^(?:0|[1-9][0-9]*)(?:#|(?:\/(?:[^~/]|~0|~1)*)*)$", "");
static RELATIVE_JSON_POINTER: LazyLock<Regex> =
    LazyLock::new(|| compile(RELATIVE_JSON_POINTER_JS.0, RELATIVE_JSON_POINTER_JS.1));

pub fn json_pointer(value: &str) -> bool {
    JSON_POINTER.find(value).is_some()
}

pub fn json_pointer_uri_fragment(value: &str) -> bool {
    value.is_ascii() && JSON_POINTER_URI_FRAGMENT.find(value).is_some()
}

pub fn relative_json_pointer(value: &str) -> bool {
    RELATIVE_JSON_POINTER.find(value).is_some()
}

//! `uuid` and `byte` (base64).

use super::compile;
use regress::Regex;
use std::sync::LazyLock;

/// `uuid`, flag `i`; positive ASCII classes only.
pub(super) const UUID_JS: (&str, &str) = (
    r"^(?:urn:uuid:)?[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$",
    "i",
);
static UUID: LazyLock<Regex> = LazyLock::new(|| compile(UUID_JS.0, UUID_JS.1));

/// `byte`: `/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/gm` with
/// `lastIndex` reset before `test`, i.e. a search from the start. Because of `m`, the string
/// passes when ANY line (split at `\n`, `\r`, U+2028, U+2029; regress uses the same line
/// terminators) is valid base64, including an empty line: `"!!!\n"` passes. There is no other
/// length rule.
pub(super) const BYTE_JS: (&str, &str) = (
    r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$",
    "m",
);
static BYTE: LazyLock<Regex> = LazyLock::new(|| compile(BYTE_JS.0, BYTE_JS.1));

pub fn uuid(value: &str) -> bool {
    value.is_ascii() && UUID.find(value).is_some()
}

pub fn byte(value: &str) -> bool {
    BYTE.find(value).is_some()
}

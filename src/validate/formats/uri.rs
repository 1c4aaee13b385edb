//! `uri`, `uri-reference` and `uri-template`: the regular expressions of formats.js, with
//! non-ASCII input handled before `regress` sees it (see [`super::compile`]).

use super::compile;
use regress::Regex;
use std::sync::LazyLock;

/// `uri` (with NOT_URI_FRAGMENT), flag `i`; positive ASCII classes only.
static URI: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r##"^(?:[a-z][a-z0-9+\-.]*:)(?:\/?\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:]|%[0-9a-f]{2})*@)?(?:\[(?:(?:(?:(?:[0-9a-f]{1,4}:){6}|::(?:[0-9a-f]{1,4}:){5}|(?:[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){4}|(?:(?:[0-9a-f]{1,4}:){0,1}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){3}|(?:(?:[0-9a-f]{1,4}:){0,2}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){2}|(?:(?:[0-9a-f]{1,4}:){0,3}[0-9a-f]{1,4})?::[0-9a-f]{1,4}:|(?:(?:[0-9a-f]{1,4}:){0,4}[0-9a-f]{1,4})?::)(?:[0-9a-f]{1,4}:[0-9a-f]{1,4}|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?))|(?:(?:[0-9a-f]{1,4}:){0,5}[0-9a-f]{1,4})?::[0-9a-f]{1,4}|(?:(?:[0-9a-f]{1,4}:){0,6}[0-9a-f]{1,4})?::)|[Vv][0-9a-f]+\.[a-z0-9\-._~!$&'()*+,;=:]+)\]|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?)|(?:[a-z0-9\-._~!$&'()*+,;=]|%[0-9a-f]{2})*)(?::\d*)?(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*|\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)?|(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)(?:\?(?:[a-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*)?(?:#(?:[a-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*)?$"##,
        "i",
    )
});

/// `uri-reference`, flag `i`; positive ASCII classes only.
pub(super) const URI_REFERENCE_JS: (&str, &str) = (
    r##"^(?:[a-z][a-z0-9+\-.]*:)?(?:\/?\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:]|%[0-9a-f]{2})*@)?(?:\[(?:(?:(?:(?:[0-9a-f]{1,4}:){6}|::(?:[0-9a-f]{1,4}:){5}|(?:[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){4}|(?:(?:[0-9a-f]{1,4}:){0,1}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){3}|(?:(?:[0-9a-f]{1,4}:){0,2}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){2}|(?:(?:[0-9a-f]{1,4}:){0,3}[0-9a-f]{1,4})?::[0-9a-f]{1,4}:|(?:(?:[0-9a-f]{1,4}:){0,4}[0-9a-f]{1,4})?::)(?:[0-9a-f]{1,4}:[0-9a-f]{1,4}|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?))|(?:(?:[0-9a-f]{1,4}:){0,5}[0-9a-f]{1,4})?::[0-9a-f]{1,4}|(?:(?:[0-9a-f]{1,4}:){0,6}[0-9a-f]{1,4})?::)|[Vv][0-9a-f]+\.[a-z0-9\-._~!$&'()*+,;=:]+)\]|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?)|(?:[a-z0-9\-._~!$&'"()*+,;=]|%[0-9a-f]{2})*)(?::\d*)?(?:\/(?:[a-z0-9\-._~!$&'"()*+,;=:@]|%[0-9a-f]{2})*)*|\/(?:(?:[a-z0-9\-._~!$&'"()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[a-z0-9\-._~!$&'"()*+,;=:@]|%[0-9a-f]{2})*)*)?|(?:[a-z0-9\-._~!$&'"()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[a-z0-9\-._~!$&'"()*+,;=:@]|%[0-9a-f]{2})*)*)?(?:\?(?:[a-z0-9\-._~!$&'"()*+,;=:@/?]|%[0-9a-f]{2})*)?(?:#(?:[a-z0-9\-._~!$&'"()*+,;=:@/?]|%[0-9a-f]{2})*)?$"##,
    "i",
);
static URI_REFERENCE: LazyLock<Regex> =
    LazyLock::new(|| compile(URI_REFERENCE_JS.0, URI_REFERENCE_JS.1));

/// `uri-template`, flag `i`. Its first alternative is a negated class that every non-ASCII
/// UTF-16 code unit matches; see `uri_template` for how non-ASCII input is handled.
pub(super) const URI_TEMPLATE_JS: (&str, &str) = (
    r##"^(?:(?:[^\x00-\x20"'<>%\\^`{|}]|%[0-9a-f]{2})|\{[+#./;?&=,!@|]?(?:[a-z0-9_]|%[0-9a-f]{2})+(?::[1-9][0-9]{0,3}|\*)?(?:,(?:[a-z0-9_]|%[0-9a-f]{2})+(?::[1-9][0-9]{0,3}|\*)?)*\})*$"##,
    "i",
);
static URI_TEMPLATE: LazyLock<Regex> =
    LazyLock::new(|| compile(URI_TEMPLATE_JS.0, URI_TEMPLATE_JS.1));

/// `uri(str)`: `NOT_URI_FRAGMENT.test(str) && URI.test(str)` with `NOT_URI_FRAGMENT = /\/|:/`.
pub fn uri(value: &str) -> bool {
    value.contains(['/', ':']) && value.is_ascii() && URI.find(value).is_some()
}

/// `uri-reference`: its pattern has only positive ASCII classes.
pub fn uri_reference(value: &str) -> bool {
    value.is_ascii() && URI_REFERENCE.find(value).is_some()
}

/// `uri-template`: every non-ASCII code unit can only be matched by the negated class
/// `[^\x00-\x20"'<>%\\^`{|}]` (non-Unicode ignoreCase never relates it to an ASCII character).
/// `~` is an ASCII character that the negated class matches and that no other part of the
/// pattern matches, so replacing each non-ASCII character by `~` keeps the JS answer and keeps
/// regress' Unicode case folding away from the input. (An astral character is two code units in
/// JS and one `~` here; the class stands under `*`, so the count does not matter.)
pub fn uri_template(value: &str) -> bool {
    if value.is_ascii() {
        URI_TEMPLATE.find(value).is_some()
    } else {
        let mapped: String = value
            .chars()
            .map(|c| if c.is_ascii() { c } else { '~' })
            .collect();
        URI_TEMPLATE.find(&mapped).is_some()
    }
}

//! The formats of `ajv-formats` 3 in full mode (`fullFormats`), ported to give exactly the answers
//! of the JavaScript (`ajv-formats/dist/formats.js` and `dist/limit.js`) as Ajv 8 runs it on
//! Node 20 (V8 11.3, Unicode 17).
//!
//! How Ajv applies a format (`ajv/dist/vocabularies/format/format.js`):
//! * the `format` keyword applies to strings and numbers only; a format is checked only when the
//!   JSON type of the data equals the format's [`FormatType`] (a string format passes any number,
//!   a number format passes any string; other JSON types always pass);
//! * `password` and `binary` are defined as `true`: they always pass (see [`Format::is_unchecked`]);
//! * in strict mode an unknown format name is a compile-time error
//!   (`unknown format "NAME" ignored in schema at path "PATH"`); [`lookup`] returns `None` for it.
//!   (Ajv keeps its formats in an `Object.create(null)` map, so names such as `toString` are
//!   unknown too.)
//!
//! Where the JavaScript uses a regular expression, the same pattern runs here through `regress`
//! (an ECMAScript regex engine) with the same flags, except where a short hand-written parser is
//! clearer, or faster than regress' backtracking, and provably identical (noted at each place).
//! JavaScript strings are UTF-16 while `&str` is UTF-8; every place where that could change an
//! answer is discussed in a comment.
//!
//! The `regex` format is `new RegExp(str)` WITHOUT flags in the installed ajv-formats (not
//! `new RegExp(str, "u")`), so it follows the non-Unicode grammar with the Annex B extensions,
//! ported from V8 in `crate::js::regexp`. Ajv's own `unicodeRegExp` option does not apply to formats.
//!
//! Strings reach this module as `&str`: a JavaScript string with a lone surrogate (possible in
//! `JSON.parse("\"\\ud800\"")`) has no `&str` form, so such data must be handled before.
//!
//! One behaviour cannot be reproduced from inside this crate: `new Date(string)` (used by the
//! `compare` functions of `time` and `date-time`) reads a date-time without a UTC offset as local
//! time. The port assumes the Node process runs in UTC (`TZ=UTC`). With another time zone Ajv's
//! answer can differ whenever a compared string has no offset: when it is compared with one that
//! has an offset, when it falls in a daylight-saving gap or overlap, or when it denotes the epoch
//! (`compare` treats a time value of 0 as missing).
//!
//! One file per family of formats; the expected answers of ajv-formats are fixtures in
//! `fixtures/`, rebuilt by `scripts/format-vectors.mjs`.

mod compare;
mod date_time;
mod encoded;
mod host;
mod pointer;
mod regex;
mod uri;
mod url;

use regress::Regex;
use serde_json::Number;
use std::cmp::Ordering;

/// What a format validates: strings or numbers (Ajv's `type` of a format definition).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormatType {
    /// The format applies to JSON strings (the default of Ajv).
    String,
    /// The format applies to JSON numbers (`int32`, `int64`, `float`, `double`).
    Number,
}

/// How a format checks its data (private: one variant per validate function of `formats.js`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    Date,
    /// `getTime(strictTimeZone)`: `time` (strict) and `iso-time`.
    Time {
        strict_time_zone: bool,
    },
    /// `getDateTime(strictTimeZone)`: `date-time` (strict) and `iso-date-time`.
    DateTime {
        strict_time_zone: bool,
    },
    Duration,
    Uri,
    UriReference,
    UriTemplate,
    Url,
    Email,
    Hostname,
    Ipv4,
    Ipv6,
    Regex,
    Uuid,
    JsonPointer,
    JsonPointerUriFragment,
    RelativeJsonPointer,
    Byte,
    Int32,
    Int64,
    /// `validateNumber` of `float` and `double`: always true.
    AnyNumber,
    /// A format defined as `true` (`password`, `binary`): never checked.
    Unchecked,
}

/// The `compare` function of a format (private).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Compare {
    Date,
    Time,
    DateTime,
    IsoTime,
    IsoDateTime,
}

/// A known format of ajv-formats (full mode).
#[derive(Debug)]
pub struct Format {
    /// The name used in `"format": NAME`.
    pub name: &'static str,
    /// Which JSON type the format applies to.
    pub kind: FormatType,
    check: Check,
    compare: Option<Compare>,
}

const fn string_format(name: &'static str, check: Check, compare: Option<Compare>) -> Format {
    Format {
        name,
        kind: FormatType::String,
        check,
        compare,
    }
}

const fn number_format(name: &'static str, check: Check) -> Format {
    Format {
        name,
        kind: FormatType::Number,
        check,
        compare: None,
    }
}

/// All formats, in the order of `formatNames` (the keys of `fullFormats`).
static FORMATS: [Format; 26] = [
    string_format("date", Check::Date, Some(Compare::Date)),
    string_format(
        "time",
        Check::Time {
            strict_time_zone: true,
        },
        Some(Compare::Time),
    ),
    string_format(
        "date-time",
        Check::DateTime {
            strict_time_zone: true,
        },
        Some(Compare::DateTime),
    ),
    string_format(
        "iso-time",
        Check::Time {
            strict_time_zone: false,
        },
        Some(Compare::IsoTime),
    ),
    string_format(
        "iso-date-time",
        Check::DateTime {
            strict_time_zone: false,
        },
        Some(Compare::IsoDateTime),
    ),
    string_format("duration", Check::Duration, None),
    string_format("uri", Check::Uri, None),
    string_format("uri-reference", Check::UriReference, None),
    string_format("uri-template", Check::UriTemplate, None),
    string_format("url", Check::Url, None),
    string_format("email", Check::Email, None),
    string_format("hostname", Check::Hostname, None),
    string_format("ipv4", Check::Ipv4, None),
    string_format("ipv6", Check::Ipv6, None),
    string_format("regex", Check::Regex, None),
    string_format("uuid", Check::Uuid, None),
    string_format("json-pointer", Check::JsonPointer, None),
    string_format(
        "json-pointer-uri-fragment",
        Check::JsonPointerUriFragment,
        None,
    ),
    string_format("relative-json-pointer", Check::RelativeJsonPointer, None),
    string_format("byte", Check::Byte, None),
    number_format("int32", Check::Int32),
    number_format("int64", Check::Int64),
    number_format("float", Check::AnyNumber),
    number_format("double", Check::AnyNumber),
    string_format("password", Check::Unchecked, None),
    string_format("binary", Check::Unchecked, None),
];

/// The known format called `name`, or None (Ajv's strict mode refuses unknown formats at compile time).
pub fn lookup(name: &str) -> Option<&'static Format> {
    FORMATS.iter().find(|f| f.name == name)
}

/// All known formats, in the order of ajv-formats' `formatNames`.
pub fn all() -> &'static [Format] {
    &FORMATS
}

impl Format {
    /// Whether `value` (already known to be of this format's type) passes; for String formats
    /// `value` is the string. A Number format returns true here (Ajv does not apply it to strings);
    /// `password` and `binary` always return true.
    pub fn check_str(&self, value: &str) -> bool {
        match self.check {
            Check::Date => date_time::date(value),
            Check::Time { strict_time_zone } => date_time::time(value, strict_time_zone),
            Check::DateTime { strict_time_zone } => date_time::date_time(value, strict_time_zone),
            Check::Duration => date_time::duration(value),
            Check::Uri => uri::uri(value),
            Check::UriReference => uri::uri_reference(value),
            Check::UriTemplate => uri::uri_template(value),
            Check::Url => url::url(value),
            Check::Email => host::email(value),
            Check::Hostname => host::hostname(value),
            Check::Ipv4 => host::ipv4(value),
            Check::Ipv6 => host::ipv6(value),
            Check::Regex => regex::regex(value),
            Check::Uuid => encoded::uuid(value),
            Check::JsonPointer => pointer::json_pointer(value),
            Check::JsonPointerUriFragment => pointer::json_pointer_uri_fragment(value),
            Check::RelativeJsonPointer => pointer::relative_json_pointer(value),
            Check::Byte => encoded::byte(value),
            Check::Int32 | Check::Int64 | Check::AnyNumber | Check::Unchecked => true,
        }
    }

    /// For Number formats: whether the JSON number passes. The number is taken as JavaScript
    /// sees it after `JSON.parse` (the nearest double). String formats return true here.
    pub fn check_number(&self, value: &Number) -> bool {
        match value.as_f64() {
            Some(v) => self.check_f64(v),
            // Unreachable without serde_json's `arbitrary_precision`; NaN is what JS would see.
            None => self.check_f64(f64::NAN),
        }
    }

    /// [`Format::check_number`] on a JavaScript number (a double).
    pub fn check_f64(&self, value: f64) -> bool {
        match self.check {
            // validateInt32: Number.isInteger(value) && value <= MAX_INT32 && value >= MIN_INT32
            Check::Int32 => {
                is_integer(value) && (-2_147_483_648.0..=2_147_483_647.0).contains(&value)
            }
            // validateInt64: Number.isInteger(value) only (so 2**53 and 1e300 pass).
            Check::Int64 => is_integer(value),
            _ => true,
        }
    }

    /// `compare(a, b)` as the format-limit keywords use it: Some(ordering) or None where
    /// ajv-formats' compare returns undefined; None also for formats without compare.
    ///
    /// The keywords call `compare(data, limit)` (data first) and fail when the result is
    /// `> 0` (formatMaximum), `< 0` (formatMinimum), `>= 0` (formatExclusiveMaximum) or `<= 0`
    /// (formatExclusiveMinimum). Every comparison with `undefined` is false, so `None` never
    /// fails. With `allErrors` the limit is checked even when `format` itself failed, so this
    /// is exact for any pair of strings, not only for valid ones.
    pub fn compare(&self, a: &str, b: &str) -> Option<Ordering> {
        match self.compare? {
            Compare::Date => compare::date(a, b),
            Compare::Time => compare::time(Some(a), Some(b)),
            Compare::DateTime => compare::date_time(a, b),
            Compare::IsoTime => compare::iso_time(a, b),
            Compare::IsoDateTime => compare::iso_date_time(a, b),
        }
    }

    /// Whether this format has a `compare` (date, time, date-time, iso-time, iso-date-time).
    ///
    /// `limit.js` (keywords formatMinimum, formatMaximum, formatExclusiveMinimum,
    /// formatExclusiveMaximum; they apply to strings only and need a sibling `format`, else Ajv
    /// throws `parent schema must have dependencies of KEYWORD: format`) behaves at compile time,
    /// for a literal format name, as follows:
    /// * unknown format, or one defined as `true` ([`Format::is_unchecked`]: `password`,
    ///   `binary`): the limit keyword is silently ignored (no error, no check);
    /// * a known format without compare: Ajv throws
    ///   `"KEYWORD": format "NAME" does not define "compare" function`;
    /// * otherwise the data is checked with [`Format::compare`].
    ///
    /// When the sibling `format` is `{"$data": ...}`, nothing is refused at compile time and the
    /// limit keyword fails at run time whenever the named format is unknown, is `true`, or has no
    /// compare.
    pub fn can_compare(&self) -> bool {
        self.compare.is_some()
    }

    /// The one JavaScript regular expression (source, flags) whose `test` is this format's
    /// whole check in ajv-formats, for the in-process fast path to run as Ajv does; `None`
    /// where the check is more than that (a function, or no check).
    pub fn js_regex(&self) -> Option<(&'static str, &'static str)> {
        match self.check {
            Check::Duration => Some(date_time::DURATION_JS),
            Check::UriReference => Some(uri::URI_REFERENCE_JS),
            Check::UriTemplate => Some(uri::URI_TEMPLATE_JS),
            Check::Email => Some(host::EMAIL_JS),
            Check::Ipv4 => Some(host::IPV4_JS),
            Check::Ipv6 => Some(host::IPV6_JS),
            Check::Uuid => Some(encoded::UUID_JS),
            Check::JsonPointer => Some(pointer::JSON_POINTER_JS),
            Check::JsonPointerUriFragment => Some(pointer::JSON_POINTER_URI_FRAGMENT_JS),
            Check::RelativeJsonPointer => Some(pointer::RELATIVE_JSON_POINTER_JS),
            Check::Byte => Some(encoded::BYTE_JS),
            _ => None,
        }
    }

    /// Whether the format is defined as `true` in ajv-formats (`password`, `binary`): the
    /// `format` keyword always passes and the format-limit keywords are ignored (see
    /// [`Format::can_compare`]).
    pub fn is_unchecked(&self) -> bool {
        self.check == Check::Unchecked
    }
}

/// JavaScript's `Number.isInteger`: finite and without fractional part (1.0 is an integer, and
/// so is every double beyond 2^53).
fn is_integer(v: f64) -> bool {
    v.is_finite() && v.trunc() == v
}

/// A constant regular expression of formats.js (its `source`, verbatim, and its flags).
///
/// The following patterns carry the `i` flag without `u`. In JavaScript, non-Unicode ignoreCase
/// compares `toUpperCase` forms but never maps a non-ASCII character to an ASCII one, so with
/// these all-ASCII patterns a non-ASCII character of the input can only be matched by a negated
/// class (or `.`). regress, however, applies Unicode case folding to classes even without `u`
/// (it matches U+017F `ſ` against `[a-z]`, and U+212A KELVIN SIGN against `k`). Each use
/// therefore first handles non-ASCII input itself: where the pattern has only positive ASCII
/// classes, any non-ASCII character makes the JS regex fail (`value.is_ascii() && ...`); for
/// `uri-template` see `uri_template`.
fn compile(pattern: &str, flags: &str) -> Regex {
    Regex::with_flags(pattern, flags)
        .expect("a constant regular expression of ajv-formats compiles in regress")
}

#[cfg(test)]
mod tests;

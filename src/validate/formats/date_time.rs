//! `date`, `time`, `date-time` (and their `iso-` forms without a required offset), `duration`.

use super::compile;
use crate::js::is_js_whitespace;
use regress::Regex;
use std::sync::LazyLock;

/// `duration`: `/^P(?!$)((\d+Y)?(\d+M)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?|(\d+W)?)$/`.
/// ASCII only, no flags: the answers do not depend on UTF-16 versus UTF-8.
pub(super) const DURATION_JS: (&str, &str) = (
    r"^P(?!$)((\d+Y)?(\d+M)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?|(\d+W)?)$",
    "",
);
static DURATION: LazyLock<Regex> = LazyLock::new(|| compile(DURATION_JS.0, DURATION_JS.1));

pub fn duration(value: &str) -> bool {
    DURATION.find(value).is_some()
}

/// `DAYS` of formats.js (index 0 unused).
const DAYS: [u32; 13] = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

fn is_leap_year(year: u32) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// The decimal value of an all-digit ASCII string (callers pass at most 4 digits).
pub fn digits_value(s: &[u8]) -> u32 {
    s.iter().fold(0, |acc, &d| acc * 10 + u32::from(d - b'0'))
}

pub fn all_digits(s: &[u8]) -> bool {
    s.iter().all(u8::is_ascii_digit)
}

/// `date(str)`. `DATE = /^(\d\d\d\d)-(\d\d)-(\d\d)$/` is parsed by hand: without `m`, `$` only
/// matches at the very end and `\d` is ASCII, so the match is exactly 10 ASCII bytes.
pub fn date(value: &str) -> bool {
    let b = value.as_bytes();
    if b.len() != 10
        || b[4] != b'-'
        || b[7] != b'-'
        || !all_digits(&b[0..4])
        || !all_digits(&b[5..7])
        || !all_digits(&b[8..10])
    {
        return false;
    }
    let year = digits_value(&b[0..4]);
    let month = digits_value(&b[5..7]);
    let day = digits_value(&b[8..10]);
    (1..=12).contains(&month)
        && day >= 1
        && day
            <= if month == 2 && is_leap_year(year) {
                29
            } else {
                DAYS[month as usize]
            }
}

/// The captures of `TIME = /^(\d\d):(\d\d):(\d\d(?:\.\d+)?)(z|([+-])(\d\d)(?::?(\d\d))?)?$/i`.
pub struct TimeMatch<'a> {
    pub hour: &'a str,
    pub minute: &'a str,
    /// Group 3: `ss` or `ss.fff…`.
    pub second: &'a str,
    /// Group 4 is present.
    pub has_zone: bool,
    /// Group 5 is `-`.
    pub negative: bool,
    /// Group 6 (or None).
    pub zone_hour: Option<&'a str>,
    /// Group 7 (or None).
    pub zone_minute: Option<&'a str>,
}

/// `TIME.exec(str)`, parsed by hand. The pattern is deterministic: after the seconds an optional
/// `.` must be followed by at least one digit (else the zone alternative fails at the `.`), and
/// the zone is `z`/`Z` (non-Unicode ignoreCase maps nothing else to `Z`), or a sign, two digits
/// and optionally (an optional `:` and) two more digits, then the end. Non-ASCII never matches.
pub fn time_match(value: &str) -> Option<TimeMatch<'_>> {
    let b = value.as_bytes();
    if b.len() < 8
        || !all_digits(&b[0..2])
        || b[2] != b':'
        || !all_digits(&b[3..5])
        || b[5] != b':'
        || !all_digits(&b[6..8])
    {
        return None;
    }
    let mut i = 8;
    if b.get(i) == Some(&b'.') {
        let start = i + 1;
        let mut j = start;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j == start {
            return None;
        }
        i = j;
    }
    let second = &value[6..i];
    let mut m = TimeMatch {
        hour: &value[0..2],
        minute: &value[3..5],
        second,
        has_zone: false,
        negative: false,
        zone_hour: None,
        zone_minute: None,
    };
    match b.get(i) {
        None => return Some(m),
        Some(b'z' | b'Z') => {
            if i + 1 != b.len() {
                return None;
            }
            m.has_zone = true;
        }
        Some(&sign @ (b'+' | b'-')) => {
            let rest = &b[i + 1..];
            let minutes_at = match rest.len() {
                2 => None,
                4 => Some(i + 3),
                5 if rest[2] == b':' => Some(i + 4),
                _ => return None,
            };
            if !all_digits(&rest[0..2]) {
                return None;
            }
            if let Some(at) = minutes_at {
                if !all_digits(&b[at..at + 2]) {
                    return None;
                }
                m.zone_minute = Some(&value[at..at + 2]);
            }
            m.has_zone = true;
            m.negative = sign == b'-';
            m.zone_hour = Some(&value[i + 1..i + 3]);
        }
        Some(_) => return None,
    }
    Some(m)
}

/// `getTime(strictTimeZone)(str)`.
pub fn time(value: &str, strict_time_zone: bool) -> bool {
    let Some(m) = time_match(value) else {
        return false;
    };
    let hr = i64::from(digits_value(m.hour.as_bytes()));
    let min = i64::from(digits_value(m.minute.as_bytes()));
    // `+matches[3]`: JS ToNumber of `dd` or `dd.ddd…`, correctly rounded like Rust's parser
    // (so "59.99999999999999999" is 60).
    let sec: f64 = m.second.parse().unwrap_or(f64::NAN);
    let tz_sign: i64 = if m.negative { -1 } else { 1 };
    let tz_h = m
        .zone_hour
        .map_or(0, |s| i64::from(digits_value(s.as_bytes())));
    let tz_m = m
        .zone_minute
        .map_or(0, |s| i64::from(digits_value(s.as_bytes())));
    if tz_h > 23 || tz_m > 59 || (strict_time_zone && !m.has_zone) {
        return false;
    }
    if hr <= 23 && min <= 59 && sec < 60.0 {
        return true;
    }
    // leap second
    let utc_min = min - tz_m * tz_sign;
    let utc_hr = hr - tz_h * tz_sign - i64::from(utc_min < 0);
    (utc_hr == 23 || utc_hr == -1) && (utc_min == 59 || utc_min == -1) && sec < 61.0
}

/// `DATE_TIME_SEPARATOR = /t|\s/i` (non-Unicode ignoreCase: only `t` and `T` match `t`).
fn is_date_time_separator(c: char) -> bool {
    c == 't' || c == 'T' || is_js_whitespace(c)
}

/// `str.split(DATE_TIME_SEPARATOR)`: the separator matches exactly one character, so this is a
/// plain split at each separator character (`"".split(..)` is `[""]`, as in JS).
pub fn split_date_time(value: &str) -> std::str::Split<'_, fn(char) -> bool> {
    value.split(is_date_time_separator as fn(char) -> bool)
}

/// `getDateTime(strictTimeZone)(str)`.
pub fn date_time(value: &str, strict_time_zone: bool) -> bool {
    let mut parts = split_date_time(value);
    match (parts.next(), parts.next(), parts.next()) {
        (Some(d), Some(t), None) => date(d) && time(t, strict_time_zone),
        _ => false,
    }
}

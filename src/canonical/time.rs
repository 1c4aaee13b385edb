//! UTC calendar dates for `artifactVersion` and `publishedAt`, as `Date` writes them.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

struct Civil {
    year: i64,
    month: u32,
    day: u32,
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> Civil {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    Civil { year, month, day }
}

fn since_epoch(now: SystemTime) -> Duration {
    // A clock before 1970 is treated as the epoch: nothing here is meaningful then.
    now.duration_since(UNIX_EPOCH).unwrap_or_default()
}

/// `YYYYMMDD` of `now` in UTC.
pub fn utc_yyyymmdd(now: SystemTime) -> String {
    let date = civil_from_days((since_epoch(now).as_secs() / 86_400) as i64);
    format!("{:04}{:02}{:02}", date.year, date.month, date.day)
}

/// `now` as `Date.prototype.toISOString` writes it: `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn iso_utc_millis(now: SystemTime) -> String {
    let mut out = String::with_capacity(24);
    write_iso_utc_millis(&mut out, now);
    out
}

/// [`iso_utc_millis`] appended to `out`: every log record starts with it, so the digits are
/// written by hand rather than through `format!`.
pub fn write_iso_utc_millis(out: &mut String, now: SystemTime) {
    let elapsed = since_epoch(now);
    let secs = elapsed.as_secs();
    let date = civil_from_days((secs / 86_400) as i64);
    match u32::try_from(date.year) {
        Ok(year) if year <= 9_999 => push_digits(out, year, 4),
        _ => out.push_str(&format!("{:04}", date.year)),
    }
    let in_day = (secs % 86_400) as u32;
    out.push('-');
    push_digits(out, date.month, 2);
    out.push('-');
    push_digits(out, date.day, 2);
    out.push('T');
    push_digits(out, in_day / 3_600, 2);
    out.push(':');
    push_digits(out, in_day % 3_600 / 60, 2);
    out.push(':');
    push_digits(out, in_day % 60, 2);
    out.push('.');
    push_digits(out, elapsed.subsec_millis(), 3);
    out.push('Z');
}

/// The last `width` decimal digits of `n`, zero-padded.
fn push_digits(out: &mut String, n: u32, width: u32) {
    for place in (0..width).rev() {
        let digit = n / 10u32.pow(place) % 10;
        out.push(char::from(b'0' + digit as u8));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(millis: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(millis)
    }

    #[test]
    fn formats_like_date() {
        assert_eq!(iso_utc_millis(at(0)), "1970-01-01T00:00:00.000Z");
        // new Date(1790000000123).toISOString()
        assert_eq!(
            iso_utc_millis(at(1_790_000_000_123)),
            "2026-09-21T14:13:20.123Z"
        );
        assert_eq!(utc_yyyymmdd(at(1_790_000_000_123)), "20260921");
        // 2024-02-29T23:59:59.999Z, a leap day
        assert_eq!(
            iso_utc_millis(at(1_709_251_199_999)),
            "2024-02-29T23:59:59.999Z"
        );
        assert_eq!(utc_yyyymmdd(at(951_782_400_000)), "20000229");
    }

    #[test]
    fn digits_written_by_hand_match_format() {
        // Steps through 1970 to 2100 at an odd stride, so every field takes many values.
        let mut millis = 0u64;
        while millis < 4_102_444_800_000 {
            let now = at(millis);
            let elapsed = since_epoch(now);
            let secs = elapsed.as_secs();
            let date = civil_from_days((secs / 86_400) as i64);
            let in_day = secs % 86_400;
            let expected = format!(
                "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
                date.year,
                date.month,
                date.day,
                in_day / 3_600,
                in_day % 3_600 / 60,
                in_day % 60,
                elapsed.subsec_millis()
            );
            assert_eq!(iso_utc_millis(now), expected);
            millis += 123_456_789;
        }
    }
}

//! The `compare` functions of ajv-formats, behind `formatMaximum` and its kin.

use super::date_time::{split_date_time, time_match};
use crate::js::cmp_utf16;
use crate::js::date::parse_date_ms;
use std::cmp::Ordering;

/// `compareDate(d1, d2)`: undefined when either is empty, else string order.
pub fn date(d1: &str, d2: &str) -> Option<Ordering> {
    if d1.is_empty() || d2.is_empty() {
        return None;
    }
    Some(cmp_utf16(d1, d2))
}

/// `new Date(str).valueOf()` as `x && …`: None for NaN and for 0 (both falsy in JS).
fn truthy_date_value(units: &[u16]) -> Option<i64> {
    parse_date_ms(units).filter(|&t| t != 0)
}

/// `compareTime(s1, s2)` (`undefined` is passed as None by `compareIsoDateTime`).
pub fn time(s1: Option<&str>, s2: Option<&str>) -> Option<Ordering> {
    let (s1, s2) = (s1?, s2?);
    if s1.is_empty() || s2.is_empty() {
        return None;
    }
    let with_prefix = |s: &str| -> Vec<u16> {
        "2020-01-01T"
            .encode_utf16()
            .chain(s.encode_utf16())
            .collect()
    };
    let t1 = truthy_date_value(&with_prefix(s1))?;
    let t2 = truthy_date_value(&with_prefix(s2))?;
    Some(t1.cmp(&t2))
}

/// `compareDateTime(dt1, dt2)`.
pub fn date_time(dt1: &str, dt2: &str) -> Option<Ordering> {
    if dt1.is_empty() || dt2.is_empty() {
        return None;
    }
    let d1 = truthy_date_value(&dt1.encode_utf16().collect::<Vec<u16>>())?;
    let d2 = truthy_date_value(&dt2.encode_utf16().collect::<Vec<u16>>())?;
    Some(d1.cmp(&d2))
}

/// `compareIsoTime(t1, t2)`: compares `hh + mm + ss(.fff)` of both `TIME` matches as strings.
pub fn iso_time(t1: &str, t2: &str) -> Option<Ordering> {
    if t1.is_empty() || t2.is_empty() {
        return None;
    }
    let a1 = time_match(t1)?;
    let a2 = time_match(t2)?;
    let k1 = [a1.hour, a1.minute, a1.second].concat();
    let k2 = [a2.hour, a2.minute, a2.second].concat();
    Some(k1.cmp(&k2))
}

/// `compareIsoDateTime(dt1, dt2)`: `[d, t] = dt.split(DATE_TIME_SEPARATOR)`; compare the dates
/// as strings, and the times with `compareTime` when the dates are equal.
pub fn iso_date_time(dt1: &str, dt2: &str) -> Option<Ordering> {
    if dt1.is_empty() || dt2.is_empty() {
        return None;
    }
    let mut p1 = split_date_time(dt1);
    let mut p2 = split_date_time(dt2);
    let (d1, t1) = (p1.next().unwrap_or(""), p1.next());
    let (d2, t2) = (p2.next().unwrap_or(""), p2.next());
    match date(d1, d2)? {
        Ordering::Equal => time(t1, t2),
        res => Some(res),
    }
}

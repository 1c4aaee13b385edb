//! The JavaScript service's numeric options as the TypeScript service reads them: JavaScript
//! numbers (a fraction, Infinity) turned into the core's counts and durations.

/// `maxConcurrency` as a cap: TypeScript refuses a call once `inFlight >= n`, so a fraction
/// admits up to the next whole number (1.5 admits two) and Infinity has no cap (saturating).
pub fn concurrency_cap(n: f64) -> usize {
    n.ceil() as usize
}

/// `defaultTimeoutMs` as Node's `setTimeout` takes the TypeScript service's deadline: under
/// 1 ms is 1 ms, so a deadline of 0 does not answer a call before its handler could run. (Past
/// 2^31-1 ms Node fires at once; here it waits, as a deadline that long means.)
pub fn default_deadline_ms(ms: f64) -> u64 {
    ms.max(1.0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_default_deadline_under_a_millisecond_is_one() {
        assert_eq!(default_deadline_ms(0.0), 1);
        assert_eq!(default_deadline_ms(0.5), 1);
        assert_eq!(default_deadline_ms(1.5), 1);
        assert_eq!(default_deadline_ms(120_000.0), 120_000);
        assert_eq!(default_deadline_ms(f64::INFINITY), u64::MAX);
    }

    #[test]
    fn a_fractional_cap_admits_as_in_flight_at_least_n_refuses() {
        assert_eq!(concurrency_cap(0.0), 0);
        assert_eq!(concurrency_cap(1.0), 1);
        assert_eq!(concurrency_cap(1.5), 2);
        assert_eq!(concurrency_cap(f64::INFINITY), usize::MAX);
    }
}

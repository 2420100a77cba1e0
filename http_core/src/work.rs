//! `GET /work/{µs}`: a handler that does real work, for the question most readers bring
//! ("my handler costs 100 µs: is io_uring worth it for me?"). It keeps its thread's CPU
//! busy for the stated number of microseconds, then answers like `GET /`, so a study can
//! set a framework's own cost beside an application's: every server runs this same code,
//! on its own request thread, as a real handler would.
//!
//! The work is a spin on the monotonic clock, not a computation of fixed size: its cost
//! is the same time on every machine, which is what a reader's "my handler costs 100 µs"
//! means. `µs` is decimal digits only, from 0 to [`MAX_WORK_MICROS`]; anything else names
//! no resource (404).

use std::time::{Duration, Instant};

/// The longest a `GET /work/{µs}` request may keep its thread busy. Default is 10 ms.
pub const MAX_WORK_MICROS: u64 = 10_000;

/// The microseconds of `/work/{digits}`; `None` when `digits` is not a number in range.
pub fn work_micros(digits: &str) -> Option<u64> {
    if digits.is_empty() || digits.len() > 5 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok().filter(|&micros| micros <= MAX_WORK_MICROS)
}

/// Keeps this thread busy for `micros` microseconds of wall time.
pub fn spin(micros: u64) {
    let until = Instant::now() + Duration::from_micros(micros);
    while Instant::now() < until {
        std::hint::spin_loop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_decimal_microseconds_in_range_are_work() {
        assert_eq!(work_micros("100"), Some(100));
        assert_eq!(work_micros("0"), Some(0));
        assert_eq!(work_micros(&MAX_WORK_MICROS.to_string()), Some(MAX_WORK_MICROS));
        for bad in ["", "10001", "1e3", "-5", "99999999999999999999", " 5"] {
            assert_eq!(work_micros(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn a_spin_lasts_at_least_its_time() {
        let begun = Instant::now();
        spin(2_000);
        assert!(begun.elapsed() >= Duration::from_micros(2_000));
    }
}

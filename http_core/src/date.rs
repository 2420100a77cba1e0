//! The `Date` header value, formatted at most once per second per thread.

use std::cell::RefCell;
use std::time::{SystemTime, UNIX_EPOCH};

/// Length of an IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
pub const DATE_LEN: usize = 29;

struct Cached {
    second: u64,
    value: [u8; DATE_LEN],
}

thread_local! {
    static CACHE: RefCell<Cached> = const { RefCell::new(Cached { second: u64::MAX, value: [0; DATE_LEN] }) };
}

/// The current time as an IMF-fixdate (RFC 9110 section 5.6.7).
///
/// Reading the clock is a vDSO call; formatting happens only when the second changes.
pub fn http_date() -> [u8; DATE_LEN] {
    let now = SystemTime::now();
    let second = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    CACHE.with_borrow_mut(|cache| {
        if cache.second != second {
            let formatted = httpdate::fmt_http_date(now);
            cache.value.copy_from_slice(&formatted.as_bytes()[..DATE_LEN]);
            cache.second = second;
        }
        cache.value
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_is_an_imf_fixdate_that_parses_back_to_now() {
        let value = http_date();
        let text = std::str::from_utf8(&value).unwrap();
        assert!(text.ends_with(" GMT"), "{text}");
        let parsed = httpdate::parse_http_date(text).unwrap();
        let skew = SystemTime::now().duration_since(parsed).unwrap();
        assert!(skew.as_secs() < 5, "{text} is {skew:?} old");
    }
}

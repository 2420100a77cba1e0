//! How long a request may take to arrive, head or body: a grace period from its first
//! byte, extended by every byte that arrives at the minimum rate (Apache's
//! `mod_reqtimeout` rule, `MinRate`). A client on a slow honest network sends a head in
//! well under the grace and a body faster than the rate; one that trickles a byte every
//! few seconds is closed once its grace is spent, however often it sends. The silence
//! timeout ([`crate::limits::REQUEST_TIMEOUT`]) still applies beside it.
//!
//! The clock is pure: a server passes in the time (measured from an origin it picks, such
//! as the connection's start) and the bytes it received, and asks for the deadline.

use std::time::Duration;

/// Time a request may take from its first byte before the rate floor applies, the head
/// included. Default is 60 seconds, nginx's `client_header_timeout`.
pub const REQUEST_GRACE: Duration = Duration::from_secs(60);

/// Bytes per second a request must average past its grace: each byte received extends
/// its deadline by `1 / MIN_REQUEST_RATE` seconds. Default is 500, `mod_reqtimeout`'s
/// `MinRate`.
pub const MIN_REQUEST_RATE: u64 = 500;

/// A request's time budget: the grace, and the byte rate that extends it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pace {
    /// See [`REQUEST_GRACE`].
    pub grace: Duration,
    /// See [`MIN_REQUEST_RATE`]; at least 1.
    pub min_rate: u64,
}

impl Default for Pace {
    fn default() -> Self {
        Pace {
            grace: REQUEST_GRACE,
            min_rate: MIN_REQUEST_RATE,
        }
    }
}

/// One connection's request clock: when the request in progress began arriving, and how
/// many bytes of it have arrived since.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RequestClock {
    started: Option<Duration>,
    bytes: u64,
}

impl RequestClock {
    /// `bytes` of a request arrived at `now`; the first since [`RequestClock::stop`] (or
    /// ever) starts the clock. Bytes of TLS records count as they arrive.
    pub fn received(&mut self, now: Duration, bytes: usize) {
        self.started.get_or_insert(now);
        self.bytes = self.bytes.saturating_add(bytes as u64);
    }

    /// The request in progress was answered, or nothing of one is held: the clock stops
    /// until the next byte.
    pub fn stop(&mut self) {
        *self = RequestClock::default();
    }

    /// Whether a request is being timed.
    pub fn running(&self) -> bool {
        self.started.is_some()
    }

    /// When the request in progress must be complete (in time since the same origin as
    /// `now` was given in); `None` while no request is being timed.
    pub fn deadline(&self, pace: Pace) -> Option<Duration> {
        let earned = Duration::from_secs_f64(self.bytes as f64 / pace.min_rate.max(1) as f64);
        // Saturating: a grace of u64::MAX seconds means no pace, not an overflow.
        self.started
            .map(|started| started.saturating_add(pace.grace).saturating_add(earned))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PACE: Pace = Pace {
        grace: Duration::from_secs(60),
        min_rate: 500,
    };

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    #[test]
    fn a_trickled_head_gets_the_grace_and_little_more() {
        let mut clock = RequestClock::default();
        assert_eq!(clock.deadline(PACE), None);
        // One byte every 5 s, from second 100: each byte earns 2 ms.
        for i in 0..20 {
            clock.received(secs(100 + 5 * i), 1);
        }
        assert_eq!(clock.deadline(PACE), Some(secs(160) + Duration::from_millis(40)));
    }

    #[test]
    fn bytes_at_the_rate_keep_pushing_the_deadline() {
        let mut clock = RequestClock::default();
        // 1 MiB arriving over 100 s (10 KiB/s) earns 2,097 s beyond the grace.
        for i in 0..100 {
            clock.received(secs(i), 10 * 1024 + 496);
        }
        let deadline = clock.deadline(PACE).unwrap();
        assert!(deadline > secs(2_000), "{deadline:?}");
    }

    #[test]
    fn a_grace_too_long_to_add_means_no_deadline_rather_than_an_overflow() {
        let mut clock = RequestClock::default();
        clock.received(secs(5), 1);
        let forever = Pace {
            grace: Duration::MAX,
            min_rate: 1,
        };
        assert_eq!(clock.deadline(forever), Some(Duration::MAX));
    }

    #[test]
    fn stopping_ends_the_request_and_the_next_byte_starts_anew() {
        let mut clock = RequestClock::default();
        clock.received(secs(5), 100);
        assert!(clock.running());
        clock.stop();
        assert!(!clock.running());
        assert_eq!(clock.deadline(PACE), None);
        clock.received(secs(1_000), 0);
        assert_eq!(clock.deadline(PACE), Some(secs(1_060)));
    }
}

//! The client at an offered rate: one client core that drives a closed loop flat out
//! spends more per request in the open loop (a timer per send, a schedule per
//! connection), so a rate half of what it reached flat out can still keep it 90% busy,
//! and every cell of that row then reads *client-bound*. After the calibration sets a
//! rate, io_uring_server runs it once ([`super::calibrate::probe`]); where the client was busier than
//! [`CLIENT_BUSY_MAX`], the rate is lowered in proportion ([`ClientProbe::cap`]), and the
//! row's label and the rates table say so.

use serde::{Deserialize, Serialize};

use super::SUBJECT;

/// The busiest the client may be at the rate first set: under the 90% that makes a cell
/// client-bound ([`crate::usage::CLIENT_SATURATED`]), with room for the rounds' spread.
pub const CLIENT_BUSY_MAX: f64 = 0.75;

/// io_uring_server at the rate the capacities set: how busy the client was.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ClientProbe {
    pub offered: f64,
    pub client_busy: f64,
}

impl ClientProbe {
    /// The rate that keeps the client at [`CLIENT_BUSY_MAX`], where it was busier than
    /// that at the rate probed (its CPU per request taken as the same at the lower rate);
    /// `None` where it was not.
    pub fn cap(&self) -> Option<f64> {
        (self.client_busy > CLIENT_BUSY_MAX && self.offered > 0.0)
            .then(|| (self.offered * CLIENT_BUSY_MAX / self.client_busy).round())
    }

    /// "lowered to 60,000 req/s, since the client was 94% busy at 75,878 req/s with
    /// io_uring_server (at most 75%)": what the probe did, where it lowered the rate.
    pub fn said(&self) -> Option<String> {
        let cap = self.cap()?;
        Some(format!(
            "lowered to {} req/s, since the client was {:.0}% busy at {} req/s with {} (at \
             most {:.0}%)",
            crate::format::rate(cap),
            self.client_busy * 100.0,
            crate::format::rate(self.offered),
            SUBJECT.label,
            CLIENT_BUSY_MAX * 100.0
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_client_lowers_the_rate_in_proportion_and_an_idle_one_does_not() {
        let busy = ClientProbe {
            offered: 80_000.0,
            client_busy: 0.96,
        };
        assert_eq!(busy.cap(), Some(62_500.0));
        assert_eq!(
            busy.said().unwrap(),
            "lowered to 62,500 req/s, since the client was 96% busy at 80,000 req/s with \
             io_uring_server (at most 75%)"
        );
        let idle = ClientProbe {
            offered: 80_000.0,
            client_busy: 0.6,
        };
        assert_eq!(idle.cap(), None);
        assert_eq!(idle.said(), None);
    }
}

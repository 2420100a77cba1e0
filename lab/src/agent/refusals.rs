//! How the agent refuses a connection: one line, `{"error":"refused: ..."}`, written with
//! a short timeout, then the connection closed; and the log of refusals, at most one line
//! a second ([`RefusalLog`]), so that a flood of connections cannot flood the log.

use std::net::TcpStream;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use harness::remote::line::write_line;
use harness::remote::protocol::Reply;

use super::note;

/// How long a refusal may take to be written before the connection is closed anyway.
const REFUSAL_WRITE_TIMEOUT: Duration = Duration::from_secs(1);

/// The least time between two logged refusals. Default is 1 s.
pub const LOG_EVERY: Duration = Duration::from_secs(1);

/// The refusals logged, one a second at most; the line logged after a quiet spell says
/// how many were left out before it.
#[derive(Default)]
pub struct RefusalLog {
    hush: Mutex<Hush>,
}

/// When a refusal was last logged, and how many have not been since.
#[derive(Default)]
struct Hush {
    logged: Option<Instant>,
    left_out: u64,
}

impl Hush {
    /// Whether a refusal at `now` is logged: `Some(n)` with the `n` left out since the
    /// last one logged, or `None` (and it is counted as left out).
    fn admit(&mut self, now: Instant) -> Option<u64> {
        if self.logged.is_some_and(|at| now.duration_since(at) < LOG_EVERY) {
            self.left_out += 1;
            return None;
        }
        self.logged = Some(now);
        Some(std::mem::take(&mut self.left_out))
    }
}

impl RefusalLog {
    /// Answers `stream` with `refusal`, logs it (unless it is one too many this second),
    /// and closes the connection.
    pub fn refuse(&self, mut stream: TcpStream, refusal: &str) {
        self.log(refusal);
        let _ = stream.set_write_timeout(Some(REFUSAL_WRITE_TIMEOUT));
        let _ = write_line(&mut stream, &Reply::<()>::Error(refusal.to_string()));
    }

    /// Logs `refusal`, unless another was logged less than [`LOG_EVERY`] ago.
    pub fn log(&self, refusal: &str) {
        let admitted = self
            .hush
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .admit(Instant::now());
        match admitted {
            None => {}
            Some(0) => note(refusal),
            Some(n) => note(format_args!(
                "{refusal} (and {n} more since the last refusal logged)"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_refusal_a_second_is_logged_with_the_count_of_those_left_out() {
        let mut hush = Hush::default();
        let start = Instant::now();
        let at = |ms: u64| start + Duration::from_millis(ms);
        assert_eq!(hush.admit(at(0)), Some(0));
        assert_eq!(hush.admit(at(10)), None);
        assert_eq!(hush.admit(at(999)), None);
        assert_eq!(hush.admit(at(1000)), Some(2));
        assert_eq!(hush.admit(at(1500)), None);
        assert_eq!(hush.admit(at(5000)), Some(1));
        assert_eq!(hush.admit(at(6000)), Some(0));
    }
}

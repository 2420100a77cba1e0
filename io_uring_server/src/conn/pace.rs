//! A request's pace (`http_core::pace`): from a request's first byte it has a grace, then
//! must average the minimum byte rate, or the connection is closed, however often the
//! bytes trickle in. The silence timeout (`closing.rs`) still applies beside it.
//!
//! The connection's `RequestClock` counts every byte of a request as it arrives
//! (ciphertext over TLS, so a record announced and trickled is a request under way) and
//! stops once a request is answered or nothing of one is held. Its clock is the worker's
//! tick: no clock read and no timer of its own; the once-a-second tick checks the
//! deadline. While the server itself holds a request back (output backed up, a file
//! answer under way) the clock stops: the client cannot be late for what is not read.

use std::time::Duration;

use http_core::pace::Pace;

use super::{Conn, Phase};

/// One tick: the tick a request's first byte came in may have been nearly over, so a
/// deadline counts as passed only a whole tick after it.
const TICK: Duration = Duration::from_secs(1);

impl Conn {
    /// `bytes` of a request arrived in tick `now` (ciphertext over TLS).
    pub(super) fn request_bytes(&mut self, now: u64, bytes: usize) {
        self.request_clock.received(Duration::from_secs(now), bytes);
    }

    /// Input was handled in tick `now` and `answered` responses rendered: an answered
    /// request ends its clock, and what is held of the next starts its own now; with
    /// nothing of a request held the clock stops.
    pub(super) fn request_timed(&mut self, now: u64, answered: usize) {
        let held = self.request_held();
        if answered > 0 || !held {
            self.request_clock.stop();
        }
        if held {
            self.request_bytes(now, 0);
        }
    }

    /// At tick `now`: the request the client owes has fallen behind `pace`. A clock
    /// with nothing owed (nothing held, or the server holding it back) stops.
    pub(super) fn request_late(&mut self, now: u64, pace: Pace) -> bool {
        let owed = self.request_held() && !self.reading_held() && self.file.is_none();
        if !owed {
            self.request_clock.stop();
            return false;
        }
        let deadline = self.request_clock.deadline(pace);
        deadline.is_some_and(|deadline| Duration::from_secs(now) >= deadline.saturating_add(TICK))
    }

    /// Part of a request has arrived and waits for its rest: a partial head or body in
    /// the input (or complete requests not yet answered), an upload half read, or over
    /// TLS a handshake or record partly received.
    fn request_held(&self) -> bool {
        self.phase == Phase::Open && (!self.input.is_empty() || self.codec.mid_request() || self.tls_busy())
    }
}

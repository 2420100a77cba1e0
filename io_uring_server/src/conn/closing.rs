//! How a connection ends: the peer's EOF, failures, timeouts and server shutdown, each
//! leading to `Phase::Draining` (send what is rendered, then shut down the write side and
//! linger) or straight to `Phase::Closing`.
//!
//! Ending a connection never waits on the peer: `Closing` cancels every operation still
//! on the socket, and the descriptor is closed once the last of them has completed.

use super::{Conn, Phase, Timeouts};

/// Full ticks (seconds) a connection closing after its response keeps draining the
/// client's input, so the client sees the response and FIN rather than a reset; the tick
/// it started in does not count, so it lingers between 1 and 2 s. Default is 1.
pub const LINGER_TICKS: u64 = 1;

impl Conn {
    /// Once the peer has stopped sending, the connection ends when every complete request
    /// it sent is answered (a partial one left at EOF is dropped) and the answers are sent.
    pub(super) fn settle(&mut self) {
        if self.phase == Phase::Open && self.read_closed && !self.paused() && self.file.is_none() {
            self.input.clear();
            self.phase = Phase::Draining;
        }
        if self.phase == Phase::Draining && self.read_closed && self.backlog() == 0 && self.ops.send.is_idle()
        {
            self.phase = Phase::Closing;
        }
    }

    /// The peer shut its write side (recv returned 0): answer what is complete, then end.
    pub fn on_eof(&mut self) {
        self.read_closed = true;
        match self.phase {
            Phase::Open | Phase::Draining => {
                self.answer();
            }
            Phase::Lingering { .. } => self.phase = Phase::Closing,
            Phase::Closing => {}
        }
    }

    /// Any failure: close without further ceremony.
    pub fn fail(&mut self) {
        self.phase = Phase::Closing;
    }

    /// Once a second: close connections past their timeouts or linger (and a TLS
    /// handshake still unfinished a request timeout after the accept, or a request behind
    /// its pace, `pace.rs`, however their bytes trickle in), and allow another cancel-all
    /// should the last one have left an operation behind.
    pub fn on_tick(&mut self, now: u64, timeouts: Timeouts) {
        let silent = now.saturating_sub(self.last_progress);
        let busy = !self.input.is_empty()
            || self.codec.mid_request()
            || self.backlog() > 0
            || self.file.is_some()
            || self.tls_busy();
        let expired = match self.phase {
            Phase::Open if busy => silent >= timeouts.request,
            Phase::Open => silent >= timeouts.idle,
            Phase::Draining => silent >= timeouts.request,
            Phase::Lingering { since } => now.saturating_sub(since) > LINGER_TICKS,
            Phase::Closing => false,
        };
        let handshake_late = self.tls_handshaking() && now.saturating_sub(self.accepted) >= timeouts.request;
        let request_late = self.request_late(now, timeouts.pace);
        if expired || handshake_late || request_late {
            self.phase = Phase::Closing;
        }
        if !busy && silent > 0 {
            self.bulk = false;
            self.input.release_if_empty();
            self.file_spare.release();
            self.file_scratch = None;
            self.tls_release();
        }
        if self.phase == Phase::Closing && self.ops.cancel.is_idle() {
            self.ops.cancel_all_sent = false;
        }
    }

    /// Server shutdown: idle connections close now (over TLS, once their `close_notify`
    /// is sent), busy ones after their current request.
    pub fn begin_shutdown(&mut self) {
        self.shutting_down = true;
        self.end_if_shutting_down();
    }

    /// While the server shuts down, a connection with no request under way (no input, no
    /// upload half read, no file, no partly received TLS record) drains what it owes (over an established TLS
    /// session, a `close_notify` at least) and ends; one still in its handshake owes no
    /// `close_notify`, only what it has queued (its handshake flight), so one with nothing
    /// queued closes at once.
    /// Over TLS, called only while the session is in place (not out handing plaintext to
    /// the codec).
    pub(super) fn end_if_shutting_down(&mut self) {
        debug_assert!(
            !self.encrypted || self.tls.is_some(),
            "the TLS session is in place"
        );
        if self.shutting_down
            && self.phase == Phase::Open
            && self.input.is_empty()
            && !self.codec.mid_request()
            && self.file.is_none()
            && !self.tls_holds_partial_record()
        {
            let owes_close_notify = self.tls.as_ref().is_some_and(|tls| tls.established());
            self.phase = if self.backlog() > 0 || owes_close_notify {
                Phase::Draining
            } else {
                Phase::Closing
            };
        }
    }
}

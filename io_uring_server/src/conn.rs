//! One connection's state and its pure transitions: no ring types here, so every rule is
//! unit-tested without a kernel. The event loop reports what completed (`on_data`,
//! `on_sent`, ...) and asks what to submit next (`wants_recv`, `take_send`, ...).
//!
//! Output uses two buffers so the kernel never reads memory we change: `sending` belongs
//! to the kernel while a send is in flight and is only touched after its completion;
//! responses rendered meanwhile go to `pending`, and the two swap when `sending` is done.

use std::os::fd::RawFd;

use http_core::Codec;

/// Unsent output above which a connection's input is no longer read or answered, so a
/// client that never reads cannot grow server memory without limit. Default is 1 MiB.
pub const OUTPUT_LIMIT: usize = 1024 * 1024;

/// Ticks (seconds) a connection closing after its response keeps draining the client's
/// input, so the client sees the response and FIN rather than a reset. Default is 1.
pub const LINGER_TICKS: u64 = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Reading and answering requests.
    Open,
    /// Answer sent or being sent; close (gracefully) once all output has left.
    Draining,
    /// Output sent and write side shut down; discarding input until EOF or the deadline.
    Lingering { since: u64 },
    /// Closing now: cancel what is in flight, then close the descriptor.
    Closing,
}

#[derive(Debug)]
pub struct Conn {
    /// The socket: an fd, or with `direct` a slot in the ring's registered table.
    pub fd: RawFd,
    pub direct: bool,
    pub phase: Phase,
    codec: Codec,
    input: Vec<u8>,
    pending: Vec<u8>,
    sending: Vec<u8>,
    sent: usize,
    /// A recv (multishot or single) may still complete.
    pub recv_armed: bool,
    /// A cancel of the multishot recv was submitted.
    pub recv_cancel_sent: bool,
    /// A send of `sending[sent..]` is in flight.
    pub send_in_flight: bool,
    /// Operations submitted and not yet finally completed; the slot is freed at zero.
    pub in_flight: u32,
    /// The tick of the last progress, for timeouts.
    last_progress: u64,
    /// The server is shutting down: close after the current request.
    shutting_down: bool,
    /// Input past which the connection is closed regardless (defensive bound).
    input_cap: usize,
    /// The connection's own receive buffer, used when multishot recv is switched off. The
    /// kernel writes it between a recv submission and its completion; it is a separate
    /// heap block, so moving the `Conn` does not move it.
    recv_buf: Box<[u8]>,
}

/// What the timer decides for a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    pub request: u64,
    pub idle: u64,
}

impl Conn {
    pub fn new(fd: RawFd, codec: Codec, now: u64) -> Conn {
        let input_cap = codec.limits().max_request_bytes() + OUTPUT_LIMIT;
        Conn {
            fd,
            direct: false,
            phase: Phase::Open,
            codec,
            input: Vec::new(),
            pending: Vec::new(),
            sending: Vec::new(),
            sent: 0,
            recv_armed: false,
            recv_cancel_sent: false,
            send_in_flight: false,
            in_flight: 0,
            last_progress: now,
            shutting_down: false,
            input_cap,
            recv_buf: Box::default(),
        }
    }

    /// The connection's own receive buffer (allocated on first use) for a plain recv.
    pub fn recv_buffer(&mut self, size: usize) -> &mut [u8] {
        if self.recv_buf.len() != size {
            self.recv_buf = vec![0; size].into_boxed_slice();
        }
        &mut self.recv_buf
    }

    /// A plain recv filled the first `n` bytes of the connection's own buffer.
    pub fn on_own_recv(&mut self, n: usize, now: u64) {
        let buffer = std::mem::take(&mut self.recv_buf);
        self.on_data(&buffer[..n.min(buffer.len())], now);
        self.recv_buf = buffer;
    }

    /// Bytes rendered but not yet acknowledged by the kernel.
    pub fn backlog(&self) -> usize {
        self.pending.len() + self.sending.len() - self.sent
    }

    fn paused(&self) -> bool {
        self.backlog() > OUTPUT_LIMIT
    }

    /// Bytes arrived. While open they are answered; otherwise they are discarded.
    pub fn on_data(&mut self, data: &[u8], now: u64) {
        self.last_progress = now;
        if self.phase != Phase::Open {
            return;
        }
        self.input.extend_from_slice(data);
        if self.input.len() > self.input_cap {
            self.phase = Phase::Closing;
            return;
        }
        self.answer();
    }

    /// Runs the codec over buffered input unless output is backed up.
    pub fn answer(&mut self) {
        if self.phase != Phase::Open || self.paused() || self.input.is_empty() {
            return;
        }
        let outcome = self.codec.serve(&self.input, &mut self.pending);
        self.input.drain(..outcome.consumed);
        if outcome.close || (self.shutting_down && self.input.is_empty()) {
            self.input.clear();
            self.phase = Phase::Draining;
        }
    }

    /// The peer shut its write side (recv returned 0).
    pub fn on_eof(&mut self) {
        self.recv_armed = false;
        self.phase = match self.phase {
            Phase::Open if self.backlog() > 0 => Phase::Draining,
            Phase::Draining => Phase::Draining,
            _ => Phase::Closing,
        };
    }

    /// A send completed with `n` bytes; answers requests held back while paused.
    pub fn on_sent(&mut self, n: usize, now: u64) {
        self.send_in_flight = false;
        self.last_progress = now;
        self.sent += n;
        if self.sent >= self.sending.len() {
            self.sending.clear();
            self.sent = 0;
        }
        self.answer();
    }

    /// Any failure: close without further ceremony.
    pub fn fail(&mut self) {
        self.phase = Phase::Closing;
    }

    /// The next bytes to hand the kernel, if no send is in flight. The returned slice stays
    /// valid and unchanged until [`Conn::on_sent`] is called.
    pub fn take_send(&mut self) -> Option<&[u8]> {
        if self.send_in_flight || self.phase == Phase::Closing {
            return None;
        }
        if self.sent == self.sending.len() && !self.pending.is_empty() {
            std::mem::swap(&mut self.sending, &mut self.pending);
            self.sent = 0;
        }
        if self.sent == self.sending.len() {
            return None;
        }
        self.send_in_flight = true;
        Some(&self.sending[self.sent..])
    }

    /// Whether a recv should be armed now.
    pub fn wants_recv(&self) -> bool {
        !self.recv_armed && !self.paused() && matches!(self.phase, Phase::Open | Phase::Lingering { .. })
    }

    /// Whether an armed multishot recv should be cancelled (backed up, or closing).
    pub fn wants_recv_cancel(&self) -> bool {
        self.recv_armed && !self.recv_cancel_sent && (self.paused() || self.phase == Phase::Closing)
    }

    /// Draining and everything sent: time to shut down the write side and linger.
    pub fn wants_shutdown(&self) -> bool {
        self.phase == Phase::Draining && self.backlog() == 0 && !self.send_in_flight
    }

    pub fn start_linger(&mut self, now: u64) {
        self.phase = Phase::Lingering { since: now };
    }

    /// Closing and nothing in flight: the descriptor may be closed.
    pub fn wants_close(&self) -> bool {
        self.phase == Phase::Closing && self.in_flight == 0
    }

    /// Once a second: close connections past their timeouts or linger.
    pub fn on_tick(&mut self, now: u64, timeouts: Timeouts) {
        let silent = now.saturating_sub(self.last_progress);
        let expired = match self.phase {
            Phase::Open if !self.input.is_empty() => silent >= timeouts.request,
            Phase::Open | Phase::Draining => silent >= timeouts.idle,
            Phase::Lingering { since } => now.saturating_sub(since) >= LINGER_TICKS,
            Phase::Closing => false,
        };
        if expired {
            self.phase = Phase::Closing;
        }
    }

    /// Server shutdown: idle connections close now, busy ones after their current request.
    pub fn begin_shutdown(&mut self) {
        self.shutting_down = true;
        if self.phase == Phase::Open && self.input.is_empty() {
            self.phase = if self.backlog() > 0 {
                Phase::Draining
            } else {
                Phase::Closing
            };
        }
    }
}

#[cfg(test)]
#[path = "conn_tests.rs"]
mod tests;

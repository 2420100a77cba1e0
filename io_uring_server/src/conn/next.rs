//! The choice of a connection's next operation: one named decision per kind (cancel,
//! send, shutdown, receive, close), asked in that order after a file's own step
//! (`conn/files.rs`), and what submitting each changes (`Conn::submitted`). The event
//! loop calls [`Conn::next_op`] until it says `None`.

use http_core::limits::OUTPUT_LIMIT;

use super::{Conn, DIRECT_BODY_MIN, Phase};
use crate::op_state::{Op, Stage};

impl Conn {
    /// The next operation this connection wants submitted, if any. Call until `None`,
    /// reporting each with [`Conn::submitted`].
    pub fn next_op(&self) -> Option<Op> {
        self.next_file_op()
            .or_else(|| self.wanted_cancel())
            .or_else(|| self.wanted_send())
            .or_else(|| self.wanted_shutdown())
            .or_else(|| self.wanted_recv())
            .or_else(|| self.wanted_close())
    }

    /// `op` was submitted. For a send, the bytes to hand the kernel are then
    /// [`Conn::unsent`].
    pub fn submitted(&mut self, op: Op, now: u64) {
        match op {
            Op::Send => self.name_send(),
            Op::RecvInto => self.lend_input(),
            Op::Shutdown => self.phase = Phase::Lingering { since: now },
            _ => {}
        }
        self.ops.submitted(op);
    }

    /// Closing: one cancel-all while a socket operation is in flight (another only on a
    /// later tick). Otherwise: cancel a recv this connection no longer wants.
    fn wanted_cancel(&self) -> Option<Op> {
        if !self.ops.cancel.is_idle() {
            return None;
        }
        if self.phase == Phase::Closing {
            let cancel_all = self.ops.socket_ops_in_flight() && !self.ops.cancel_all_sent;
            return cancel_all.then_some(Op::CancelAll);
        }
        (self.ops.recv == Stage::InFlight && self.recv_unwanted()).then_some(Op::CancelRecv)
    }

    /// The recv in flight should stop: reading is held, it is of the wrong kind (plain
    /// where the ring should be, or the reverse), a plain recv holds the input whose
    /// requests should be answered now, or the peer sent its close_notify (what follows
    /// it is dropped).
    fn recv_unwanted(&self) -> bool {
        let wrong_kind = self.input.is_lent() != self.wants_plain_recv();
        let holds_requests = self.input.is_lent() && self.has_unanswered_input();
        self.reading_held() || wrong_kind || holds_requests || self.read_closed
    }

    /// Send what is rendered, one send at a time, while the connection still writes.
    fn wanted_send(&self) -> Option<Op> {
        let writing = matches!(self.phase, Phase::Open | Phase::Draining);
        (self.ops.send.is_idle() && writing && self.backlog() > 0).then_some(Op::Send)
    }

    /// Draining with everything sent: shut the write side down (then linger).
    fn wanted_shutdown(&self) -> Option<Op> {
        let ops = &self.ops;
        let all_sent = ops.send.is_idle() && self.backlog() == 0;
        (ops.shutdown.is_idle() && self.phase == Phase::Draining && all_sent).then_some(Op::Shutdown)
    }

    /// Receive while open or lingering, unless the peer is done, reading is held, or a
    /// plain recv would hold the input whose requests should be answered first.
    fn wanted_recv(&self) -> Option<Op> {
        let reading = matches!(self.phase, Phase::Open | Phase::Lingering { .. });
        let plain_would_block = self.wants_plain_recv() && self.has_unanswered_input();
        if !self.ops.recv.is_idle()
            || !reading
            || self.read_closed
            || self.reading_held()
            || plain_would_block
        {
            return None;
        }
        Some(if self.wants_plain_recv() {
            Op::RecvInto
        } else {
            Op::Recv
        })
    }

    /// Closing with nothing in flight: close the descriptor (its completion frees the slot).
    fn wanted_close(&self) -> Option<Op> {
        (self.phase == Phase::Closing && self.ops.in_flight() == 0).then_some(Op::Close)
    }

    pub(super) fn paused(&self) -> bool {
        self.backlog() >= OUTPUT_LIMIT
    }

    /// Stop receiving: output is backed up, or a file's answer is under way with a read's
    /// worth of input already waiting behind it (an upload sent right after a file
    /// request), so TCP slows the client down rather than the input cap ending it.
    pub(super) fn reading_held(&self) -> bool {
        self.paused() || (self.file.is_some() && self.input.len() >= DIRECT_BODY_MIN)
    }

    /// The input holds bytes the codec should see now: what followed a file request,
    /// once its answer is done (answered as soon as no recv is writing the input).
    pub(super) fn has_unanswered_input(&self) -> bool {
        self.phase == Phase::Open
            && self.file.is_none()
            && !self.input.is_empty()
            && self.input.len() >= self.input_needed
    }
}

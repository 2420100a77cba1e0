//! The send side of a connection: what the next send hands the kernel, and what its
//! completion means.
//!
//! Three outputs: `sending` (the kernel's while a send is in flight), `pending` (what is
//! rendered meanwhile) and, over TLS only, `sealing` (what `pending` held when sealing
//! began, encrypted into the ciphertext `sending` then holds: `conn/tls.rs`). A send
//! gathers a head and its body in one `sendmsg` (`Gather`). When each may change, and
//! the assertions that hold them to it: `DESIGN.md`, rules 4 and 5.

use http_core::Output;

use super::{Conn, Phase, SendShape};
use crate::gather::{Gather, MAX_SLICES, to_send, worth_zero_copy};

impl Conn {
    /// A send is being submitted: swap in the pending output if the last is all sent, and
    /// measure (and for several slices, name) what this send hands the kernel. Both
    /// re-point memory the kernel reads during a send, so no send may be in flight: the
    /// assertion makes a wrong call order (a second send before the first's completion)
    /// stop the process rather than change bytes or iovecs under the kernel.
    pub(super) fn name_send(&mut self) {
        assert!(
            self.ops.send.is_idle(),
            "output re-pointed while a send is in flight"
        );
        if self.sent == self.sending.len() {
            if self.encrypted {
                self.send_sealed();
            } else {
                std::mem::swap(&mut self.sending, &mut self.pending);
            }
            self.sent = 0;
        }
        // Measure the send once; several slices leave in one gathered send: name
        // them now, the one moment no send is in flight, and leave them so until
        // its completion.
        let zero_copy = self.sends_zero_copy();
        let mut slices: [&[u8]; MAX_SLICES] = [&[]; MAX_SLICES];
        let mut shape = SendShape::default();
        for slice in to_send(&self.sending, self.sent, zero_copy) {
            slices[shape.slices] = slice;
            shape.slices += 1;
            shape.len += slice.len();
        }
        if shape.slices > 1 {
            let gather = self.gather.get_or_insert_with(Gather::new);
            gather.point_at(slices[..shape.slices].iter().copied());
        }
        self.in_send = shape;
    }

    /// Sends a large static body alone with SEND_ZC (`--zero-copy-send`).
    pub fn send_zero_copy(&mut self) {
        self.zero_copy = true;
    }

    /// Once the send in flight completes in full, this connection will only wait for its
    /// next request: it is open, the send holds the last of the output (no segment,
    /// rendered response or sealed ciphertext follows) and output is not backed up.
    pub fn quiet_after_send(&self) -> bool {
        self.phase == Phase::Open
            && self.pending.is_empty()
            && self.sealing.is_empty()
            && self.tls_backlog() == 0
            && !self.more_follows()
            && !self.paused()
    }

    /// The slices of the send in flight (or to submit next), from the first byte of
    /// `sending` not yet acknowledged: up to [`MAX_SLICES`] segments, so that a head and
    /// its body leave together. A static body worth a zero-copy send goes alone, and a
    /// gathered send stops before one. They stay allocated and unchanged until that
    /// send's completion is reported ([`Conn::completed`] then [`Conn::on_sent`]).
    pub fn unsent(&self) -> impl Iterator<Item = &[u8]> {
        to_send(&self.sending, self.sent, self.sends_zero_copy())
    }

    /// The bytes of [`Conn::unsent`], all slices together, as measured when the send was
    /// submitted.
    pub fn unsent_len(&self) -> usize {
        self.in_send.len
    }

    /// The header of the gathered send just submitted (or in flight), naming the slices
    /// of [`Conn::unsent`] when there are several (a head and its body); `None` for one
    /// slice, which goes in a plain send. Built by `Conn::name_send` (from [`Conn::submitted`]), it stays valid and
    /// unchanged, like the slices, until the send's completion.
    pub fn gathered(&self) -> Option<&libc::msghdr> {
        if self.in_send.slices < 2 {
            return None;
        }
        Some(
            self.gather
                .as_ref()
                .expect("built when the send was submitted")
                .header(),
        )
    }

    fn sends_zero_copy(&self) -> bool {
        self.zero_copy && !self.zero_copy_refused
    }

    /// Output follows the send in flight (a static body beyond the slices it gathers, or
    /// more than [`MAX_SLICES`] segments, or a file's head before its body goes out by
    /// sendfile): the send may tell the kernel so (MSG_MORE), which holds its last bytes
    /// back to leave in a full segment with what follows.
    pub fn more_follows(&self) -> bool {
        self.sent + self.unsent_len() < self.sending.len() || self.file_body_follows()
    }

    /// The send to submit next is of a static body of at least `ZERO_COPY_MIN` bytes
    /// (alone, see [`Conn::unsent`]): memory that outlives any send, as a zero-copy send
    /// needs.
    pub fn zero_copy_worthy(&self) -> bool {
        self.sends_zero_copy()
            && (self.sending.slices_from(self.sent).next()).is_some_and(|slice| worth_zero_copy(&slice))
    }

    /// A send completed with `n` bytes; answers requests held back while paused. Returns
    /// the responses rendered. Report the send's completion first ([`Conn::completed`]):
    /// this may reclaim or free the output and iovecs the send named, so it asserts that
    /// the send is no longer in flight.
    pub fn on_sent(&mut self, n: usize, now: u64) -> usize {
        assert!(
            self.ops.send.is_idle(),
            "a send's bytes reported before its completion"
        );
        self.last_progress = now;
        debug_assert!(n <= self.unsent_len(), "sent more than the send named");
        self.sent += n;
        if self.sent >= self.sending.len() {
            // The buffer of a body echoed from the input comes back as its spare, where the
            // next large body will be received (once requests come through the buffer
            // ring again, no buffer is kept); a file's read buffer, for its next chunk.
            if let Some(buffer) = self.sending.reclaim() {
                self.reclaimed(buffer);
            }
            self.sent = 0;
        }
        let answered = self.answer();
        if self.backlog() == 0 {
            // Everything rendered has left: wait for the next request holding no output.
            self.sending = Output::default();
            self.pending = Output::default();
            self.sealing = Output::default();
            self.sealed = 0;
            self.gather = None;
        }
        answered
    }

    /// A send was refused without sending anything (ENOMEM, EOPNOTSUPP), as a zero-copy
    /// send is for want of locked memory (RLIMIT_MEMLOCK): the same bytes go again, sent
    /// plainly from now on. Refused again once plain, the connection fails.
    pub fn send_refused(&mut self) {
        if std::mem::replace(&mut self.zero_copy_refused, true) {
            self.fail();
        }
    }
}

//! One connection's state and its pure transitions: no ring types here, so every rule is
//! unit-tested without a kernel. The event loop reports what completed (`completed`, then
//! `on_data`, `on_sent`, ...) and asks what to submit next (`next_op`, then `submitted`).
//!
//! Output uses two buffers so the kernel never reads memory we change: `sending` belongs
//! to the kernel while a send is in flight and is only touched after its completion;
//! responses rendered meanwhile go to `pending`, and the two swap when `sending` is done.
//! Both are `http_core::Output`s: a large static body (`GET /bytes/{n}`) stays in its
//! shared buffer, and a send gathers the head and that body in one `sendmsg` (`Gather`).
//! An echoed body stays in the input buffer it was received into: that buffer moves into
//! the output (`Input::hand_over`, `Output::adopt`) and is the kernel's like the rest of
//! `sending`, then comes back as the input's spare once sent.
//! Both are freed whenever everything rendered has been sent, and the input holds
//! nothing once its requests are answered, so an idle keep-alive connection holds no
//! buffer: only its slab entry (its bytes come from the provided-buffer ring on arrival).
//!
//! Ending a connection never waits on the peer: `Closing` cancels every operation still
//! on the socket, and the descriptor is closed once the last of them has completed.

use std::os::fd::RawFd;

use http_core::limits::OUTPUT_LIMIT;
use http_core::{Codec, Output, Received};

use crate::gather::{Gather, MAX_SLICES, to_send, worth_zero_copy};
use crate::input::Input;
use crate::op_state::{Op, OpStates, Stage};
use crate::token::Kind;

/// Full ticks (seconds) a connection closing after its response keeps draining the
/// client's input, so the client sees the response and FIN rather than a reset; the tick
/// it started in does not count, so it lingers between 1 and 2 s. Default is 1.
pub const LINGER_TICKS: u64 = 1;

/// A body still to come of at least this many bytes (or a partial request buffered this
/// large, as a chunked body grows) is received straight into the input by plain recvs,
/// instead of through the buffer ring and a copy; so is everything the connection sends
/// until it next falls silent for a tick (its next large request then lands in the input
/// whole, not in provided buffers that must be copied).
pub const DIRECT_BODY_MIN: usize = 64 << 10;

/// Room given to an output buffer when it is allocated afresh, so that one small
/// response is rendered without regrowing it. Default is 512 bytes.
const OUTPUT_RESERVE: usize = 512;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Reading and answering requests.
    Open,
    /// The last response is rendered; close (gracefully) once all output has left.
    Draining,
    /// Output sent and write side shut down; discarding input until EOF or the deadline.
    Lingering { since: u64 },
    /// Closing now: cancel what is in flight, then close the descriptor.
    Closing,
}

/// The timeouts, in ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// A connection with a request or a response under way that makes no progress.
    pub request: u64,
    /// An idle keep-alive connection.
    pub idle: u64,
}

/// How a connection receives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Receiving {
    /// Every recv a plain one into at least `size` bytes of the input.
    Plain { size: usize },
    /// A multishot recv into the provided-buffer ring; with `large_bodies_plain`, plain
    /// recvs into the input for a large body still to come (see [`DIRECT_BODY_MIN`]).
    Ring { large_bodies_plain: bool },
}

/// What the send in flight hands the kernel: how many slices, and how many bytes in all.
#[derive(Debug, Clone, Copy, Default)]
struct SendShape {
    slices: usize,
    len: usize,
}

#[derive(Debug)]
pub struct Conn {
    /// The socket: an fd, or with `direct` a slot in the ring's registered table.
    pub fd: RawFd,
    pub direct: bool,
    phase: Phase,
    ops: OpStates,
    codec: Codec,
    receiving: Receiving,
    /// Recently sent a large body: receive into `input` until the next silent tick.
    bulk: bool,
    input: Input,
    /// Input length below which the codec cannot progress (what it said it needs).
    input_needed: usize,
    pending: Output,
    sending: Output,
    /// Bytes of `sending` the kernel has acknowledged.
    sent: usize,
    /// The iovecs of the gathered send in flight (or last sent): kept while there is
    /// output, freed with it.
    gather: Option<Box<Gather>>,
    /// The send in flight (or last submitted), measured once when it was submitted.
    in_send: SendShape,
    /// Send large static bodies with SEND_ZC (`--zero-copy-send`).
    zero_copy: bool,
    /// A zero-copy send failed for want of locked memory: send plainly from now on.
    zero_copy_refused: bool,
    /// The peer shut its write side: no more input will come.
    read_closed: bool,
    /// The tick of the last progress, for timeouts.
    last_progress: u64,
    /// The server is shutting down: close after the current request.
    shutting_down: bool,
    /// Input past which the connection is closed regardless (defensive bound).
    input_cap: usize,
}

impl Conn {
    pub fn new(fd: RawFd, direct: bool, receiving: Receiving, codec: Codec, now: u64) -> Conn {
        let input_cap = codec.limits().max_request_bytes() + OUTPUT_LIMIT;
        Conn {
            fd,
            direct,
            phase: Phase::Open,
            ops: OpStates::default(),
            codec,
            receiving,
            bulk: false,
            input: Input::default(),
            input_needed: 0,
            pending: Output::default(),
            sending: Output::default(),
            sent: 0,
            gather: None,
            in_send: SendShape::default(),
            zero_copy: false,
            zero_copy_refused: false,
            read_closed: false,
            last_progress: now,
            shutting_down: false,
            input_cap,
        }
    }

    #[cfg(test)]
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Bytes of buffer this connection holds beyond its own struct.
    #[cfg(test)]
    pub fn allocated(&self) -> usize {
        let gather = self.gather.as_ref().map_or(0, |_| size_of::<Gather>());
        self.input.allocated() + self.pending.capacity() + self.sending.capacity() + gather
    }

    /// Operations submitted and not finally completed; the slot is freed only at zero.
    pub fn in_flight(&self) -> usize {
        self.ops.in_flight()
    }

    /// The next operation this connection wants submitted, if any. Call until `None`,
    /// reporting each with [`Conn::submitted`].
    pub fn next_op(&self) -> Option<Op> {
        let ops = &self.ops;
        let closing = self.phase == Phase::Closing;
        if ops.cancel.is_idle() {
            if closing && ops.socket_ops_in_flight() && !ops.cancel_all_sent {
                return Some(Op::CancelAll);
            }
            let wrong_kind = self.input.is_lent() != self.wants_plain_recv();
            let unwanted = self.paused() || wrong_kind;
            if !closing && ops.recv == Stage::InFlight && unwanted {
                return Some(Op::CancelRecv);
            }
        }
        let writing = matches!(self.phase, Phase::Open | Phase::Draining);
        if ops.send.is_idle() && writing && self.backlog() > 0 {
            return Some(Op::Send);
        }
        if ops.shutdown.is_idle()
            && ops.send.is_idle()
            && self.phase == Phase::Draining
            && self.backlog() == 0
        {
            return Some(Op::Shutdown);
        }
        let reading = matches!(self.phase, Phase::Open | Phase::Lingering { .. });
        if ops.recv.is_idle() && reading && !self.read_closed && !self.paused() {
            return Some(if self.wants_plain_recv() {
                Op::RecvInto
            } else {
                Op::Recv
            });
        }
        if closing && ops.in_flight() == 0 {
            return Some(Op::Close);
        }
        None
    }

    /// `op` was submitted. For a send, the bytes to hand the kernel are then
    /// [`Conn::unsent`].
    pub fn submitted(&mut self, op: Op, now: u64) {
        match op {
            Op::Send => {
                if self.sent == self.sending.len() {
                    std::mem::swap(&mut self.sending, &mut self.pending);
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
            Op::RecvInto => {
                // Room for the rest of the body, but grown only as fast as bytes arrive,
                // so a head alone cannot make the server allocate its whole body.
                let body = self.input_needed.saturating_sub(self.input.len());
                let grown = body.min(self.input.len().max(DIRECT_BODY_MIN));
                self.input.lend(self.plain_size().max(grown));
            }
            Op::Shutdown => self.phase = Phase::Lingering { since: now },
            _ => {}
        }
        self.ops.submitted(op);
    }

    /// Sends a large static body alone with SEND_ZC (`--zero-copy-send`).
    pub fn send_zero_copy(&mut self) {
        self.zero_copy = true;
    }

    /// Once the send in flight completes in full, this connection will only wait for its
    /// next request: it is open, the send holds the last of the output (no segment or
    /// rendered response follows) and output is not backed up.
    pub fn quiet_after_send(&self) -> bool {
        self.phase == Phase::Open && self.pending.is_empty() && !self.more_follows() && !self.paused()
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
    /// slice, which goes in a plain send. Built by [`Conn::submitted`], it stays valid and
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
    /// more than [`MAX_SLICES`] segments): the send may tell the kernel so (MSG_MORE),
    /// which holds its last bytes back to leave in a full segment with what follows.
    pub fn more_follows(&self) -> bool {
        self.sent + self.unsent_len() < self.sending.len()
    }

    /// The send to submit next is of a static body of at least `ZERO_COPY_MIN` bytes
    /// (alone, see [`Conn::unsent`]): memory that outlives any send, as a zero-copy send
    /// needs.
    pub fn zero_copy_worthy(&self) -> bool {
        self.sends_zero_copy()
            && (self.sending.slices_from(self.sent).next()).is_some_and(|slice| worth_zero_copy(&slice))
    }

    /// The final (or, with `more`, an intermediate) completion of an operation of `kind`.
    /// Report it before what it carries (`on_data`, `on_sent`, ...).
    pub fn completed(&mut self, kind: Kind, more: bool) {
        self.ops.completed(kind, more);
    }

    /// The input's room lent to the plain recv just submitted; it stays in place until
    /// the recv's completion ([`Conn::on_recv`]).
    pub fn recv_room(&mut self) -> &mut [u8] {
        self.input.lent_room()
    }

    /// A large part of a request's body is still to come.
    fn body_to_come(&self) -> bool {
        self.phase == Phase::Open && self.input_needed >= self.input.len() + DIRECT_BODY_MIN
    }

    /// Receive with plain recvs into the input rather than through the buffer ring.
    fn wants_plain_recv(&self) -> bool {
        match self.receiving {
            Receiving::Plain { .. } => true,
            Receiving::Ring { large_bodies_plain } => {
                large_bodies_plain && (self.bulk || self.body_to_come())
            }
        }
    }

    /// The least room a plain recv is given.
    fn plain_size(&self) -> usize {
        match self.receiving {
            Receiving::Plain { size } => size,
            Receiving::Ring { .. } => DIRECT_BODY_MIN,
        }
    }

    /// A recv completed with `result`; `data` is what it received into a provided
    /// buffer, if any (else a positive result counts bytes written into the input).
    /// Returns the responses rendered.
    pub fn on_recv(&mut self, result: i32, data: Option<&[u8]>, now: u64) -> usize {
        if self.input.is_lent() {
            self.input.filled(result.max(0) as usize);
        }
        match (result, data) {
            (1.., Some(data)) => self.on_data(data, now),
            (1.., None) => {
                self.last_progress = now;
                if self.phase != Phase::Open {
                    self.input.clear();
                    return 0;
                }
                self.answer_within_cap()
            }
            (0, _) => {
                self.on_eof();
                0
            }
            _ if matches!(-result, libc::ENOBUFS | libc::ECANCELED) => self.answer(),
            _ => {
                self.fail();
                0
            }
        }
    }

    /// Bytes rendered but not yet acknowledged by the kernel.
    pub fn backlog(&self) -> usize {
        self.pending.len() + self.sending.len() - self.sent
    }

    fn paused(&self) -> bool {
        self.backlog() >= OUTPUT_LIMIT
    }

    /// Bytes arrived. While open they are answered; otherwise they are discarded. Returns
    /// the responses rendered. With nothing buffered, complete requests are answered
    /// straight from `data` and only the rest is copied: a body that arrives in one
    /// completion is never copied before it is answered.
    pub fn on_data(&mut self, data: &[u8], now: u64) -> usize {
        self.last_progress = now;
        if self.phase != Phase::Open {
            return 0;
        }
        let mut answered = 0;
        if self.input.is_empty() {
            let consumed;
            (consumed, answered, _) = self.serve(Received::Shared(data), false);
            if self.phase == Phase::Open {
                self.input.extend(&data[consumed..]);
            }
        } else {
            self.input.extend(data);
        }
        answered + self.answer_within_cap()
    }

    /// Input grew: close if it passed the cap, else answer what it can.
    fn answer_within_cap(&mut self) -> usize {
        if self.input.len() > self.input_cap {
            self.phase = Phase::Closing;
            return 0;
        }
        self.answer()
    }

    /// Runs the codec over buffered input if it can progress (and no recv is writing
    /// it); returns the responses rendered.
    fn answer(&mut self) -> usize {
        let mut responses = 0;
        let input = &self.input;
        if !input.is_empty() && input.len() >= self.input_needed && !input.is_lent() {
            // A large echoed body is kept where it was received: it leaves in the same
            // gathered send as its head, so keeping it costs nothing a copy would not.
            let mut input = std::mem::take(&mut self.input);
            let (consumed, kept_input);
            (consumed, responses, kept_input) = self.serve(Received::Writable(input.bytes_mut()), true);
            self.input = input;
            if kept_input {
                // An echo refers to its body where it was received: the output owns that
                // buffer until the response is sent (`on_sent` gives it back).
                self.pending.adopt(self.input.hand_over(consumed));
            } else {
                self.input.consume(consumed);
            }
            if self.phase != Phase::Open {
                self.input.clear();
            }
            if !self.wants_plain_recv() {
                // The rest of a request split over completions, now answered: the next
                // one arrives in the buffer ring, so keep no buffer for it.
                self.input.free_if_empty();
            }
        }
        self.settle();
        responses
    }

    /// Answers what it can of `input` (buffered or just received), rendering at most up to
    /// the output limit; returns the bytes consumed, the responses rendered, and whether a
    /// response refers to `input` (only when `lend`, for the connection's own input: the
    /// caller must then hand its buffer to `pending`).
    fn serve(&mut self, input: Received, lend: bool) -> (usize, usize, bool) {
        if self.phase != Phase::Open || self.paused() {
            return (0, 0, false);
        }
        let room = self.pending.len() + OUTPUT_LIMIT - self.backlog();
        if self.pending.capacity() == 0 {
            self.pending.reserve(OUTPUT_RESERVE);
        }
        let len = input.bytes().len();
        let (outcome, kept_input) = self.codec.serve_lending(input, &mut self.pending, room, lend);
        let rest = len - outcome.consumed;
        self.input_needed = rest + outcome.needed;
        // A request this large still unfinished (a body to come, or a chunked one that has
        // grown): let its rest and what follows come straight into the input.
        self.bulk |= self.input_needed >= DIRECT_BODY_MIN;
        if outcome.close || (self.shutting_down && rest == 0) {
            self.phase = Phase::Draining;
        }
        (outcome.consumed, outcome.responses, kept_input)
    }

    /// Once the peer has stopped sending, the connection ends when every complete request
    /// it sent is answered (a partial one left at EOF is dropped) and the answers are sent.
    fn settle(&mut self) {
        if self.phase == Phase::Open && self.read_closed && !self.paused() {
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

    /// A send completed with `n` bytes; answers requests held back while paused. Returns
    /// the responses rendered.
    pub fn on_sent(&mut self, n: usize, now: u64) -> usize {
        self.last_progress = now;
        debug_assert!(n <= self.unsent_len(), "sent more than the send named");
        self.sent += n;
        if self.sent >= self.sending.len() {
            // The buffer of a body echoed from the input comes back as its spare, where the
            // next large body will be received; once requests come through the buffer
            // ring again, no buffer is kept.
            if let Some(buffer) = self.sending.reclaim().filter(|_| self.wants_plain_recv()) {
                self.input.recycle(buffer);
            }
            self.sent = 0;
        }
        let answered = self.answer();
        if self.backlog() == 0 {
            // Everything rendered has left: wait for the next request holding no output.
            self.sending = Output::default();
            self.pending = Output::default();
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

    /// Any failure: close without further ceremony.
    pub fn fail(&mut self) {
        self.phase = Phase::Closing;
    }

    /// Once a second: close connections past their timeouts or linger, and allow another
    /// cancel-all should the last one have left an operation behind.
    pub fn on_tick(&mut self, now: u64, timeouts: Timeouts) {
        let silent = now.saturating_sub(self.last_progress);
        let busy = !self.input.is_empty() || self.backlog() > 0;
        let expired = match self.phase {
            Phase::Open if busy => silent >= timeouts.request,
            Phase::Open => silent >= timeouts.idle,
            Phase::Draining => silent >= timeouts.request,
            Phase::Lingering { since } => now.saturating_sub(since) > LINGER_TICKS,
            Phase::Closing => false,
        };
        if expired {
            self.phase = Phase::Closing;
        }
        if !busy && silent > 0 {
            self.bulk = false;
            self.input.release_if_empty();
        }
        if self.phase == Phase::Closing && self.ops.cancel.is_idle() {
            self.ops.cancel_all_sent = false;
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

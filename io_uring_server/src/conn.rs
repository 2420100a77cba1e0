//! One connection's state and its pure transitions: no ring types here, so every rule is
//! unit-tested without a kernel. The event loop reports each completion
//! ([`Conn::on_completion`], here: the one place a connection's completions are handled,
//! and the results of the operations carried out as syscalls, which `Worker::drive`
//! hands it as their completions; the accept, the tick and the wake-up have no
//! connection and stay in the event loop) and asks what to submit next (`next_op`, then
//! `submitted`, in `next`).
//!
//! This file holds the state and the completion dispatch; the transitions live by concept
//! in its children: `next` (the choice of the next operation), `receiving` (input, and
//! answering it), `bulk` (an upload's large body by plain recvs, `--bulk-recv`), `sending`
//! (output and the send in flight), `closing` (EOF, failures, timeouts and shutdown), `pace`
//! (a request's deadline from its first byte), `files` (a file answer) and `tls` (the same
//! over TLS). Which of its memory the kernel may touch, and until which completion:
//! `DESIGN.md`.
//!
//! The outputs (`pending` and `sending`, and over TLS `sealing`) are freed whenever
//! everything rendered has been sent, and the input holds
//! nothing once its requests are answered, and a file's read buffer is given up at the
//! first silent tick, so an idle keep-alive connection holds no buffer: only its slab entry (its bytes come from the provided-buffer ring on arrival).

use std::os::fd::RawFd;

use crate::files::fd::FilesRoot;

use crate::files::spare::{FileScratch, FileSpare};
use crate::files::transfer::FileTransfer;

use http_core::limits::OUTPUT_LIMIT;
use http_core::pace::{Pace, RequestClock};
use http_core::{Codec, Output};

use crate::config::BulkRecv;
use crate::gather::Gather;
use crate::input::Input;
use crate::op_state::OpStates;
use crate::tls_session::TlsSession;
use crate::token::Kind;

mod bulk;
mod closing;
mod files;
mod next;
mod pace;
mod receiving;
mod sending;
mod tls;

/// A body still to come of at least this many bytes (or a partial request buffered this
/// large, as a chunked body grows) is received straight into the input by plain recvs,
/// instead of through the buffer ring and a copy; so is everything the connection receives
/// until it next falls silent for a tick (its next large request then lands in the input
/// whole, not in provided buffers that must be copied).
pub const DIRECT_BODY_MIN: usize = 64 << 10;

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
    /// A request's grace and minimum byte rate from its first byte (`conn/pace.rs`).
    pub pace: Pace,
}

/// How a connection receives (`--no-multishot-recv`, `--no-plain-body-recv`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Receiving {
    /// Every recv a plain one into at least `size` bytes of the input.
    Plain { size: usize },
    /// A multishot recv into the provided-buffer ring of buffer group `group`, whose
    /// buffers hold `ring_bytes` in all; with `large_bodies_plain`, plain recvs into the
    /// input for a large body still to come (see [`DIRECT_BODY_MIN`]).
    Ring {
        group: u16,
        large_bodies_plain: bool,
        ring_bytes: usize,
        /// How an upload's large body is received (`conn/bulk.rs`).
        bulk_recv: BulkRecv,
    },
}

/// What a completion led to that the event loop must know of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completed {
    /// Nothing beyond asking the connection what it wants next.
    Nothing,
    /// New bytes arrived, and `answered` responses were rendered from them.
    Data { answered: usize },
    /// Responses rendered other than from new bytes (a send made room, a file went on).
    Answered(usize),
    /// The kernel cannot cancel by descriptor (`EINVAL`): Linux before 5.19, or, for a
    /// direct descriptor, before 6.0.
    CannotCancel,
    /// The descriptor is closed: nothing names the connection any more.
    Closed,
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
    /// The peer recently sent a large body (or one is still to come): receive into
    /// `input` until the next silent tick.
    bulk: bool,
    /// The last multishot recv ended for want of a provided buffer (`ENOBUFS`): the next
    /// recv is one plain recv into `input`, so a connection that lost the race for the
    /// shared ring makes progress instead of failing again each pass
    /// (`receiving.rs`, `STARVED_ROOM`).
    starved: bool,
    input: Input,
    /// Input length below which the codec cannot progress (what it said it needs).
    input_needed: usize,
    /// The responses rendered while a send is in flight (the first of three outputs).
    pending: Output,
    /// Over TLS, what `pending` held when sealing it began (swapped out, so the codec
    /// renders on into an empty `pending`): sealed from its front a send's worth at a
    /// time, and given up once all of it is.
    sealing: Output,
    /// The bytes at the front of `sealing` already sealed into ciphertext.
    sealed: usize,
    /// What the send in flight (or the next) names: the kernel reads it until the send's
    /// completion (`DESIGN.md`, rule 4).
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
    /// The request under way: when its first byte came, and how many since.
    request_clock: RequestClock,
    /// The tick it was accepted in: a TLS handshake must end within the request timeout
    /// of it, however its bytes trickle in.
    accepted: u64,
    /// The server is shutting down: close after the current request.
    shutting_down: bool,
    /// Input past which the connection is closed regardless (defensive bound).
    input_cap: usize,
    /// The directory `/files/{name}` is served from (`--files-dir`); without one every
    /// file is 404.
    files_root: Option<FilesRoot>,
    /// Send a large file in the page cache by sendfile (see `files/sendfile.rs`).
    sendfile: bool,
    /// The file answer in progress: no further request is served until it is complete.
    file: Option<FileTransfer>,
    /// The last file's read buffer, kept for the next file (as the runtimes keep their
    /// output's) until the connection falls silent for a tick, or where it is while the
    /// output still sends from it.
    file_spare: FileSpare,
    /// The name and `statx` of the last file, kept for the next as `file_spare` is, given
    /// up with it.
    file_scratch: Option<Box<FileScratch>>,
    /// Speaks TLS (`--tls-cert`): input is ciphertext, `pending` plaintext and `sending`
    /// ciphertext. Said apart from `tls`, which is out of its place while it hands
    /// plaintext to the codec.
    encrypted: bool,
    /// The TLS session, boxed so that a plain connection's slot stays small.
    tls: Option<Box<TlsSession>>,
    /// The session's ciphertext still to send while the session is out of its place
    /// (handing plaintext to the codec), so the output limit counts it meanwhile.
    tls_outgoing_lent: usize,
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
            starved: false,
            input: Input::default(),
            input_needed: 0,
            pending: Output::default(),
            sealing: Output::default(),
            sealed: 0,
            sending: Output::default(),
            sent: 0,
            gather: None,
            in_send: SendShape::default(),
            zero_copy: false,
            zero_copy_refused: false,
            read_closed: false,
            last_progress: now,
            request_clock: RequestClock::default(),
            accepted: now,
            shutting_down: false,
            input_cap,
            files_root: None,
            sendfile: false,
            file: None,
            file_spare: FileSpare::default(),
            file_scratch: None,
            encrypted: false,
            tls: None,
            tls_outgoing_lent: 0,
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
        let file = self.file.as_ref().map_or(0, FileTransfer::allocated);
        let scratch = self.file_scratch.as_ref().map_or(0, |_| size_of::<FileScratch>());
        let outputs = self.pending.capacity() + self.sealing.capacity() + self.sending.capacity();
        let files = self.file_spare.allocated() + scratch + file;
        self.input.allocated() + outputs + gather + files + self.tls_allocated()
    }

    /// Operations submitted and not finally completed; the slot is freed only at zero.
    pub fn in_flight(&self) -> usize {
        self.ops.in_flight()
    }

    /// A completion of this connection's operation of `kind`, final unless `more`, or the
    /// result of one carried out as a syscall (final, with no data); `data` is what a
    /// recv received into a provided buffer, if anything. Every per-kind transition
    /// starts here: the operation's stage first (`op_state.rs`), then what the completion
    /// carries, handled by the child module of its concept.
    pub fn on_completion(
        &mut self,
        kind: Kind,
        result: i32,
        more: bool,
        data: Option<&[u8]>,
        now: u64,
    ) -> Completed {
        self.completed(kind, more);
        match kind {
            Kind::Recv => {
                let answered = self.on_recv(result, data, now);
                if result > 0 {
                    Completed::Data { answered }
                } else {
                    Completed::Nothing
                }
            }
            Kind::Send if result == -libc::ENOMEM || result == -libc::EOPNOTSUPP => {
                self.send_refused();
                Completed::Nothing
            }
            Kind::Send if result >= 0 => Completed::Answered(self.on_sent(result as usize, now)),
            Kind::Send | Kind::Shutdown if result < 0 => {
                self.fail();
                Completed::Nothing
            }
            Kind::File => Completed::Answered(self.on_file(result, now)),
            Kind::Cancel if result == -libc::EINVAL => Completed::CannotCancel,
            Kind::Close => Completed::Closed,
            _ => Completed::Nothing,
        }
    }

    /// The final (or, with `more`, an intermediate) completion of an operation of `kind`:
    /// its stage only. Report it before what it carries (`on_data`, `on_sent`, ...);
    /// [`Conn::on_completion`] does both.
    pub fn completed(&mut self, kind: Kind, more: bool) {
        self.ops.completed(kind, more);
    }

    /// Bytes rendered but not yet acknowledged by the kernel (over TLS, ciphertext not
    /// yet sent too).
    pub fn backlog(&self) -> usize {
        self.pending.len() + self.sealing.len() - self.sealed + self.sending.len() - self.sent
            + self.tls_backlog()
    }
}

#[cfg(test)]
mod tests;

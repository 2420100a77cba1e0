//! The ring, and the connections it serves: with `buf_ring.rs`, the only unsafe code of
//! `bare_uring`.
//!
//! Each connection has a multishot recv armed (one submission, a completion per arrival,
//! each naming a provided buffer) and at most one send in flight. What makes that sound:
//! **a connection owns no memory the kernel touches.** Recvs write only provided buffers
//! (`buf_ring.rs`: the kernel's until a completion names one, then ours until we hand it
//! back within that completion's handling); sends read only one leaked, never-written
//! buffer of canned answers (`'static`). So the one rule left for a connection is about
//! its slot: it is freed only once neither its recv nor its send is in flight (asserted
//! in [`Kernel::close`]; an operation's final completion clears its flag, in
//! [`Kernel::completed`] only), so a completion never names a slot that was reused (no
//! generation counter is needed).

use std::io;
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::fd::{AsRawFd, FromRawFd};

use io_uring::{IoUring, cqueue, opcode, squeue, types};

use crate::buf_ring::{self, BufRing, Buffer};

/// Submission queue entries.
const RING_ENTRIES: u32 = 1024;
/// Completion queue entries: room for many connections' recv and send completions per
/// wait without the kernel's slower overflow path.
const COMPLETION_ENTRIES: u32 = 65536;
/// The most request ends one completion can hold (each is at least `\r\n\r\n`), and so
/// the most answers one send carries.
const MOST_ANSWERS: usize = buf_ring::SIZE / 4;
/// `user_data` of the multishot accept; a connection's operations carry `slot << 1 | op`
/// with op 0 for recv and 1 for send.
const ACCEPT: u64 = u64::MAX;

/// What a completion was for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// The multishot accept: `result` is the new socket or `-errno`.
    Accept,
    Recv(usize),
    Send(usize),
}

/// One completion: its operation, the kernel's result (bytes, a descriptor, `-errno`),
/// whether a multishot operation goes on (`IORING_CQE_F_MORE`), and the provided buffer
/// a recv's bytes are in.
#[derive(Debug)]
pub struct Completion {
    pub op: Op,
    pub result: i32,
    pub more: bool,
    pub buffer: Option<Buffer>,
}

struct Connection {
    socket: TcpStream,
    /// Bytes of answers owed and not yet sent: the answers are sent in order, back to back.
    unsent: usize,
    /// Where in one answer the next byte to send lies.
    offset: usize,
    /// The multishot recv is armed: its final completion (without `F_MORE`) is not in.
    receiving: bool,
    /// A send is in flight.
    sending: bool,
}

/// A ring and the connections it serves, on one thread.
pub struct Kernel {
    ring: IoUring,
    buffers: BufRing,
    /// [`MOST_ANSWERS`] canned answers back to back, leaked: never freed nor written.
    answers: &'static [u8],
    /// One answer's length.
    answer_len: usize,
    connections: Vec<Option<Connection>>,
    free: Vec<usize>,
    /// What the ring was set up with, for the ready line.
    pub setup: &'static str,
}

impl Kernel {
    /// A ring with SINGLE_ISSUER|DEFER_TASKRUN (completion work runs when this thread
    /// waits), or a plain one where the kernel refuses those flags, and its buffer ring,
    /// answering `answer`.
    pub fn new(answer: &[u8]) -> io::Result<Kernel> {
        let (ring, setup) = match IoUring::builder()
            .setup_single_issuer()
            .setup_defer_taskrun()
            .setup_cqsize(COMPLETION_ENTRIES)
            .build(RING_ENTRIES)
        {
            Ok(ring) => (ring, "SINGLE_ISSUER|DEFER_TASKRUN"),
            Err(_) => (
                IoUring::builder()
                    .setup_cqsize(COMPLETION_ENTRIES)
                    .build(RING_ENTRIES)?,
                "plain",
            ),
        };
        Ok(Kernel {
            buffers: BufRing::register(&ring.submitter())?,
            ring,
            answers: answer.repeat(MOST_ANSWERS).leak(),
            answer_len: answer.len(),
            connections: Vec::new(),
            free: Vec::new(),
            setup,
        })
    }

    /// Arms a multishot accept on `listener`, which must outlive the ring's use of it.
    pub fn accept(&mut self, listener: &TcpListener) {
        let entry = opcode::AcceptMulti::new(types::Fd(listener.as_raw_fd()))
            .build()
            .user_data(ACCEPT);
        // SAFETY: the accept passes no memory (no address buffer); it names only the
        // listener's descriptor, and the armed accept holds its own reference to that file.
        unsafe { self.push(&entry) };
    }

    /// Takes ownership of an accepted socket (a completion's result); returns its slot.
    pub fn open(&mut self, fd: i32) -> usize {
        // SAFETY: `fd` is a socket the kernel just accepted for us; nothing else owns it.
        let socket = unsafe { TcpStream::from_raw_fd(fd) };
        let connection = Connection {
            socket,
            unsent: 0,
            offset: 0,
            receiving: false,
            sending: false,
        };
        match self.free.pop() {
            Some(slot) => {
                self.connections[slot] = Some(connection);
                slot
            }
            None => {
                self.connections.push(Some(connection));
                self.connections.len() - 1
            }
        }
    }

    /// Arms the connection's multishot recv into the buffer ring.
    pub fn recv(&mut self, slot: usize) {
        let connection = self.connection(slot);
        assert!(!connection.receiving, "slot {slot}: a second recv armed");
        connection.receiving = true;
        let entry = opcode::RecvMulti::new(types::Fd(connection.socket.as_raw_fd()), buf_ring::GROUP)
            .build()
            .user_data((slot as u64) << 1);
        // SAFETY: the recv writes only provided buffers of buffer group GROUP, each the
        // kernel's until a completion names it (`buf_ring.rs`); they are leaked, so they
        // outlive every completion of this recv. It names no memory of the connection.
        unsafe { self.push(&entry) };
    }

    /// Shows `read` the bytes a recv completion put in `buffer`, then gives the buffer
    /// back to the kernel.
    pub fn read<R>(&mut self, buffer: Buffer, read: impl FnOnce(&[u8]) -> R) -> R {
        self.buffers.read(buffer, read)
    }

    /// Owes `answers` more canned answers to the connection.
    pub fn owe(&mut self, slot: usize, answers: usize) {
        let answer_len = self.answer_len;
        self.connection(slot).unsent += answers * answer_len;
    }

    /// Counts `len` more bytes as sent.
    pub fn sent(&mut self, slot: usize, len: usize) {
        let answer_len = self.answer_len;
        let connection = self.connection(slot);
        connection.unsent -= len;
        connection.offset = (connection.offset + len) % answer_len;
    }

    /// The send failed: nothing more is sent, and the recv is ended (a shut-down socket
    /// completes it with 0) so that the connection can close.
    pub fn broken(&mut self, slot: usize) {
        let connection = self.connection(slot);
        connection.unsent = 0;
        let _ = connection.socket.shutdown(Shutdown::Both);
    }

    /// Sends what is owed if no send is in flight, and closes the connection once it
    /// neither receives, sends nor owes anything.
    pub fn advance(&mut self, slot: usize) {
        let connection = self.connection(slot);
        let no_send = !connection.sending;
        if no_send && connection.unsent > 0 {
            self.send(slot);
        } else if no_send && !connection.receiving {
            self.close(slot);
        }
    }

    /// Submits a send of the next answer bytes owed, at most [`MOST_ANSWERS`] answers.
    fn send(&mut self, slot: usize) {
        let answers = self.answers;
        let connection = self.connection(slot);
        assert!(!connection.sending, "slot {slot}: a second send in flight");
        connection.sending = true;
        let end = answers.len().min(connection.offset + connection.unsent);
        let rest = &answers[connection.offset..end];
        let entry = opcode::Send::new(
            types::Fd(connection.socket.as_raw_fd()),
            rest.as_ptr(),
            rest.len() as u32,
        )
        .build()
        .user_data((slot as u64) << 1 | 1);
        // SAFETY: the kernel may read `rest` until this send completes; it lies in the
        // leaked `answers`, which live for the whole process and are never written.
        unsafe { self.push(&entry) };
    }

    /// Closes the connection and frees its slot; nothing of it may be in flight.
    fn close(&mut self, slot: usize) {
        let connection = self.connection(slot);
        assert!(
            !connection.receiving && !connection.sending,
            "slot {slot} freed while in flight"
        );
        self.connections[slot] = None;
        self.free.push(slot);
    }

    /// Submits what is queued, waits for at least one completion, and appends every
    /// completion ready to `out`.
    pub fn wait(&mut self, out: &mut Vec<Completion>) -> io::Result<()> {
        match self.ring.submit_and_wait(1) {
            Ok(_) => {}
            Err(e) if e.raw_os_error() == Some(libc::EINTR) => return Ok(()),
            Err(e) => return Err(e),
        }
        out.extend(self.ring.completion().map(|entry| Completion {
            op: match entry.user_data() {
                ACCEPT => Op::Accept,
                data if data & 1 == 0 => Op::Recv((data >> 1) as usize),
                data => Op::Send((data >> 1) as usize),
            },
            result: entry.result(),
            more: cqueue::more(entry.flags()),
            buffer: Buffer::of(entry.result(), entry.flags()),
        }));
        Ok(())
    }

    /// A completion of `op` is being handled; without `more` its operation is over. The
    /// one place a connection's in-flight flags are cleared: call it first.
    pub fn completed(&mut self, op: Op, more: bool) {
        match op {
            Op::Recv(slot) if !more => self.connection(slot).receiving = false,
            Op::Send(slot) => self.connection(slot).sending = false,
            _ => {}
        }
    }

    /// The connection in `slot`, which must be open.
    fn connection(&mut self, slot: usize) -> &mut Connection {
        self.connections[slot]
            .as_mut()
            .expect("an operation on a closed slot")
    }

    /// Queues `entry`, submitting first if the queue is full. A ring that cannot take
    /// submissions any more ends the process with one line, as `run`'s errors do.
    ///
    /// # Safety
    /// Any memory `entry` names must stay valid, and not be written where the kernel
    /// reads it, until its final completion (the module invariant).
    unsafe fn push(&mut self, entry: &squeue::Entry) {
        loop {
            // SAFETY: passed on from the caller.
            if unsafe { self.ring.submission().push(entry) }.is_ok() {
                return;
            }
            match self.ring.submit() {
                Ok(_) => {}
                Err(e) if matches!(e.raw_os_error(), Some(libc::EINTR | libc::EAGAIN | libc::EBUSY)) => {}
                Err(e) => {
                    server_kit::log!("io_uring failed while its submission queue was full: {e}; exiting");
                    std::process::exit(1);
                }
            }
        }
    }
}

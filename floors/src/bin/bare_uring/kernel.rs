//! The only unsafe code of `bare_uring`: the ring, and the connections whose memory the
//! kernel reads and writes.
//!
//! The invariant that makes it sound: **a connection has at most one operation in flight
//! (a recv into its input or a send from its output), and while it has one, nothing
//! touches, moves or frees that memory.** Every method that reads or changes a
//! connection's buffers, submits for it or closes it first asserts that nothing is in
//! flight; the flag is cleared only by that operation's completion ([`Kernel::wait`]).
//! So a connection's buffers are freed only after its last completion, and a completion
//! can never name a slot that was reused (no generation counter is needed). The input is
//! a boxed slice, whose heap allocation does not move when the slot table grows. Sends
//! read from one leaked, never-written buffer of canned answers (`'static`), so a
//! connection owns no output memory at all. Dropping the [`Kernel`] leaks the inputs of
//! connections still in flight rather than free memory the kernel may yet write.

use std::io;
use std::net::TcpListener;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use io_uring::{IoUring, cqueue, opcode, squeue, types};

/// Bytes received at a time per connection. Default is 4 KiB.
const INPUT_BYTES: usize = 4096;
/// Submission queue entries.
const RING_ENTRIES: u32 = 1024;
/// Completion queue entries: one operation is in flight per connection, so this many
/// connections per thread fit without the kernel's slower overflow path.
const COMPLETION_ENTRIES: u32 = 65536;
/// The most request ends one receive can hold (each is at least `\r\n\r\n`), and so
/// the most answers one send carries.
pub const MOST_ANSWERS: usize = INPUT_BYTES / 4;
/// `user_data` of the multishot accept; a connection's operations carry `slot << 1 | op`
/// with op 0 for recv and 1 for send.
const ACCEPT: u64 = u64::MAX;

/// What a completion was for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// The multishot accept: `result` is the new socket or `-errno`.
    Accept {
        more: bool,
    },
    Recv(usize),
    Send(usize),
}

/// One completion: its operation and the kernel's result (bytes, a descriptor, `-errno`).
#[derive(Debug, Clone, Copy)]
pub struct Completion {
    pub op: Op,
    pub result: i32,
}

struct Connection {
    socket: OwnedFd,
    input: Box<[u8]>,
    /// Bytes of answers owed by the current send (a prefix of [`Kernel::answers`]).
    owed: usize,
    /// Bytes of those already sent.
    sent: usize,
    in_flight: bool,
}

/// A ring and the connections it serves, on one thread.
pub struct Kernel {
    ring: IoUring,
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
    /// waits), or a plain one where the kernel refuses those flags, answering `answer`.
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
        // SAFETY: `fd` is a descriptor the kernel just accepted for us; nothing else owns it.
        let socket = unsafe { OwnedFd::from_raw_fd(fd) };
        let connection = Connection {
            socket,
            input: vec![0; INPUT_BYTES].into_boxed_slice(),
            owed: 0,
            sent: 0,
            in_flight: false,
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

    /// Submits a recv into the connection's whole input buffer.
    pub fn recv(&mut self, slot: usize) {
        let connection = self.idle(slot);
        connection.in_flight = true;
        let buffer = connection.input.as_mut_ptr();
        let entry = opcode::Recv::new(
            types::Fd(connection.socket.as_raw_fd()),
            buffer,
            INPUT_BYTES as u32,
        )
        .build()
        .user_data((slot as u64) << 1);
        // SAFETY: the kernel may write INPUT_BYTES bytes into the slot's boxed input until
        // this recv completes; that heap allocation is neither freed, moved nor read before
        // then, as `in_flight` is set and only that completion clears it (module invariant).
        unsafe { self.push(&entry) };
    }

    /// The bytes the last recv put in the input; `len` is its result.
    pub fn received(&mut self, slot: usize, len: usize) -> &[u8] {
        &self.idle(slot).input[..len]
    }

    /// Owes `answers` canned answers (at most [`MOST_ANSWERS`]) to the connection, to go
    /// with the next [`Kernel::send`].
    pub fn owe(&mut self, slot: usize, answers: usize) {
        let owed = answers.min(MOST_ANSWERS) * self.answer_len;
        let connection = self.idle(slot);
        connection.owed = owed;
        connection.sent = 0;
    }

    /// Counts `len` more bytes as sent; true when the whole output has gone.
    pub fn sent(&mut self, slot: usize, len: usize) -> bool {
        let connection = self.idle(slot);
        connection.sent += len;
        connection.sent >= connection.owed
    }

    /// Submits a send of what is left of the answers owed.
    pub fn send(&mut self, slot: usize) {
        let answers = self.answers;
        let connection = self.idle(slot);
        connection.in_flight = true;
        let rest = &answers[connection.sent..connection.owed];
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

    /// Closes the connection and frees its slot; it has nothing in flight.
    pub fn close(&mut self, slot: usize) {
        self.idle(slot);
        self.connections[slot] = None;
        self.free.push(slot);
    }

    /// Submits what is queued, waits for at least one completion, and appends every
    /// completion ready to `out`, clearing each connection's in-flight flag.
    pub fn wait(&mut self, out: &mut Vec<Completion>) -> io::Result<()> {
        match self.ring.submit_and_wait(1) {
            Ok(_) => {}
            Err(e) if e.raw_os_error() == Some(libc::EINTR) => return Ok(()),
            Err(e) => return Err(e),
        }
        for entry in self.ring.completion() {
            let op = match entry.user_data() {
                ACCEPT => Op::Accept {
                    more: cqueue::more(entry.flags()),
                },
                data if data & 1 == 0 => Op::Recv((data >> 1) as usize),
                data => Op::Send((data >> 1) as usize),
            };
            if let Op::Recv(slot) | Op::Send(slot) = op
                && let Some(connection) = self.connections.get_mut(slot).and_then(Option::as_mut)
            {
                connection.in_flight = false;
            }
            out.push(Completion {
                op,
                result: entry.result(),
            });
        }
        Ok(())
    }

    /// The connection in `slot`, which must exist and have nothing in flight.
    fn idle(&mut self, slot: usize) -> &mut Connection {
        let connection = self.connections[slot]
            .as_mut()
            .expect("an operation on a closed slot");
        assert!(!connection.in_flight, "slot {slot} touched while in flight");
        connection
    }

    /// Queues `entry`, submitting first if the queue is full. A ring that cannot take
    /// submissions any more ends the process with one line, as `run`'s errors do.
    ///
    /// # Safety
    /// Any memory `entry` names must stay valid, and not be written where the kernel
    /// reads it, until its completion (the module invariant).
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

impl Drop for Kernel {
    fn drop(&mut self) {
        for connection in self.connections.drain(..).flatten() {
            if connection.in_flight {
                // The kernel may still write into the input until a completion nobody will
                // wait for: leak it rather than free it. The socket may close: the ring
                // holds its own reference to the file.
                std::mem::forget(connection.input);
            }
        }
    }
}

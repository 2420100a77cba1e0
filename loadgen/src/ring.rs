//! A load thread's io_uring ([`Ring`]), which sends the run's pre-rendered request on
//! many connections and receives their answers, all in one `io_uring_enter` per wake-up
//! instead of a `sendto`, a `recvfrom` and an `epoll_wait` share per request. Its `unsafe`
//! is loadgen's only io_uring code.
//!
//! What the kernel may touch, and until when (the `unsafe` below rests on this):
//! - a send reads [`Ring::outgoing`] (the config's request, or the pipelined batch built
//!   once) from its push until its completion; both are heap bytes the `Ring` owns and
//!   never changes or frees while it lives;
//! - a recv writes a connection's `inbox` spare capacity (its `Vec`'s bytes past `len`)
//!   from its push until its completion. While it is in flight the inbox is not lent out
//!   ([`Ring::inbox`] panics), so it is neither read, grown nor moved; its completion's
//!   byte count is what the kernel wrote, and only then is it added to the `Vec`'s length.
//! - Dropping the `Ring` shuts down every connection with an operation in flight and
//!   waits for those completions before any buffer is freed; if the kernel never
//!   completes them, the buffers are leaked rather than freed under it.

use std::io;
use std::net::{Shutdown, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::time::Duration;

use io_uring::{IoUring, opcode, squeue, types};

use crate::config::Config;

/// `IORING_RECVSEND_POLL_FIRST` from the kernel's uapi: a recv waits for readiness first.
const IORING_RECVSEND_POLL_FIRST: u16 = 1;

/// Which operation a completion ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    Send,
    Recv,
}

/// One completed operation: on connection `conn`, the kernel's result (bytes, or a
/// negated errno).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Completion {
    pub conn: usize,
    pub op: Op,
    pub result: i32,
}

/// A connection on the ring and what the kernel holds of it.
struct Slot {
    socket: TcpStream,
    inbox: Vec<u8>,
    sending: bool,
    receiving: bool,
}

/// One load thread's ring and connections.
pub(crate) struct Ring {
    ring: IoUring,
    /// The kernel takes IORING_RECVSEND_POLL_FIRST (5.19; known here from the setup).
    poll_first: bool,
    /// Its request is what each send sends, with a depth of 1.
    config: Arc<Config>,
    /// With a depth over 1, the pipelined batch each send sends.
    batch: Option<Vec<u8>>,
    slots: Vec<Slot>,
}

/// Whether the kernel offers io_uring to this process, with the timed wait of
/// `io_uring_enter`'s extended arguments (Linux 5.11).
pub(crate) fn available() -> bool {
    IoUring::new(8).is_ok_and(|ring| ring.params().is_feature_ext_arg())
}

impl Ring {
    /// A ring for up to `connections` connections, each sending `depth` copies of
    /// `config.request` at a time.
    pub fn new(config: Arc<Config>, depth: usize, connections: usize) -> io::Result<Ring> {
        let entries = (2 * connections).next_power_of_two().max(8) as u32;
        // Completions' kernel work deferred to our own wait, with no interrupting the
        // thread to run it (Linux 6.1), else the cooperative kind (5.19), else none.
        let deferred = IoUring::builder()
            .setup_single_issuer()
            .setup_defer_taskrun()
            .build(entries);
        let (ring, poll_first) = match deferred {
            Ok(ring) => (ring, true),
            Err(_) => match IoUring::builder().setup_coop_taskrun().build(entries) {
                Ok(ring) => (ring, false),
                Err(_) => (IoUring::new(entries)?, false),
            },
        };
        Ok(Ring {
            ring,
            poll_first,
            batch: (depth > 1).then(|| config.request.repeat(depth)),
            config,
            slots: Vec::with_capacity(connections),
        })
    }

    /// Adds a connected socket; its number on the ring.
    pub fn add(&mut self, socket: TcpStream) -> usize {
        self.slots.push(Slot {
            socket,
            inbox: Vec::new(),
            sending: false,
            receiving: false,
        });
        self.slots.len() - 1
    }

    /// What each send sends: heap bytes that neither change nor move while the ring lives
    /// (a `Config` behind an `Arc` is never mutated; `batch` is never touched again).
    pub fn outgoing(&self) -> &[u8] {
        self.batch.as_deref().unwrap_or(&self.config.request)
    }

    /// Connection `conn`'s received bytes, to parse, consume and make room in; panics
    /// while a recv on it is in flight (the kernel may be writing them).
    pub fn inbox(&mut self, conn: usize) -> &mut Vec<u8> {
        let slot = &mut self.slots[conn];
        assert!(!slot.receiving, "the inbox of a connection with a recv in flight");
        &mut slot.inbox
    }

    /// Queues a send of the outgoing bytes from `from` on `conn`.
    pub fn send(&mut self, conn: usize, from: usize) -> io::Result<()> {
        let bytes = &self.outgoing()[from..];
        let (start, len) = (bytes.as_ptr(), bytes.len().min(u32::MAX as usize) as u32);
        let slot = &mut self.slots[conn];
        assert!(!slot.sending && len > 0);
        let entry = opcode::Send::new(types::Fd(slot.socket.as_raw_fd()), start, len)
            .flags(libc::MSG_NOSIGNAL)
            .build()
            .user_data(user_data(conn, Op::Send));
        slot.sending = true;
        // SAFETY: the send reads `len` bytes of `outgoing`, which lives unchanged as long
        // as the ring (module doc), and the socket stays open until the ring is dropped.
        unsafe { self.push(&entry) }
    }

    /// Queues a recv on `conn` into its inbox's spare capacity (which must not be empty);
    /// `early` says the bytes are not expected yet (an answer's first recv, queued with its
    /// request), so the kernel waits for them first instead of trying a read that fails.
    pub fn recv(&mut self, conn: usize, early: bool) -> io::Result<()> {
        let ioprio = if early && self.poll_first {
            IORING_RECVSEND_POLL_FIRST
        } else {
            0
        };
        let slot = &mut self.slots[conn];
        assert!(!slot.receiving);
        let inbox = &mut slot.inbox;
        let room = (inbox.capacity() - inbox.len()).min(u32::MAX as usize) as u32;
        assert!(room > 0, "a recv needs room");
        // SAFETY: the pointer is `len` bytes into the inbox's allocation, which has `room`
        // more bytes of capacity; the kernel writes at most `room` bytes there.
        let spare = unsafe { inbox.as_mut_ptr().add(inbox.len()) };
        let entry = opcode::Recv::new(types::Fd(slot.socket.as_raw_fd()), spare, room)
            .ioprio(ioprio)
            .build()
            .user_data(user_data(conn, Op::Recv));
        slot.receiving = true;
        // SAFETY: the inbox is not lent out, grown or freed while `receiving` (module doc).
        unsafe { self.push(&entry) }
    }

    /// Pushes `entry`, submitting what is queued first if the queue is full.
    ///
    /// # Safety
    /// The memory `entry` names must stay valid until its completion.
    unsafe fn push(&mut self, entry: &squeue::Entry) -> io::Result<()> {
        loop {
            // SAFETY: as the caller guarantees.
            if unsafe { self.ring.submission().push(entry) }.is_ok() {
                return Ok(());
            }
            self.ring.submit()?;
        }
    }

    /// Submits what is queued and waits for a completion, or until `timeout` has passed.
    pub fn wait(&mut self, timeout: Duration) -> io::Result<()> {
        let timespec = types::Timespec::from(timeout);
        let args = types::SubmitArgs::new().timespec(&timespec);
        match self.ring.submitter().submit_with_args(1, &args) {
            Err(e) if matches!(e.raw_os_error(), Some(libc::ETIME | libc::EINTR | libc::EBUSY)) => Ok(()),
            other => other.map(drop),
        }
    }

    /// Moves the completions that have arrived to `out`; a recv's bytes join its inbox.
    pub fn completions(&mut self, out: &mut Vec<Completion>) {
        for entry in self.ring.completion() {
            let (conn, op) = (entry.user_data() as usize >> 1, op_of(entry.user_data()));
            let (result, slot) = (entry.result(), &mut self.slots[conn]);
            match op {
                Op::Send => slot.sending = false,
                Op::Recv => {
                    slot.receiving = false;
                    if result > 0 {
                        let filled = slot.inbox.len() + result as usize;
                        // SAFETY: the kernel has written `result` bytes into the spare
                        // capacity the recv was given (never more than its room).
                        unsafe { slot.inbox.set_len(filled) };
                    }
                }
            }
            out.push(Completion { conn, op, result });
        }
    }

    fn in_flight(&self) -> bool {
        self.slots.iter().any(|slot| slot.sending || slot.receiving)
    }
}

impl Drop for Ring {
    fn drop(&mut self) {
        for slot in self.slots.iter().filter(|slot| slot.sending || slot.receiving) {
            let _ = slot.socket.shutdown(Shutdown::Both);
        }
        let mut done = Vec::new();
        for _ in 0..100 {
            if !self.in_flight() {
                return;
            }
            let _ = self.wait(Duration::from_millis(100));
            self.completions(&mut done);
        }
        // The kernel still holds buffers: leak them rather than free memory it may use.
        std::mem::forget(std::mem::take(&mut self.slots));
        std::mem::forget(self.batch.take());
        std::mem::forget(self.config.clone());
    }
}

fn user_data(conn: usize, op: Op) -> u64 {
    (conn as u64) << 1 | u64::from(op == Op::Recv)
}

fn op_of(user_data: u64) -> Op {
    if user_data & 1 == 1 { Op::Recv } else { Op::Send }
}

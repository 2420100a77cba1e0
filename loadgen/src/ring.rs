//! A load thread's io_uring ([`Ring`], set up by `ring_setup.rs`): it sends the run's
//! pre-rendered request on many connections and receives their answers through one
//! multishot recv per connection over provided buffers (`ring_buffers.rs`), all in one
//! `io_uring_enter` per wake-up, made through the ring's registered descriptor. With
//! `ring_buffers.rs`, loadgen's only io_uring `unsafe`.
//!
//! What the kernel may touch, and until when (the `unsafe` below rests on this):
//! - a send reads [`Ring::outgoing`] (the config's request, or the pipelined batch built
//!   once) from its push until its completion; both are heap bytes the `Ring` owns and
//!   never changes or frees while it lives;
//! - a multishot recv writes the provided buffers it picks until its last completion (the
//!   one without IORING_CQE_F_MORE); a buffer a completion names is the thread's until it
//!   is recycled (`ring_buffers.rs`);
//! - dropping the `Ring` shuts every connection down and waits for the completions of
//!   every operation in flight, then unregisters the buffers, and only then frees them;
//!   if the kernel never completes some, the memory is leaked rather than freed under it.

use std::io;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::net::{Shutdown, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::time::Duration;

use io_uring::{IoUring, cqueue, opcode, squeue, types};

use crate::config::Config;
use crate::ring_buffers::{Buffers, Shape};
use crate::ring_setup;

/// Values of `<linux/io_uring.h>` the crate keeps private.
const IORING_REGISTER_RING_FDS: libc::c_uint = 20;
const IORING_UNREGISTER_RING_FDS: libc::c_uint = 21;
const IORING_ENTER_GETEVENTS: libc::c_uint = 1;
const IORING_ENTER_EXT_ARG: libc::c_uint = 8;
const IORING_ENTER_REGISTERED_RING: libc::c_uint = 16;

/// Sends up to this long complete within the submit that issues them (the socket's send
/// buffer takes them at once), so a wait asks for one completion past theirs instead of
/// returning at once with them. Should one not (its send buffer full), the wait still
/// ends: with MSG_WAITALL every send completes once, sent or failed, and its answers
/// come, with nothing more for the thread to do; it may only end a completion later.
const INLINE_SEND: usize = 4096;

/// Which operation a completion ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    Send,
    Recv,
}

/// One completion on connection `conn`: the kernel's result (bytes, or a negated errno).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Completion {
    pub conn: usize,
    pub op: Op,
    pub result: i32,
    /// A recv goes on (IORING_CQE_F_MORE); without it, it has ended and must be re-armed.
    pub more: bool,
    /// The provided buffer holding a recv's bytes, the thread's until [`Ring::recycle`].
    buffer: Option<u16>,
}

/// A connection on the ring and what the kernel holds of it.
struct Slot {
    socket: TcpStream,
    sending: bool,
    receiving: bool,
}

/// `struct io_uring_getevents_arg`, the extended argument of a timed wait.
#[repr(C)]
struct GeteventsArg {
    sigmask: u64,
    sigmask_sz: u32,
    min_wait_usec: u32,
    ts: u64,
}

/// `struct io_uring_rsrc_update`, to register the ring's descriptor with itself.
#[repr(C)]
struct RsrcUpdate {
    offset: u32,
    resv: u32,
    data: u64,
}

/// One load thread's ring and connections (built, entered and dropped on that thread).
pub(crate) struct Ring {
    ring: IoUring,
    /// The index enters name the ring by, where its descriptor is registered.
    registered: Option<u32>,
    /// Dropped by hand, only once the kernel is done with them (`Drop`).
    buffers: ManuallyDrop<Buffers>,
    /// Its request is what each send sends, with a depth of 1.
    config: Arc<Config>,
    /// With a depth over 1, the pipelined batch each send sends.
    batch: Option<Vec<u8>>,
    slots: Vec<Slot>,
    /// Sends pushed since the last wait that complete during its submit.
    inline_sends: usize,
    _one_thread: PhantomData<*const ()>,
}

impl Ring {
    /// A ring for up to `connections` connections, each sending `depth` copies of
    /// `config.request` at a time, receiving into provided buffers of `shape`.
    pub fn new(config: Arc<Config>, depth: usize, connections: usize, shape: Shape) -> io::Result<Ring> {
        let entries = (2 * connections).next_power_of_two().clamp(8, 32768) as u32;
        let ring = ring_setup::build(entries)?;
        let buffers = Buffers::register(&ring.submitter(), 0, shape)?;
        let registered = register(&ring, IORING_REGISTER_RING_FDS, u32::MAX, ring.as_raw_fd() as u64);
        Ok(Ring {
            ring,
            registered,
            buffers: ManuallyDrop::new(buffers),
            batch: (depth > 1).then(|| config.request.repeat(depth)),
            config,
            slots: Vec::with_capacity(connections),
            inline_sends: 0,
            _one_thread: PhantomData,
        })
    }

    /// Adds a connected socket; its number on the ring.
    pub fn add(&mut self, socket: TcpStream) -> usize {
        self.slots.push(Slot {
            socket,
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

    /// Queues a send of the outgoing bytes from `from` on `conn`. With MSG_WAITALL the
    /// kernel sends them all before it completes (or fails).
    pub fn send(&mut self, conn: usize, from: usize) -> io::Result<()> {
        let bytes = &self.outgoing()[from..];
        let (start, len) = (bytes.as_ptr(), bytes.len().min(u32::MAX as usize) as u32);
        let slot = &mut self.slots[conn];
        assert!(!slot.sending && len > 0);
        let entry = opcode::Send::new(types::Fd(slot.socket.as_raw_fd()), start, len)
            .flags(libc::MSG_NOSIGNAL | libc::MSG_WAITALL)
            .build()
            .user_data(user_data(conn, Op::Send));
        slot.sending = true;
        self.inline_sends += usize::from(len as usize <= INLINE_SEND);
        // SAFETY: the send reads `len` bytes of `outgoing`, which lives unchanged as long
        // as the ring (module doc), and the socket stays open until the ring is dropped.
        unsafe { self.push(&entry) }
    }

    /// Arms `conn`'s multishot recv: each completion names a provided buffer with bytes.
    pub fn arm(&mut self, conn: usize) -> io::Result<()> {
        let slot = &mut self.slots[conn];
        assert!(!slot.receiving);
        let entry = opcode::RecvMulti::new(types::Fd(slot.socket.as_raw_fd()), self.buffers.group)
            .build()
            .user_data(user_data(conn, Op::Recv));
        slot.receiving = true;
        // SAFETY: the recv writes only provided buffers, which the ring keeps until it has
        // ended (module doc); the socket stays open until then.
        unsafe { self.push(&entry) }
    }

    /// Pushes `entry`, submitting what is queued first if the queue is full.
    ///
    /// # Safety
    /// The memory `entry` names must stay valid until its last completion.
    unsafe fn push(&mut self, entry: &squeue::Entry) -> io::Result<()> {
        loop {
            // SAFETY: as the caller guarantees.
            if unsafe { self.ring.submission().push(entry) }.is_ok() {
                return Ok(());
            }
            self.ring.submit()?;
        }
    }

    /// Publishes recycled buffers, submits what is queued, and waits until a completion
    /// beyond those of the inline sends has come, or until `timeout` has passed.
    pub fn wait(&mut self, timeout: Duration) -> io::Result<()> {
        self.buffers.publish();
        let want = std::mem::take(&mut self.inline_sends) + 1;
        let ts = types::Timespec::from(timeout);
        let arg = GeteventsArg {
            sigmask: 0,
            sigmask_sz: 0,
            min_wait_usec: 0,
            ts: std::ptr::from_ref(&ts) as u64,
        };
        let submit = self.ring.submission().len() as u32;
        let flags = IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG;
        let (fd, flags) = match self.registered {
            Some(index) => (index as libc::c_int, flags | IORING_ENTER_REGISTERED_RING),
            None => (self.ring.as_raw_fd(), flags),
        };
        // SAFETY: the kernel reads `arg` and the timespec it points to during this call;
        // the queued entries name memory their pushers keep valid (module doc). A
        // registered index names this ring on this thread only, where the ring stays.
        let entered = unsafe {
            libc::syscall(
                libc::SYS_io_uring_enter,
                fd,
                submit,
                want as u32,
                flags,
                std::ptr::from_ref(&arg),
                std::mem::size_of::<GeteventsArg>(),
            )
        };
        if entered >= 0 {
            return Ok(());
        }
        let error = io::Error::last_os_error();
        match error.raw_os_error() {
            Some(libc::ETIME | libc::EINTR | libc::EBUSY | libc::EAGAIN) => Ok(()),
            _ => Err(error),
        }
    }

    /// Moves the completions that have arrived to `out`; a recv's buffer is the thread's
    /// until [`Ring::recycle`].
    pub fn completions(&mut self, out: &mut Vec<Completion>) {
        for entry in self.ring.completion() {
            let (conn, op) = (entry.user_data() as usize >> 1, op_of(entry.user_data()));
            let (result, flags) = (entry.result(), entry.flags());
            let more = cqueue::more(flags);
            let buffer = cqueue::buffer_select(flags);
            if let Some(id) = buffer {
                self.buffers.take(id, result.max(0) as usize);
            }
            let slot = &mut self.slots[conn];
            match op {
                Op::Send => slot.sending = false,
                Op::Recv => slot.receiving &= more,
            }
            out.push(Completion {
                conn,
                op,
                result,
                more,
                buffer,
            });
        }
    }

    /// The bytes a recv completion brought (none for a send, an error or the end).
    pub fn bytes(&self, completion: &Completion) -> &[u8] {
        match completion.buffer {
            Some(id) if completion.result > 0 => self.buffers.bytes(id, completion.result as usize),
            _ => &[],
        }
    }

    /// Gives a recv completion's buffer back to the kernel (at the next wait).
    pub fn recycle(&mut self, completion: &Completion) {
        if let Some(id) = completion.buffer {
            self.buffers.recycle(id);
        }
    }

    fn in_flight(&self) -> bool {
        self.slots.iter().any(|slot| slot.sending || slot.receiving)
    }
}

impl Drop for Ring {
    fn drop(&mut self) {
        for slot in &self.slots {
            let _ = slot.socket.shutdown(Shutdown::Both);
        }
        let (mut done, give_up) = (Vec::new(), std::time::Instant::now() + Duration::from_secs(10));
        while self.in_flight() && std::time::Instant::now() < give_up {
            let _ = self.wait(Duration::from_millis(100));
            self.completions(&mut done);
            for completion in done.drain(..) {
                self.recycle(&completion);
            }
        }
        if let Some(index) = self.registered.take() {
            register(&self.ring, IORING_UNREGISTER_RING_FDS, index, 0);
        }
        if self.in_flight() {
            // The kernel may still use the buffers or the outgoing bytes: leak them (the
            // buffers by never dropping them) rather than free memory it may touch.
            std::mem::forget(self.config.clone());
            std::mem::forget(self.batch.take());
            return;
        }
        let _ = self.ring.submitter().unregister_buf_ring(self.buffers.group);
        // SAFETY: dropped once, here, with no recv left that could pick a buffer and the
        // group unregistered, so the kernel no longer reads the entries or writes the
        // buffers.
        unsafe { ManuallyDrop::drop(&mut self.buffers) };
    }
}

/// `io_uring_register` of one ring-descriptor update (`offset` u32::MAX: any free slot):
/// the slot it took, if it did.
fn register(ring: &IoUring, opcode: libc::c_uint, offset: u32, data: u64) -> Option<u32> {
    let mut update = RsrcUpdate {
        offset,
        resv: 0,
        data,
    };
    // SAFETY: the kernel reads and writes back `update`, borrowed for this synchronous
    // call; the count (1) matches it.
    let result = unsafe {
        libc::syscall(
            libc::SYS_io_uring_register,
            ring.as_raw_fd(),
            opcode,
            std::ptr::from_mut(&mut update),
            1u32,
        )
    };
    (result == 1).then_some(update.offset)
}

fn user_data(conn: usize, op: Op) -> u64 {
    (conn as u64) << 1 | u64::from(op == Op::Recv)
}

fn op_of(user_data: u64) -> Op {
    if user_data & 1 == 1 { Op::Recv } else { Op::Send }
}

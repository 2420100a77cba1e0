//! The provided-buffer ring, in its simplest form: [`COUNT`] buffers of [`SIZE`] bytes
//! registered as buffer group [`GROUP`]. A multishot recv names the group, not a buffer:
//! the kernel picks a free buffer for each arrival and says which in the completion
//! (`IORING_CQE_F_BUFFER`); we read the bytes and hand the buffer back at once. So a
//! connection waiting for its next request holds no buffer of its own.
//!
//! Who owns a buffer: the kernel, from the moment its id is published in the ring (its
//! entry written, then the ring's tail moved past it) until a completion names it; then
//! we do, until [`BufRing::read`] gives it back within that completion's handling. A
//! [`Buffer`] is made only from a completion and is consumed by `read`, so each buffer
//! handed to us goes back exactly once. The memory is leaked: it lives as long as the
//! process, so it outlives the ring and every recv the kernel may still be running.
//! io_uring_server's `buf_ring.rs` is this, grown up (incremental consumption, ids
//! tracked, buffers published once a turn).

use std::alloc::{Layout, alloc_zeroed};
use std::io;
use std::sync::atomic::{AtomicU16, Ordering};

use io_uring::Submitter;

/// Buffers in the ring. Default is 1024: as many connections per thread as may all
/// receive in one wait, before any buffer comes back, without running out.
pub const COUNT: u16 = 1024;
/// Bytes in one buffer: the most one completion carries. Default is 4 KiB.
pub const SIZE: usize = 4096;
/// The buffer group a recv names.
pub const GROUP: u16 = 0;

/// One ring entry, laid out as the kernel's `struct io_uring_buf`. Entry 0's `resv` is the
/// ring's tail, which the kernel reads at any time, so no Rust reference to an entry is
/// ever made: fields are written through raw pointers, the tail atomically.
#[repr(C)]
struct Entry {
    addr: u64,
    len: u32,
    bid: u16,
    resv: u16,
}

/// A buffer the kernel handed us: a completion's `len` bytes at the start of buffer `id`.
#[derive(Debug)]
pub struct Buffer {
    id: u16,
    len: usize,
}

impl Buffer {
    /// The buffer a recv completion names, if any: its `flags`, and its `result` (bytes).
    pub fn of(result: i32, flags: u32) -> Option<Buffer> {
        let id = io_uring::cqueue::buffer_select(flags)?;
        Some(Buffer {
            id,
            len: result.max(0) as usize,
        })
    }
}

pub struct BufRing {
    /// [`COUNT`] entries, page-aligned (the kernel asks for it), leaked.
    entries: *mut Entry,
    /// [`COUNT`] buffers of [`SIZE`] bytes back to back, leaked. Only read through a
    /// slice of one buffer we own: the kernel writes the others at any time.
    buffers: *mut u8,
    /// Our copy of the tail: how many ids were ever published.
    tail: u16,
}

impl BufRing {
    /// Allocates the ring and its buffers, registers them with the ring `submitter`
    /// belongs to, and gives every buffer to the kernel.
    pub fn register(submitter: &Submitter) -> io::Result<BufRing> {
        let count = usize::from(COUNT);
        let layout = Layout::from_size_align(count * size_of::<Entry>(), 4096).map_err(io::Error::other)?;
        // SAFETY: the layout's size is not zero.
        let entries = unsafe { alloc_zeroed(layout) }.cast::<Entry>();
        if entries.is_null() {
            return Err(io::ErrorKind::OutOfMemory.into());
        }
        let buffers = vec![0u8; count * SIZE].leak().as_mut_ptr();
        // SAFETY: `entries` points to COUNT zeroed, page-aligned entries, leaked, so they
        // stay valid for as long as the kernel may read them (the ring's whole life).
        unsafe { submitter.register_buf_ring_with_flags(entries as u64, COUNT, GROUP, 0)? };
        let mut ring = BufRing {
            entries,
            buffers,
            tail: 0,
        };
        for id in 0..COUNT {
            ring.give_back(id);
        }
        Ok(ring)
    }

    /// Shows `read` the bytes a completion put in `buffer`, then gives the buffer back.
    pub fn read<R>(&mut self, buffer: Buffer, read: impl FnOnce(&[u8]) -> R) -> R {
        let Buffer { id, len } = buffer;
        assert!(
            id < COUNT && len <= SIZE,
            "a completion named {len} bytes of buffer {id}"
        );
        // SAFETY: buffer `id` is ours: a completion named it and it is not yet given back
        // (a `Buffer` is consumed here, once). The kernel writes it again only after
        // `give_back` below publishes it, and the slice does not outlive `read`.
        let bytes = unsafe { std::slice::from_raw_parts(self.buffers.add(usize::from(id) * SIZE), len) };
        let answer = read(bytes);
        self.give_back(id);
        answer
    }

    /// Publishes buffer `id` to the kernel: from now on it may write the buffer.
    fn give_back(&mut self, id: u16) {
        let index = usize::from(self.tail % COUNT);
        let addr = self.buffers as u64 + (usize::from(id) * SIZE) as u64;
        // SAFETY: `index` < COUNT, inside the leaked entries. The kernel reads only the
        // entries from its head up to the published tail. This one is the tail's, and not
        // the head's: we hold buffer `id`, so at most COUNT - 1 are published. So the
        // kernel reads it only after the tail store below; each field is written through
        // its own raw pointer, never touching the tail.
        unsafe {
            let entry = self.entries.add(index);
            (&raw mut (*entry).addr).write(addr);
            (&raw mut (*entry).len).write(SIZE as u32);
            (&raw mut (*entry).bid).write(id);
        }
        self.tail = self.tail.wrapping_add(1);
        // SAFETY: the tail is entry 0's `resv`, inside the leaked entries and 2-byte
        // aligned. The kernel reads it concurrently, so it is stored atomically, with
        // release order so the entry written above is visible to the kernel first.
        unsafe { AtomicU16::from_ptr(&raw mut (*self.entries).resv).store(self.tail, Ordering::Release) };
    }
}

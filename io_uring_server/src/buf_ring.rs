//! A provided-buffer ring (IORING_REGISTER_PBUF_RING): the kernel picks a free buffer for
//! each multishot recv completion, and we hand buffers back as soon as their bytes are
//! copied or answered. One of the eight kernel-facing files with `unsafe` (`DESIGN.md`
//! lists them).
//!
//! Incremental consumption (IOU_PBUF_RING_INC), where `incremental.rs` allows it: a
//! completion takes only the bytes it received from the buffer at the ring's head, and the
//! next completion continues after them in the same buffer. A few large buffers then serve
//! small and large requests alike: small ones pack together, and a large body usually
//! arrives in one completion, which the connection can answer without copying it first.
//!
//! Who owns each buffer when, and why its memory stays valid: `DESIGN.md`, rule 3 (tracked
//! per id in `kernel_owns`).

use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::io;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU16, Ordering};

use io_uring::Submitter;

const PAGE: usize = 4096;

/// `IOU_PBUF_RING_INC` from the kernel's uapi: buffers are consumed incrementally.
const IOU_PBUF_RING_INC: u16 = 2;

/// The bytes one completion received: `len` bytes at `start` in buffer `id`. With `done`
/// the buffer is ours and goes back to the kernel once these bytes are used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufSlice {
    id: u16,
    start: usize,
    len: usize,
    done: bool,
}

/// One ring entry, laid out as the kernel's `struct io_uring_buf`. In entry 0, `resv` is
/// the ring's tail, which the kernel reads at any time; so no Rust reference to an entry
/// is ever made (it would claim exclusive access to the tail too): fields are written
/// through raw pointers only.
#[repr(C)]
struct RingEntry {
    addr: u64,
    len: u32,
    bid: u16,
    resv: u16,
}

const _: () =
    assert!(std::mem::size_of::<RingEntry>() == std::mem::size_of::<io_uring::types::BufRingEntry>());

pub struct BufRing {
    entries: NonNull<RingEntry>,
    entries_layout: Layout,
    /// `count * size` bytes. Only ever accessed through raw pointers or through a slice
    /// of one buffer we own, because the kernel writes the others concurrently.
    buffers: NonNull<u8>,
    buffers_layout: Layout,
    count: u16,
    size: usize,
    /// Our copy of the tail: ids added since the last `publish` are not yet visible.
    tail: u16,
    /// Per buffer id: given to the kernel and not yet handed back by a completion.
    kernel_owns: Vec<bool>,
    /// Per buffer id: bytes already handed to us by completions with `BUF_MORE`.
    consumed: Vec<usize>,
    pub group: u16,
}

impl BufRing {
    /// Allocates `count` buffers of `size` bytes, registers them as buffer group `group`
    /// (incrementally consumed with `incremental`; an error if the kernel cannot) and
    /// gives all of them to the kernel. `count` must be a power of two up to 32768.
    pub fn register(
        submitter: &Submitter,
        group: u16,
        count: u16,
        size: usize,
        incremental: bool,
    ) -> io::Result<BufRing> {
        if !count.is_power_of_two() || count > 32768 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "buffer count must be a power of two <= 32768",
            ));
        }
        let entry_bytes = usize::from(count) * std::mem::size_of::<RingEntry>();
        let entries_layout = page_aligned(entry_bytes)?;
        let buffers_layout = page_aligned(usize::from(count) * size.max(1))?;
        let buffers = allocate(buffers_layout)?;
        let Ok(raw) = allocate(entries_layout) else {
            // SAFETY: allocated just above with this layout, and never handed to the kernel.
            unsafe { dealloc(buffers.as_ptr(), buffers_layout) };
            return Err(io::Error::from(io::ErrorKind::OutOfMemory));
        };
        let raw = raw.cast::<RingEntry>();
        let mut ring = BufRing {
            entries: raw,
            entries_layout,
            buffers,
            buffers_layout,
            count,
            size,
            tail: 0,
            kernel_owns: vec![false; usize::from(count)],
            consumed: vec![0; usize::from(count)],
            group,
        };
        let flags = if incremental { IOU_PBUF_RING_INC } else { 0 };
        // SAFETY: `entries` points to `count` zeroed, page-aligned ring entries that live as
        // long as `ring`, which outlives the io_uring instance (see the module docs).
        unsafe { submitter.register_buf_ring_with_flags(raw.as_ptr() as u64, count, group, flags)? };
        for id in 0..count {
            ring.recycle(id);
        }
        ring.publish();
        Ok(ring)
    }

    /// A completion named buffer `id` with `len` bytes; `more` is its `BUF_MORE` flag.
    /// Without it the whole buffer is ours until [`BufRing::release`].
    pub fn on_completion(&mut self, id: u16, len: usize, more: bool) -> BufSlice {
        let id = id & (self.count - 1);
        let index = usize::from(id);
        let start = self.consumed[index];
        assert!(self.kernel_owns[index], "buffer {id} handed to us twice");
        assert!(
            len <= self.size - start,
            "buffer {id}: {len} bytes at offset {start} overrun it (completions out of order?)"
        );
        if more {
            self.consumed[index] += len;
        } else {
            self.kernel_owns[index] = false;
            self.consumed[index] = 0;
        }
        BufSlice {
            id,
            start,
            len,
            done: !more,
        }
    }

    /// The bytes a completion received.
    pub fn bytes(&self, received: BufSlice) -> &[u8] {
        let BufSlice { id, start, len, done } = received;
        assert!(
            !(done && self.kernel_owns[usize::from(id)]),
            "buffer {id} read after it was given back"
        );
        // SAFETY: the range lies inside buffer `id`, inside the allocation (`on_completion`
        // asserts it fits the buffer). The kernel does not write it until the buffer is
        // recycled, which needs `&mut self` and so cannot happen while this slice lives:
        // with `done` the buffer is wholly ours; without, the kernel moved the buffer's
        // start past these bytes before posting the completion and writes only beyond
        // them. That `start` is where this completion's bytes lie (and not bytes another
        // completion, maybe another connection's, was handed) depends on the kernel
        // posting the completions naming one buffer in the order it consumed the buffer:
        // true only from upstream commit 687b2bae0eff on (6.12.29, 6.14.7, 6.15), so the
        // worker registers incrementally consumed buffers only on such kernels
        // (`incremental.rs`; DESIGN.md, rule 3).
        unsafe {
            let buffer = self.buffers.as_ptr().add(usize::from(id) * self.size);
            std::slice::from_raw_parts(buffer.add(start), len)
        }
    }

    /// The completion's bytes are used: a buffer that is ours goes back to the kernel.
    pub fn release(&mut self, received: BufSlice) {
        if received.done {
            self.recycle(received.id);
        }
    }

    /// Gives buffer `id` back to the kernel; visible after the next [`BufRing::publish`].
    pub fn recycle(&mut self, id: u16) {
        let index = usize::from(self.tail & (self.count - 1));
        let id = id & (self.count - 1);
        let owner = &mut self.kernel_owns[usize::from(id)];
        assert!(!*owner, "buffer {id} given back twice");
        *owner = true;
        let addr = self.buffers.as_ptr() as u64 + (usize::from(id) * self.size) as u64;
        // SAFETY: `index` < `count`, so the entry is inside the allocation. The kernel reads
        // an entry's addr, len and bid only between its head and the published tail (and,
        // consuming incrementally, writes the head entry's addr and len); this one is past
        // the published tail until `publish`, and is not the head since fewer than `count`
        // ids are ever given to the kernel (`kernel_owns`), so the kernel neither reads nor
        // writes these three fields now. The entry's `resv` (the tail, in entry 0) is neither written nor
        // covered by a reference: each field is written through its own raw pointer.
        unsafe {
            let entry = self.entries.as_ptr().add(index);
            (&raw mut (*entry).addr).write(addr);
            (&raw mut (*entry).len).write(self.size as u32);
            (&raw mut (*entry).bid).write(id);
        }
        self.tail = self.tail.wrapping_add(1);
    }

    /// Makes every recycled buffer visible to the kernel.
    pub fn publish(&mut self) {
        // SAFETY: the tail is entry 0's `resv`, inside our allocation and 2-byte aligned;
        // the kernel reads it concurrently, so it is only ever accessed atomically, here
        // with release order so the entries it covers are visible first.
        unsafe {
            let tail = &raw mut (*self.entries.as_ptr()).resv;
            AtomicU16::from_ptr(tail).store(self.tail, Ordering::Release);
        }
    }

    /// The bytes of all its buffers: the most a multishot recv can be handed at once.
    pub fn capacity(&self) -> usize {
        usize::from(self.count) * self.size
    }
}

impl Drop for BufRing {
    fn drop(&mut self) {
        // SAFETY: allocated in `register` with this layout. The worker drops us only after
        // its last recv completed, and after its ring, so the kernel no longer writes the
        // buffers and reads the ring entries no more (it pins what teardown still needs).
        unsafe {
            dealloc(self.entries.as_ptr().cast(), self.entries_layout);
            dealloc(self.buffers.as_ptr(), self.buffers_layout);
        }
    }
}

fn page_aligned(bytes: usize) -> io::Result<Layout> {
    Layout::from_size_align(bytes.max(PAGE), PAGE).map_err(io::Error::other)
}

fn allocate(layout: Layout) -> io::Result<NonNull<u8>> {
    // SAFETY: `page_aligned` layouts have a non-zero size.
    NonNull::new(unsafe { alloc_zeroed(layout) }).ok_or_else(|| io::Error::from(io::ErrorKind::OutOfMemory))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ring_with(incremental: bool) -> io::Result<(io_uring::IoUring, BufRing)> {
        let uring = io_uring::IoUring::new(8).expect("io_uring available");
        let buffers = BufRing::register(&uring.submitter(), 0, 4, 1024, incremental)?;
        Ok((uring, buffers))
    }

    #[test]
    fn incremental_completions_hand_over_consecutive_ranges_then_the_buffer() {
        let (_uring, mut buffers) = match ring_with(true) {
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
                eprintln!("skipped: this kernel lacks incremental buffer consumption (Linux 6.12)");
                return;
            }
            registered => registered.expect("registered"),
        };
        let first = buffers.on_completion(2, 100, true);
        let second = buffers.on_completion(2, 300, true);
        let last = buffers.on_completion(2, 624, false);
        assert_eq!((first.start, second.start, last.start), (0, 100, 400));
        assert_eq!(
            (buffers.bytes(second).len(), buffers.bytes(last).len()),
            (300, 624)
        );
        assert!(
            !buffers.kernel_owns[2],
            "the last completion hands the buffer over"
        );
        buffers.release(first);
        buffers.release(second);
        assert!(
            !buffers.kernel_owns[2],
            "partial ranges do not give the buffer back"
        );
        buffers.release(last);
        assert!(buffers.kernel_owns[2]);
        assert_eq!(
            buffers.on_completion(2, 10, true).start,
            0,
            "a recycled buffer starts over"
        );
    }

    #[test]
    #[should_panic(expected = "handed to us twice")]
    fn a_buffer_named_again_before_it_is_recycled_stops_the_process() {
        let (_uring, mut buffers) = ring_with(false).expect("registered");
        buffers.on_completion(1, 10, false);
        buffers.on_completion(1, 10, false);
    }
}

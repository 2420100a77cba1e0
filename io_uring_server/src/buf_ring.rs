//! A provided-buffer ring (IORING_REGISTER_PBUF_RING): the kernel picks a free buffer for
//! each multishot recv completion, and we hand buffers back as soon as their bytes are
//! copied or answered. With `ops.rs` and `ring.rs` (building and pushing entries),
//! one of the three modules with `unsafe`.
//!
//! Ownership: a buffer belongs to the kernel from the moment its id is published in the
//! ring (`recycle` + `publish`) until a completion names it (`IORING_CQE_F_BUFFER`); from
//! then it is ours until we recycle it; `kernel_owns` tracks this per id, and handing a
//! buffer back twice (which would let the kernel write a buffer we read) stops the process
//! instead. The ring and buffer memory must stay allocated while the kernel may use them:
//! the worker ends only when no recv is in flight, and declares its ring before its
//! `BufRing`, so the ring is closed first.

use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::io;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU16, Ordering};

use io_uring::Submitter;

const PAGE: usize = 4096;

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
    pub group: u16,
}

impl BufRing {
    /// Allocates `count` buffers of `size` bytes, registers them as buffer group `group`
    /// and gives all of them to the kernel. `count` must be a power of two up to 32768.
    pub fn register(submitter: &Submitter, group: u16, count: u16, size: usize) -> io::Result<BufRing> {
        if !count.is_power_of_two() || count > 32768 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "buffer count must be a power of two <= 32768",
            ));
        }
        let entry_bytes = usize::from(count) * std::mem::size_of::<RingEntry>();
        let entries_layout = page_aligned(entry_bytes)?;
        let buffers_layout = page_aligned(usize::from(count) * size.max(1))?;
        let raw = allocate(entries_layout)?.cast::<RingEntry>();
        let buffers = allocate(buffers_layout)?;
        let mut ring = BufRing {
            entries: raw,
            entries_layout,
            buffers,
            buffers_layout,
            count,
            size,
            tail: 0,
            kernel_owns: vec![false; usize::from(count)],
            group,
        };
        // SAFETY: `entries` points to `count` zeroed, page-aligned ring entries that live as
        // long as `ring`, which outlives the io_uring instance (see the module docs).
        unsafe { submitter.register_buf_ring_with_flags(raw.as_ptr() as u64, count, group, 0)? };
        for id in 0..count {
            ring.recycle(id);
        }
        ring.publish();
        Ok(ring)
    }

    /// A completion handed buffer `id` to us.
    pub fn claim(&mut self, id: u16) {
        let owner = &mut self.kernel_owns[usize::from(id & (self.count - 1))];
        assert!(*owner, "buffer {id} handed to us twice");
        *owner = false;
    }

    /// The first `len` bytes of buffer `id`, which a completion handed to us ([`BufRing::claim`]).
    pub fn filled(&self, id: u16, len: usize) -> &[u8] {
        let id = id & (self.count - 1);
        assert!(
            !self.kernel_owns[usize::from(id)],
            "buffer {id} read while the kernel owns it"
        );
        // SAFETY: buffer `id` lies inside the allocation; a completion handed it to us, so
        // the kernel does not write it until we recycle it, which needs `&mut self` and so
        // cannot happen while this slice lives.
        unsafe {
            let start = self.buffers.as_ptr().add(usize::from(id) * self.size);
            std::slice::from_raw_parts(start, len.min(self.size))
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
        // an entry's addr, len and bid only between its head and the published tail, and
        // this one is past the published tail until `publish`, so nobody reads these three
        // fields now. The entry's `resv` (the tail, in entry 0) is neither written nor
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

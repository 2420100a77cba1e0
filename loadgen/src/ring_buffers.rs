//! The ring driver's provided buffers (IORING_REGISTER_PBUF_RING): one load thread's
//! pool of equal buffers that the kernel picks from for each multishot recv completion
//! (`ring.rs`), and that the thread hands back as soon as it has framed the completion's
//! bytes. With `ring.rs`, loadgen's only kernel-facing `unsafe`.
//!
//! Who owns each buffer when (the `unsafe` below rests on this): a buffer is the kernel's
//! from its [`Buffers::recycle`] (made visible by [`Buffers::publish`]) until a completion
//! names it; then it is the thread's, read through [`Buffers::bytes`] and never written,
//! until it is recycled again. `lent` tracks this per buffer and every transfer asserts
//! it. The memory itself (the buffers and the ring of entries the kernel reads them from)
//! is freed only when the `Buffers` drops, which `Ring` does only after every recv that
//! could pick a buffer has completed, and after unregistering the group.

use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::io;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU16, Ordering};

use io_uring::Submitter;

const PAGE: usize = 4096;

/// How many buffers of what size (`count` a power of two up to 32768).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shape {
    pub count: u16,
    pub size: usize,
}

/// One ring entry, laid out as the kernel's `struct io_uring_buf`. In entry 0, `resv` is
/// the ring's tail, which the kernel reads at any time: no Rust reference to an entry is
/// ever made, its fields are written through raw pointers only.
#[repr(C)]
struct Entry {
    addr: u64,
    len: u32,
    bid: u16,
    resv: u16,
}

const _: () = assert!(std::mem::size_of::<Entry>() == std::mem::size_of::<io_uring::types::BufRingEntry>());

pub(crate) struct Buffers {
    entries: NonNull<Entry>,
    entries_layout: Layout,
    /// `count * size` bytes, only ever read through a slice of one buffer the thread owns.
    memory: NonNull<u8>,
    memory_layout: Layout,
    shape: Shape,
    /// Our copy of the tail: buffers recycled since the last publish are not visible yet.
    tail: u16,
    published: u16,
    /// Per buffer: handed to the thread by a completion and not recycled yet.
    lent: Vec<bool>,
    pub group: u16,
}

impl Buffers {
    /// Allocates the buffers, registers them as group `group` of the ring `submitter`
    /// belongs to, and gives every one to the kernel.
    pub fn register(submitter: &Submitter, group: u16, shape: Shape) -> io::Result<Buffers> {
        let Shape { count, size } = shape;
        if !count.is_power_of_two() || count > 32768 || size == 0 || size > u32::MAX as usize {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "provided buffers' shape",
            ));
        }
        let entries_layout = page_aligned(usize::from(count) * std::mem::size_of::<Entry>())?;
        let memory_layout = page_aligned(usize::from(count) * size)?;
        let memory = allocate(memory_layout)?;
        let entries = match allocate(entries_layout) {
            Ok(entries) => entries.cast::<Entry>(),
            Err(e) => {
                // SAFETY: allocated just above with this layout, never shown to the kernel.
                unsafe { dealloc(memory.as_ptr(), memory_layout) };
                return Err(e);
            }
        };
        let mut buffers = Buffers {
            entries,
            entries_layout,
            memory,
            memory_layout,
            shape,
            tail: 0,
            published: 0,
            lent: vec![true; usize::from(count)],
            group,
        };
        // SAFETY: `entries` points to `count` zeroed, page-aligned entries that live until
        // `buffers` drops, which `Ring` lets happen only after unregistering the group
        // with no recv left in flight (module doc).
        unsafe { submitter.register_buf_ring_with_flags(entries.as_ptr() as u64, count, group, 0)? };
        for id in 0..count {
            buffers.recycle(id);
        }
        buffers.publish();
        Ok(buffers)
    }

    /// A completion named buffer `id` with `len` bytes: the buffer is the thread's now.
    pub fn take(&mut self, id: u16, len: usize) {
        let index = usize::from(id);
        assert!(
            index < self.lent.len() && len <= self.shape.size,
            "buffer {id}: {len} bytes"
        );
        assert!(!self.lent[index], "buffer {id} handed over twice");
        self.lent[index] = true;
    }

    /// The first `len` bytes of buffer `id`, which a completion handed over.
    pub fn bytes(&self, id: u16, len: usize) -> &[u8] {
        let index = usize::from(id);
        assert!(
            self.lent[index] && len <= self.shape.size,
            "buffer {id} is the kernel's"
        );
        // SAFETY: the range lies inside buffer `id`, inside the allocation. The kernel
        // wrote it before posting the completion and writes it no more until the buffer is
        // recycled, which takes `&mut self` and so cannot happen while this slice lives.
        unsafe { std::slice::from_raw_parts(self.memory.as_ptr().add(index * self.shape.size), len) }
    }

    /// Gives buffer `id` back to the kernel; visible after the next [`Buffers::publish`].
    pub fn recycle(&mut self, id: u16) {
        let index = usize::from(id);
        assert!(self.lent[index], "buffer {id} given back twice");
        self.lent[index] = false;
        let slot = usize::from(self.tail & (self.shape.count - 1));
        let addr = self.memory.as_ptr() as u64 + (index * self.shape.size) as u64;
        // SAFETY: `slot` < `count`, inside the allocation. The kernel reads an entry only
        // between its head and the published tail; this one is past the published tail
        // (at most `count` buffers are ever the kernel's, `lent` says which), so it does
        // not read it now. Each field is written through its own raw pointer, so the
        // tail in entry 0's `resv` is neither written nor covered by a reference.
        unsafe {
            let entry = self.entries.as_ptr().add(slot);
            (&raw mut (*entry).addr).write(addr);
            (&raw mut (*entry).len).write(self.shape.size as u32);
            (&raw mut (*entry).bid).write(id);
        }
        self.tail = self.tail.wrapping_add(1);
    }

    /// Makes every recycled buffer visible to the kernel (before each `io_uring_enter`).
    pub fn publish(&mut self) {
        if self.published == self.tail {
            return;
        }
        // SAFETY: the tail is entry 0's `resv`, inside the allocation and 2-byte aligned;
        // the kernel reads it concurrently, so it is only accessed atomically, here with
        // release order so that the entries it covers are visible first.
        unsafe {
            let tail = &raw mut (*self.entries.as_ptr()).resv;
            AtomicU16::from_ptr(tail).store(self.tail, Ordering::Release);
        }
        self.published = self.tail;
    }
}

impl Drop for Buffers {
    fn drop(&mut self) {
        // SAFETY: allocated in `register` with these layouts. `Ring` drops us only once no
        // recv is in flight and the group is unregistered (or it leaks us instead), so the
        // kernel neither writes the buffers nor reads the entries any more.
        unsafe {
            dealloc(self.entries.as_ptr().cast(), self.entries_layout);
            dealloc(self.memory.as_ptr(), self.memory_layout);
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

    #[test]
    fn a_buffer_goes_to_the_thread_and_back_once() {
        let uring = io_uring::IoUring::new(8).expect("io_uring available");
        let shape = Shape { count: 2, size: 64 };
        let mut buffers = Buffers::register(&uring.submitter(), 0, shape).expect("registered");
        buffers.take(1, 10);
        assert_eq!(buffers.bytes(1, 10), [0; 10]);
        buffers.recycle(1);
        buffers.publish();
        let again = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| buffers.recycle(1)));
        assert!(
            again.is_err(),
            "a buffer the kernel holds cannot be given back again"
        );
        let _ = uring.submitter().unregister_buf_ring(0);
    }
}

//! The zero-copy file path's two syscalls, issued from the ring thread: `cachestat(2)`
//! (is the whole file in the page cache?) and `sendfile(2)` (hand its pages to TCP
//! without copying them into user memory).
//!
//! Neither is an io_uring operation. sendfile has no io_uring opcode, and the nearest one
//! (IORING_OP_SPLICE) always runs on an io-wq worker thread. Issued here instead, it must
//! never block the loop:
//! - on the socket: sendfile sends what fits in the socket buffer with O_NONBLOCK set for
//!   the call alone (io_uring's own socket operations expect a blocking socket: on a
//!   non-blocking one, an operation run on an io-wq thread may end with `EAGAIN`), and
//!   the connection waits for POLLOUT through the ring before the next call;
//! - on the disk: a file is sent this way only when cachestat finds every page of it
//!   cached. A cold file is read through the ring as before, which also caches it for
//!   the next request. A page evicted between the check and the send costs one disk
//!   read on this thread: the check narrows that window, it cannot close it.

use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};

use rustix::fs::OFlags;

/// `cachestat(2)`'s number (Linux 6.5) where it is 451, as on x86_64, aarch64 and
/// riscv64 (not on alpha, mips or x32, and libc does not name it for x86_64): elsewhere
/// [`resident`] says no, and every file is read.
const SYS_CACHESTAT: Option<libc::c_long> = if cfg!(all(
    target_pointer_width = "64",
    any(
        target_arch = "x86_64",
        target_arch = "aarch64",
        target_arch = "riscv64"
    )
)) {
    Some(451)
} else {
    None
};

/// `struct cachestat_range` of `<linux/mman.h>`.
#[repr(C)]
struct CachestatRange {
    off: u64,
    len: u64,
}

/// `struct cachestat` of `<linux/mman.h>`: page counts.
#[repr(C)]
#[derive(Default)]
struct Cachestat {
    nr_cache: u64,
    nr_dirty: u64,
    nr_writeback: u64,
    nr_evicted: u64,
    nr_recently_evicted: u64,
}

/// Every page of the first `len` bytes of `file` is in the page cache. False when the
/// kernel cannot tell (no cachestat before Linux 6.5; since 6.14 it refuses, EPERM, a file
/// the server may neither write nor owns): the file is then read instead.
pub fn resident(file: BorrowedFd<'_>, len: u64) -> bool {
    let Some(number) = SYS_CACHESTAT else {
        return false;
    };
    let range = CachestatRange { off: 0, len };
    let mut stat = Cachestat::default();
    // SAFETY: the kernel reads `range` and writes `stat`, two locals that outlive this
    // synchronous call; flags must be 0.
    let result = unsafe { libc::syscall(number, file.as_raw_fd(), &raw const range, &raw mut stat, 0u32) };
    let pages = len.div_ceil(page_size());
    result == 0 && stat.nr_cache >= pages
}

fn page_size() -> u64 {
    rustix::param::page_size() as u64
}

/// A connection's socket as a descriptor of the process: never a direct descriptor (a
/// slot of the ring's registered table, whose number names some other file or none).
#[derive(Debug, Clone, Copy)]
pub struct ProcessSocket(RawFd);

impl ProcessSocket {
    /// The socket `fd`, unless it is `direct` (checked in every build).
    ///
    /// # Safety
    /// `fd` (when not `direct`) must be a connection's socket that stays open while the
    /// value is used: its Close not yet submitted.
    pub unsafe fn of(fd: RawFd, direct: bool) -> Option<ProcessSocket> {
        (!direct).then_some(ProcessSocket(fd))
    }
}

/// Sends up to `count` bytes of `file` from `offset` on `socket` without blocking.
/// Returns the bytes sent, or the negated errno (`-EAGAIN`: the socket buffer is full),
/// as a completion would carry it.
pub fn send_file(socket: ProcessSocket, file: BorrowedFd<'_>, offset: u64, count: u64) -> i32 {
    // SAFETY: a descriptor of the process (`ProcessSocket` is never a direct one), open
    // while it is used (`ProcessSocket::of`'s contract): borrowed for this synchronous
    // call alone.
    let socket = unsafe { BorrowedFd::borrow_raw(socket.0) };
    if let Err(e) = rustix::fs::fcntl_setfl(socket, OFlags::NONBLOCK) {
        return -e.raw_os_error();
    }
    let mut offset = offset;
    let count = count.min(i32::MAX as u64) as usize;
    let sent = rustix::fs::sendfile(socket, file.as_fd(), Some(&mut offset), count);
    // Back to blocking, as the ring's operations on this socket expect; the accepted
    // socket had no other F_SETFL flag to keep.
    let restored = rustix::fs::fcntl_setfl(socket, OFlags::empty());
    match (sent, restored) {
        (Ok(n), Ok(())) => n as i32,
        (Err(e), Ok(())) => -e.raw_os_error(),
        // A socket left non-blocking cannot go on: EIO breaks the response (never the
        // read fallback, which would send again what sendfile may have sent).
        (_, Err(_)) => -libc::EIO,
    }
}

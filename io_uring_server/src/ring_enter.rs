//! The cheaper `io_uring_enter`: the ring's own descriptor registered with the ring once
//! (IORING_REGISTER_RING_FDS, Linux 5.18), then every enter names it by that index
//! (IORING_ENTER_REGISTERED_RING), so the kernel skips the descriptor-table lookup and
//! its reference count on every call; and no wait argument is passed when there is no
//! minimum wait to say, so nothing is copied in. The io-uring crate registers the ring
//! only on one `Submitter`, which borrows the ring and so cannot live beside it in
//! `Ring`: the two syscalls are made here. `--no-registered-ring` switches this off.

use std::io;
use std::os::fd::AsRawFd;

use io_uring::IoUring;

/// `IORING_(UN)REGISTER_RING_FDS` of `<linux/io_uring.h>`.
const IORING_REGISTER_RING_FDS: libc::c_uint = 20;
const IORING_UNREGISTER_RING_FDS: libc::c_uint = 21;
/// `io_uring_enter` flags of `<linux/io_uring.h>`.
const IORING_ENTER_GETEVENTS: libc::c_uint = 1 << 0;
const IORING_ENTER_REGISTERED_RING: libc::c_uint = 1 << 4;

/// `struct io_uring_rsrc_update`: `offset` u32::MAX asks the kernel for any free slot,
/// and it writes back the slot it chose.
#[repr(C)]
struct RsrcUpdate {
    offset: u32,
    resv: u32,
    data: u64,
}

/// Registers `uring`'s descriptor with itself, for the calling thread only (the kernel
/// keeps registered rings per thread); returns the index enters name it by.
pub fn register(uring: &IoUring) -> io::Result<u32> {
    let mut update = RsrcUpdate {
        offset: u32::MAX,
        resv: 0,
        data: uring.as_raw_fd() as u64,
    };
    match update_ring_fds(uring, IORING_REGISTER_RING_FDS, &mut update) {
        1 => Ok(update.offset),
        _ => Err(io::Error::last_os_error()),
    }
}

/// Gives back the slot `index` registered on this thread; nothing to do if it fails (the
/// thread's exit gives it back too).
pub fn unregister(uring: &IoUring, index: u32) {
    let mut update = RsrcUpdate {
        offset: index,
        resv: 0,
        data: 0,
    };
    update_ring_fds(uring, IORING_UNREGISTER_RING_FDS, &mut update);
}

fn update_ring_fds(uring: &IoUring, opcode: libc::c_uint, update: &mut RsrcUpdate) -> libc::c_long {
    // SAFETY: the kernel reads and writes back `update`, borrowed for this synchronous
    // call; the count (1) matches it.
    unsafe {
        libc::syscall(
            libc::SYS_io_uring_register,
            uring.as_raw_fd(),
            opcode,
            std::ptr::from_mut(update),
            1u32,
        )
    }
}

/// Submits what `uring`'s submission queue holds and waits for `want` completions,
/// naming the ring by its registered `index`: what `Submitter::submit_and_wait` does
/// without SQPOLL (never registered then, see `Ring::new`), flag for flag: events are
/// asked for when waiting, when completions overflowed, or when task work is pending
/// (TASKRUN_FLAG); deferred task work runs only in an enter that asks for events.
pub fn submit_and_wait(uring: &mut IoUring, index: u32, want: usize) -> io::Result<usize> {
    let queue = uring.submission();
    let (len, events) = (queue.len(), queue.cq_overflow() || queue.taskrun());
    drop(queue);
    let mut flags = IORING_ENTER_REGISTERED_RING;
    if want > 0 || events {
        flags |= IORING_ENTER_GETEVENTS;
    }
    // SAFETY: no wait argument is passed (null, size 0). The kernel reads the queued
    // entries, in the queues `IoUring` keeps mapped, and the memory they name, which
    // `Ring::push`'s callers keep valid until each completion. `index` names this ring
    // only on the thread that registered it, where `Ring` stays (it is not `Send`).
    let result = unsafe {
        libc::syscall(
            libc::SYS_io_uring_enter,
            index,
            len as u32,
            want as u32,
            flags,
            std::ptr::null::<libc::c_void>(),
            0usize,
        )
    };
    if result < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(result as usize)
    }
}

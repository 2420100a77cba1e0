//! The only place submission-queue entries are built and pushed. Building an entry is
//! safe; pushing it is `unsafe` because the kernel may then read or write the memory it
//! names until the operation's final completion. Each push states which memory that is
//! and why it stays valid.

use std::os::fd::RawFd;

use io_uring::{IoUring, opcode, squeue, types};

use crate::conn::Conn;
use crate::token::{Kind, Token};

/// Pushes `entry`, first submitting the queue to make room if it is full.
///
/// # Safety
/// Every buffer `entry` points to must stay allocated, and must not be written by us (or
/// read, for a receive) until the final completion of `entry`.
unsafe fn push(ring: &mut IoUring, entry: squeue::Entry) {
    // SAFETY: forwarded from the caller.
    while unsafe { ring.submission().push(&entry) }.is_err() {
        if let Err(error) = ring.submit() {
            // A failing io_uring_enter here means the ring itself is unusable.
            panic!("io_uring submit failed while the queue was full: {error}");
        }
    }
}

/// Accepts connections on `listener`: one multishot accept, or a single accept. With
/// `direct`, each connection lands in a free slot of the registered descriptor table and
/// the completion carries that slot instead of an fd.
pub fn accept(ring: &mut IoUring, listener: RawFd, multishot: bool, direct: bool) {
    let fd = types::Fd(listener);
    let entry = match multishot {
        true => opcode::AcceptMulti::new(fd).allocate_file_index(direct).build(),
        false => opcode::Accept::new(fd, std::ptr::null_mut(), std::ptr::null_mut())
            .file_index(direct.then(types::DestinationSlot::auto_target))
            .build(),
    };
    // SAFETY: no peer address is requested, so the operation names no memory of ours.
    unsafe { push(ring, entry.user_data(Token::global(Kind::Accept).encode())) };
}

/// Marks an entry that names `conn` by its registered-table slot rather than an fd.
fn on_file(entry: squeue::Entry, conn: &Conn) -> squeue::Entry {
    match conn.direct {
        true => entry.flags(squeue::Flags::FIXED_FILE),
        false => entry,
    }
}

/// Arms a multishot recv that takes buffers from buffer group `group`.
pub fn recv_multishot(ring: &mut IoUring, conn: &mut Conn, group: u16, token: Token) {
    let entry = on_file(opcode::RecvMulti::new(types::Fd(conn.fd), group).build(), conn);
    conn.recv_armed = true;
    conn.in_flight += 1;
    // SAFETY: the kernel writes only provided buffers, whose lifetime `BufRing` manages.
    unsafe { push(ring, entry.user_data(token.encode())) };
}

/// Arms one plain recv into the connection's own buffer.
pub fn recv_into_own_buffer(ring: &mut IoUring, conn: &mut Conn, size: usize, token: Token) {
    let fd = types::Fd(conn.fd);
    let buffer = conn.recv_buffer(size);
    let entry = opcode::Recv::new(fd, buffer.as_mut_ptr(), buffer.len() as u32).build();
    let entry = on_file(entry, conn);
    conn.recv_armed = true;
    conn.in_flight += 1;
    // SAFETY: the buffer is the connection's own heap block. It is neither read nor
    // replaced while `recv_armed` (only `on_own_recv`, after the completion, reads it), and
    // the connection is not freed while `in_flight` counts this recv.
    unsafe { push(ring, entry.user_data(token.encode())) };
}

/// Sends the connection's next output, if any and if no send is in flight; says whether
/// it submitted one.
pub fn send(ring: &mut IoUring, conn: &mut Conn, token: Token) -> bool {
    let fd = types::Fd(conn.fd);
    let Some(bytes) = conn.take_send() else {
        return false;
    };
    let entry = opcode::Send::new(fd, bytes.as_ptr(), bytes.len() as u32)
        .flags(libc::MSG_NOSIGNAL)
        .build();
    let entry = on_file(entry, conn);
    conn.in_flight += 1;
    // SAFETY: `take_send` hands out the `sending` buffer, which `Conn` leaves untouched
    // until `on_sent` (called on this send's completion), and the connection is not freed
    // while `in_flight` counts this send.
    unsafe { push(ring, entry.user_data(token.encode())) };
    true
}

/// Cancels every operation of `conn` still in flight with user_data `target`.
pub fn cancel(ring: &mut IoUring, conn: &mut Conn, target: Token, token: Token) {
    conn.in_flight += 1;
    let entry = opcode::AsyncCancel::new(target.encode()).build();
    // SAFETY: names no memory of ours.
    unsafe { push(ring, entry.user_data(token.encode())) };
}

/// Shuts down the write side (FIN) of `conn`.
pub fn shutdown_write(ring: &mut IoUring, conn: &mut Conn, token: Token) {
    conn.in_flight += 1;
    let entry = on_file(
        opcode::Shutdown::new(types::Fd(conn.fd), libc::SHUT_WR).build(),
        conn,
    );
    // SAFETY: names no memory of ours.
    unsafe { push(ring, entry.user_data(token.encode())) };
}

/// Closes the descriptor of `conn` (or frees its registered-table slot).
pub fn close(ring: &mut IoUring, conn: &mut Conn, token: Token) {
    conn.in_flight += 1;
    let entry = match conn.direct {
        true => opcode::Close::new(types::Fixed(conn.fd as u32)).build(),
        false => opcode::Close::new(types::Fd(conn.fd)).build(),
    };
    // SAFETY: names no memory of ours.
    unsafe { push(ring, entry.user_data(token.encode())) };
}

/// Cancels a global operation (accept, timer) by its token.
pub fn cancel_global(ring: &mut IoUring, kind: Kind) {
    let entry = opcode::AsyncCancel::new(Token::global(kind).encode()).build();
    // SAFETY: names no memory of ours.
    unsafe { push(ring, entry.user_data(Token::global(Kind::Control).encode())) };
}

/// Arms the once-a-second tick.
pub fn tick(ring: &mut IoUring, every: &'static types::Timespec) {
    let entry = opcode::Timeout::new(every).build();
    // SAFETY: the timespec is `'static`.
    unsafe { push(ring, entry.user_data(Token::global(Kind::Timer).encode())) };
}

/// Reads from the wake-up pipe into `sink`; it completes when main drops the writer.
pub fn wait_wake(ring: &mut IoUring, pipe: RawFd, sink: &'static mut [u8; 8]) {
    let entry = opcode::Read::new(types::Fd(pipe), sink.as_mut_ptr(), 8).build();
    // SAFETY: `sink` is `'static` and exclusively lent to this read.
    unsafe { push(ring, entry.user_data(Token::global(Kind::Wake).encode())) };
}

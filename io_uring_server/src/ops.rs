//! Carrying out what a connection asks for: [`carry_out`] makes the one syscall an
//! operation is done by where that is cheaper ([`shutdown_write`], a file's stat,
//! [`send_file`]) and
//! otherwise has [`submit`] build the operation's submission entry and push it. Building
//! an entry is safe; pushing it is `unsafe` because the kernel may then read or write the
//! memory it names until the operation's final completion. Each push states which memory
//! that is and why it stays valid, by the rules in `DESIGN.md`. The connection's entries
//! are pushed here, and the worker's own (accept, tick, wake-up, their cancels); a file's
//! OPENAT2, STATX and READ are pushed by `files/entries.rs`, which [`submit`] hands them
//! to. What to submit is decided elsewhere (`Conn::next_op`, the worker's accept and
//! timer states); this module only carries it out.

use std::os::fd::RawFd;

use io_uring::types::CancelBuilder;
use io_uring::{opcode, squeue, types};

use crate::conn::Conn;
use crate::files::transfer::FileOp;
use crate::files::{entries, sendfile};
use crate::op_state::Op;
use crate::ring::Ring;
use crate::token::{Kind, Token};

/// What became of an operation handed to [`carry_out`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Carried {
    /// Pushed to the submission queue; its completion will follow.
    Submitted,
    /// Done already by a syscall, with this result (as a completion would carry it).
    Done(i32),
}

/// Carries out `op` for `conn`, which has just been told it was submitted
/// ([`Conn::submitted`]); `token` names the connection and the op's kind. Three
/// operations are syscalls on the ring thread instead of entries: a shutdown on a regular
/// descriptor, and a file's stat and its sendfile where the root's file system reads
/// without waiting (ext4, xfs, btrfs: `FilesRoot`). io_uring hands IORING_OP_SHUTDOWN and
/// IORING_OP_STATX to an io-wq worker thread every time; that thread's wake-up cost more
/// than the syscall, which there does not wait.
pub fn carry_out(ring: &mut Ring, conn: &mut Conn, op: Op, token: Token) -> Carried {
    match op {
        Op::Shutdown if !conn.direct => Carried::Done(shutdown_write(conn.fd)),
        Op::File(FileOp::Sendfile) => Carried::Done(send_file(conn)),
        Op::File(FileOp::Stat) if conn.file_transfer().stats_inline() => {
            Carried::Done(conn.file_transfer().stat_now())
        }
        _ => {
            submit(ring, conn, op, token);
            Carried::Submitted
        }
    }
}

/// Shuts the socket's write side (`shutdown(2)`, `SHUT_WR`). Not `IORING_OP_SHUTDOWN`:
/// io_uring always hands that to an io-wq worker thread, and that thread hand-off per
/// connection cost more than the syscall. Returns 0 or the negated errno.
fn shutdown_write(fd: RawFd) -> i32 {
    // SAFETY: shutdown(2) on the connection's own descriptor, open until its Close
    // completes; it names no memory.
    let result = unsafe { libc::shutdown(fd, libc::SHUT_WR) };
    if result < 0 { -errno() } else { 0 }
}

/// The file's next `sendfile(2)` on the connection's socket (`files/sendfile.rs`); as a
/// completion would carry it: bytes sent, or the negated errno.
fn send_file(conn: &mut Conn) -> i32 {
    // A direct descriptor never reaches sendfile(2): EINVAL, as sendfile gives a
    // socket it cannot send to, has the file read through the ring instead.
    // SAFETY: the connection's socket: a file step is asked for only while the
    // connection is open, and its Close only once it is closing with nothing in
    // flight, so the descriptor stays open through the synchronous sendfile.
    let Some(socket) = (unsafe { sendfile::ProcessSocket::of(conn.fd, conn.direct) }) else {
        return -libc::EINVAL;
    };
    let (file, offset, count) = conn.file_transfer().sendfile_args();
    sendfile::send_file(socket, file, offset, count)
}

/// Pushes the entry of `op` for `conn`. A send the connection deems worth it goes out as
/// SEND_ZC, one of several slices as SENDMSG.
fn submit(ring: &mut Ring, conn: &mut Conn, op: Op, token: Token) {
    let (fd, direct) = (types::Fd(conn.fd), conn.direct);
    let entry = match op {
        Op::Recv => opcode::RecvMulti::new(fd, conn.buffer_group()).build(),
        Op::RecvInto => {
            let room = conn.recv_room();
            let entry = opcode::Recv::new(fd, room.as_mut_ptr(), room.len().min(u32::MAX as usize) as u32);
            let entry = on_socket(entry.build(), direct).user_data(token.encode());
            // SAFETY: the kernel may write the room, a part of the connection's input
            // buffer, until this recv's completion (`Conn::on_recv`), which reports every
            // byte written. Until then `Input` neither grows, shrinks nor moves the room
            // (each such call asserts), and the connection is not freed while the recv is
            // in flight (DESIGN.md, rules 1 and 2).
            return unsafe { ring.push(entry) };
        }
        Op::Send => return push_send(ring, conn, token),
        Op::File(FileOp::PollOut) => opcode::PollAdd::new(fd, libc::POLLOUT as u32).build(),
        Op::File(file_op) => return entries::submit(ring, conn.file_transfer(), file_op, token),
        Op::CancelFile => return push_bare(ring, cancel_of(token, Kind::File), token),
        Op::CancelRecv => return push_bare(ring, cancel_of(token, Kind::Recv), token),
        Op::CancelAll => return push_bare(ring, cancel_all(conn.fd, direct), token),
        Op::Close => return push_bare(ring, close(conn.fd, direct), token),
        Op::Shutdown => opcode::Shutdown::new(fd, libc::SHUT_WR).build(),
    };
    let entry = on_socket(entry, direct).user_data(token.encode());
    // SAFETY: a multishot recv writes only provided buffers, which `BufRing` keeps
    // allocated for the ring's lifetime (DESIGN.md, rule 3); poll and shutdown name no
    // memory of ours.
    unsafe { ring.push(entry) };
}

/// Pushes a send of the connection's unsent output.
fn push_send(ring: &mut Ring, conn: &mut Conn, token: Token) {
    let fd = types::Fd(conn.fd);
    if conn.zero_copy_worthy() {
        let bytes = conn.unsent().next().expect("a send has bytes to send");
        let entry = opcode::SendZc::new(fd, bytes.as_ptr(), bytes.len() as u32)
            .flags(libc::MSG_NOSIGNAL)
            .build();
        let entry = on_socket(entry, conn.direct).user_data(token.encode());
        // SAFETY: a zero-copy-worthy send is of a `'static` body (`Conn::zero_copy_worthy`),
        // which the kernel may read until this send's notification, whenever that comes:
        // it lives as long as the process and is never changed, so neither the
        // connection nor its slot has to outlive the notification.
        return unsafe { ring.push(entry) };
    }
    let more = if conn.more_follows() { libc::MSG_MORE } else { 0 };
    let flags = libc::MSG_NOSIGNAL | more;
    let entry = match conn.gathered() {
        Some(header) => opcode::SendMsg::new(fd, header).flags(flags as u32).build(),
        None => {
            let bytes = conn.unsent().next().expect("a send has bytes to send");
            opcode::Send::new(fd, bytes.as_ptr(), bytes.len() as u32)
                .flags(flags)
                .build()
        }
    };
    let entry = on_socket(entry, conn.direct).user_data(token.encode());
    // SAFETY: the kernel reads the bytes `Conn::unsent` names (of the connection's
    // `sending` output: its owned bytes, an input buffer it adopted, or a
    // `'static` body that never changes) and, for a gathered send, the boxed
    // msghdr and iovecs naming them (built by `Conn::name_send`). `Conn` leaves all
    // of them untouched (neither changed, moved, cleared nor dropped) until this send's
    // completion (both places that change them assert that no send is in flight),
    // and the connection is not freed while the send is in flight (DESIGN.md,
    // rules 1, 4 and 5).
    unsafe { ring.push(entry) };
}

/// Pushes an entry that names no memory of ours (a cancel, a close).
fn push_bare(ring: &mut Ring, entry: squeue::Entry, token: Token) {
    // SAFETY: cancels and closes name no memory of ours.
    unsafe { ring.push(entry.user_data(token.encode())) };
}

/// An entry on the connection's socket, which is a direct descriptor (a slot of the
/// registered table) when `direct`.
fn on_socket(entry: squeue::Entry, direct: bool) -> squeue::Entry {
    if direct {
        entry.flags(squeue::Flags::FIXED_FILE)
    } else {
        entry
    }
}

/// A cancel of the connection's operation of `kind`, found by its token: the same
/// connection and generation as `token`, the cancel's own.
fn cancel_of(token: Token, kind: Kind) -> squeue::Entry {
    opcode::AsyncCancel::new(Token { kind, ..token }.encode()).build()
}

/// A cancel of every operation on the socket (`IORING_ASYNC_CANCEL_FD | _ALL`: Linux
/// 5.19, and 6.0 for a direct descriptor).
fn cancel_all(fd: RawFd, direct: bool) -> squeue::Entry {
    let every = if direct {
        CancelBuilder::fd(types::Fixed(fd as u32))
    } else {
        CancelBuilder::fd(types::Fd(fd))
    };
    opcode::AsyncCancel2::new(every.all()).build()
}

/// A close of the socket or of its direct slot.
fn close(fd: RawFd, direct: bool) -> squeue::Entry {
    if direct {
        opcode::Close::new(types::Fixed(fd as u32)).build()
    } else {
        opcode::Close::new(types::Fd(fd)).build()
    }
}

fn errno() -> i32 {
    std::io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}
/// Accepts connections on `listener`: one multishot accept, or a single accept. With
/// `direct`, each connection lands in a free slot of the registered descriptor table and
/// the completion carries that slot instead of an fd.
pub fn accept(ring: &mut Ring, listener: RawFd, multishot: bool, direct: bool) {
    let fd = types::Fd(listener);
    let entry = if multishot {
        opcode::AcceptMulti::new(fd).allocate_file_index(direct).build()
    } else {
        opcode::Accept::new(fd, std::ptr::null_mut(), std::ptr::null_mut())
            .file_index(direct.then(types::DestinationSlot::auto_target))
            .build()
    };
    // SAFETY: no peer address is requested, so the operation names no memory of ours.
    unsafe { ring.push(entry.user_data(Token::global(Kind::Accept).encode())) };
}

/// Cancels a global operation (accept, timer) by its token.
pub fn cancel_global(ring: &mut Ring, kind: Kind) {
    let entry = opcode::AsyncCancel::new(Token::global(kind).encode()).build();
    // SAFETY: names no memory of ours.
    unsafe { ring.push(entry.user_data(Token::global(Kind::Control).encode())) };
}

/// Arms the once-a-second tick.
pub fn tick(ring: &mut Ring, every: &'static types::Timespec) {
    let entry = opcode::Timeout::new(every).build();
    // SAFETY: the timespec is `'static`.
    unsafe { ring.push(entry.user_data(Token::global(Kind::Timer).encode())) };
}

/// Reads from the wake-up pipe into `sink`; it completes when main drops the writer.
pub fn wait_wake(ring: &mut Ring, pipe: RawFd, sink: &'static mut [u8; 8]) {
    let entry = opcode::Read::new(types::Fd(pipe), sink.as_mut_ptr(), 8).build();
    // SAFETY: `sink` is `'static` and exclusively lent to this read.
    unsafe { ring.push(entry.user_data(Token::global(Kind::Wake).encode())) };
}

//! The only place submission-queue entries are built and pushed. Building an entry is
//! safe; pushing it is `unsafe` because the kernel may then read or write the memory it
//! names until the operation's final completion. Each push states which memory that is
//! and why it stays valid, by the rules in `DESIGN.md`. What to submit is decided elsewhere (`Conn::next_op`, the
//! worker's accept and timer states); this module only carries it out. One operation is
//! not submitted at all where it can be: a shutdown on a regular descriptor is the
//! `shutdown(2)` syscall, because io_uring always hands `IORING_OP_SHUTDOWN` to an io-wq
//! worker thread, and that thread hand-off per connection cost more than the syscall.

use std::os::fd::RawFd;

use io_uring::types::CancelBuilder;
use io_uring::{opcode, squeue, types};

use crate::conn::Conn;
use crate::files::transfer::FileOp;
use crate::op_state::Op;
use crate::ring::Ring;
use crate::token::{Kind, Token};
use crate::files::{entries, sendfile};

/// How a connection receives: multishot into a provided-buffer group (with plain recvs
/// for a large body), or one plain recv at a time into at least `size` bytes of its input.
#[derive(Debug, Clone, Copy)]
pub enum RecvMode {
    Multishot { group: u16 },
    OwnBuffer { size: usize },
}

/// What became of an operation handed to [`submit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Carried {
    /// Pushed to the submission queue; its completion will follow.
    Submitted,
    /// Done already, with this result (as a completion would carry it).
    Done(i32),
}

/// Submits `op` for `conn`, which has just been told it was submitted
/// ([`Conn::submitted`]); `token` names the connection and the op's kind. A send the
/// connection deems worth it goes out as SEND_ZC, one of several slices as SENDMSG. A
/// file's sendfile is the syscall, carried out here (`files/sendfile.rs`).
pub fn submit(ring: &mut Ring, conn: &mut Conn, op: Op, token: Token, recv: RecvMode) -> Carried {
    let (fd, fixed) = (conn.fd, conn.direct);
    if op == Op::Shutdown && !fixed {
        // SAFETY: shutdown(2) on the connection's own descriptor, open until its Close
        // completes; it names no memory.
        let result = unsafe { libc::shutdown(fd, libc::SHUT_WR) };
        return Carried::Done(if result < 0 { -errno() } else { 0 });
    }
    let on_file = |entry: squeue::Entry| {
        if fixed {
            entry.flags(squeue::Flags::FIXED_FILE)
        } else {
            entry
        }
    };
    let user_data = token.encode();
    let entry = match (op, recv) {
        (Op::Recv, RecvMode::Multishot { group }) => {
            let entry = on_file(opcode::RecvMulti::new(types::Fd(fd), group).build());
            // SAFETY: the kernel writes only provided buffers, which `BufRing` keeps
            // allocated for the ring's lifetime (DESIGN.md, rule 3).
            unsafe { ring.push(entry.user_data(user_data)) };
            return Carried::Submitted;
        }
        (Op::Recv, RecvMode::OwnBuffer { .. }) => unreachable!("a plain-recv connection asks for RecvInto"),
        (Op::RecvInto, _) => {
            let room = conn.recv_room();
            let entry = opcode::Recv::new(
                types::Fd(fd),
                room.as_mut_ptr(),
                room.len().min(u32::MAX as usize) as u32,
            )
            .build();
            // SAFETY: the room is part of the connection's input buffer, lent until this
            // recv's completion is reported (`Conn::on_recv`); until then `Input` neither
            // grows, shrinks nor moves it (each such call asserts), and the connection is
            // not freed while the recv is in flight (DESIGN.md, rules 1 and 2).
            unsafe { ring.push(on_file(entry).user_data(user_data)) };
            return Carried::Submitted;
        }
        (Op::Send, _) if conn.zero_copy_worthy() => {
            let bytes = conn.unsent().next().expect("a send has bytes to send");
            let entry = opcode::SendZc::new(types::Fd(fd), bytes.as_ptr(), bytes.len() as u32)
                .flags(libc::MSG_NOSIGNAL)
                .build();
            // SAFETY: a zero-copy-worthy send is of a `'static` body (`Conn::zero_copy_worthy`),
            // which the kernel may read until this send's notification, whenever that comes:
            // it lives as long as the process and is never changed, so neither the
            // connection nor its slot has to outlive the notification.
            unsafe { ring.push(on_file(entry).user_data(user_data)) };
            return Carried::Submitted;
        }
        (Op::Send, _) => {
            let more = if conn.more_follows() { libc::MSG_MORE } else { 0 };
            let flags = libc::MSG_NOSIGNAL | more;
            let entry = match conn.gathered() {
                Some(header) => opcode::SendMsg::new(types::Fd(fd), header)
                    .flags(flags as u32)
                    .build(),
                None => {
                    let bytes = conn.unsent().next().expect("a send has bytes to send");
                    opcode::Send::new(types::Fd(fd), bytes.as_ptr(), bytes.len() as u32)
                        .flags(flags)
                        .build()
                }
            };
            // SAFETY: the kernel reads the bytes `Conn::unsent` names (of the connection's
            // `sending` output: its owned bytes, an input buffer it adopted, or a
            // `'static` body that never changes) and, for a gathered send, the boxed
            // msghdr and iovecs naming them (built by `Conn::submitted`). `Conn` leaves all
            // of them untouched (neither changed, moved, cleared nor dropped) until this send's
            // completion (both places that change them assert that no send is in flight),
            // and the connection is not freed while the send is in flight (DESIGN.md,
            // rules 1, 4 and 5).
            unsafe { ring.push(on_file(entry).user_data(user_data)) };
            return Carried::Submitted;
        }
        (Op::File(FileOp::Sendfile), _) => {
            // A direct descriptor never reaches sendfile(2): EINVAL, as sendfile gives a
            // socket it cannot send to, has the file read through the ring instead.
            // SAFETY: the connection's socket: a file step is asked for only while the
            // connection is open, and its Close only once it is closing with nothing in
            // flight, so the descriptor stays open through the synchronous sendfile.
            let Some(socket) = (unsafe { sendfile::ProcessSocket::of(fd, fixed) }) else {
                return Carried::Done(-libc::EINVAL);
            };
            let (file, offset, count) = conn.file_transfer().sendfile_args();
            return Carried::Done(sendfile::send_file(socket, file, offset, count));
        }
        (Op::File(FileOp::PollOut), _) => {
            on_file(opcode::PollAdd::new(types::Fd(fd), libc::POLLOUT as u32).build())
        }
        (Op::File(file_op), _) => {
            entries::submit(ring, conn.file_transfer(), file_op, token);
            return Carried::Submitted;
        }
        (Op::CancelFile, _) => cancel_of(token, Kind::File),
        (Op::Shutdown, _) => on_file(opcode::Shutdown::new(types::Fd(fd), libc::SHUT_WR).build()),
        (Op::CancelRecv, _) => cancel_of(token, Kind::Recv),
        (Op::CancelAll, _) => {
            let every = if fixed {
                CancelBuilder::fd(types::Fixed(fd as u32))
            } else {
                CancelBuilder::fd(types::Fd(fd))
            };
            opcode::AsyncCancel2::new(every.all()).build()
        }
        (Op::Close, _) if fixed => opcode::Close::new(types::Fixed(fd as u32)).build(),
        (Op::Close, _) => opcode::Close::new(types::Fd(fd)).build(),
    };
    // SAFETY: shutdown, cancel, close and poll name no memory of ours.
    unsafe { ring.push(entry.user_data(user_data)) };
    Carried::Submitted
}

/// A cancel of the connection's operation of `kind`, found by its token: the same
/// connection and generation as `token`, the cancel's own.
fn cancel_of(token: Token, kind: Kind) -> squeue::Entry {
    opcode::AsyncCancel::new(Token { kind, ..token }.encode()).build()
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

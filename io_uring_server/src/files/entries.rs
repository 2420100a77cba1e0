//! The submission entries of `/files/{name}`, on the worker's own ring: OPENAT2 on the
//! root directory, STATX on the opened descriptor where the root's file system may wait
//! (elsewhere the stat is a syscall, `FileTransfer::stat_now`), READ into the connection's
//! read buffer. Like `ops.rs` (which hands file operations here), building an entry is safe
//! and pushing it is `unsafe`: each push names the memory of a [`FileTransfer`], which
//! the connection keeps, unchanged, until the operation's completion (`DESIGN.md`,
//! rule 7). The descriptors around them are in `files/fd.rs`.

use std::os::fd::AsRawFd;

use io_uring::{opcode, types};

use crate::files::transfer::{FileOp, FileTransfer};
use crate::ring::Ring;
use crate::token::Token;

/// How a requested file is opened: read-only, refusing a symlink, never blocking (a FIFO;
/// cleared by [`crate::files::fd::make_blocking`] once the stat finds a regular file, unless it
/// is on the root's mount and that reads without blocking: `FilesRoot`), never
/// becoming the controlling terminal (a device node, which the stat then rejects), not
/// inherited.
const OPEN_FLAGS: i32 =
    libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC;

/// OPENAT2's `open_how`: [`OPEN_FLAGS`], resolved without leaving the root's mount
/// (RESOLVE_NO_XDEV): a file bind-mounted into the root is refused (EXDEV, answered 404),
/// so every file served is on the root's mount and the stat on the ring thread and the
/// sendfile gate, both judged by the root's file system (`FilesRoot`), hold for it.
/// Read by the kernel when the entry is submitted; `static`, so it outlives that.
static OPEN_HOW: types::OpenHow = types::OpenHow::new()
    .flags(OPEN_FLAGS as u64)
    .resolve(libc::RESOLVE_NO_XDEV);

/// Pushes `op` for `transfer`, which the connection has just marked submitted.
pub fn submit(ring: &mut Ring, transfer: &mut FileTransfer, op: FileOp, token: Token) {
    let user_data = token.encode();
    match op {
        FileOp::Open => {
            let (root, path) = transfer.open_args();
            let entry = opcode::OpenAt2::new(types::Fd(root), path.as_ptr(), &OPEN_HOW).build();
            // SAFETY: the kernel reads the `static` `open_how` and the NUL-terminated
            // name in the transfer's boxed scratch, which the transfer owns and does not
            // change; the transfer is not dropped before this operation's completion
            // (`DESIGN.md`, rules 1 and 7). The root stays open for the process's
            // lifetime (`main.rs`).
            unsafe { ring.push(entry.user_data(user_data)) };
        }
        FileOp::Stat => {
            let (fd, statx) = transfer.stat_args();
            let fd = fd.expect("a stat follows a successful open").as_raw_fd();
            let entry = opcode::Statx::new(
                types::Fd(fd),
                c"".as_ptr(),
                (statx as *mut libc::statx).cast::<types::statx>(),
            )
            .flags(libc::AT_EMPTY_PATH)
            .mask(libc::STATX_TYPE | libc::STATX_SIZE | libc::STATX_MNT_ID)
            .build();
            // SAFETY: the kernel reads the `'static` empty path and writes the `statx` in
            // the transfer's boxed scratch, which it neither reads nor drops before this
            // operation's completion; the descriptor stays open until then, as the
            // transfer owns it (`DESIGN.md`, rule 7).
            unsafe { ring.push(entry.user_data(user_data)) };
        }
        FileOp::Sendfile | FileOp::PollOut => unreachable!("socket steps are carried out by ops.rs"),
        FileOp::Read => {
            let (fd, room, offset) = transfer.read_args();
            let fd = fd.expect("a read follows a successful open").as_raw_fd();
            let entry = opcode::Read::new(types::Fd(fd), room.as_mut_ptr(), room.len() as u32)
                .offset(offset)
                .build();
            // SAFETY: the kernel writes the room, part of the transfer's heap read buffer,
            // which stays in the transfer (not handed to the output, not read, resized
            // nor dropped) until this read's completion; the descriptor stays open until
            // then, as the transfer owns it (`DESIGN.md`, rule 7).
            unsafe { ring.push(entry.user_data(user_data)) };
        }
    }
}

//! The submission entries of `/files/{name}`, on the worker's own ring: OPENAT on the
//! root directory, STATX on the opened descriptor, READ into the connection's read
//! buffer. Like `ops.rs` (which hands file operations here), building an entry is safe
//! and pushing it is `unsafe`: each push names the memory of a [`FileTransfer`], which
//! the connection keeps, unchanged, until the operation's completion (`DESIGN.md`,
//! rule 7). Also here: the root's opening at startup and the other kernel-facing steps (a
//! zeroed `statx`, owning an opened descriptor, making it blocking once it is known to be
//! a regular file).

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use io_uring::{opcode, types};

use crate::file::{FileOp, FileTransfer};
use crate::ring::Ring;
use crate::token::Token;

/// How a requested file is opened: read-only, refusing a symlink, never blocking (a FIFO;
/// cleared by [`make_blocking`] once STATX finds a regular file), not inherited.
const OPEN_FLAGS: i32 = libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC;

/// Opens `--files-dir` once, as a handle for OPENAT to resolve names in
/// (O_PATH|O_DIRECTORY; std adds O_CLOEXEC).
pub fn open_root(dir: &Path) -> std::io::Result<OwnedFd> {
    let root = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_PATH | libc::O_DIRECTORY)
        .open(dir)?;
    Ok(root.into())
}

/// Clears O_NONBLOCK on a descriptor found to be a regular file: io_uring tries a READ on a
/// non-blocking file without waiting (and may complete it with `EAGAIN`, as on a cold page
/// cache), where on a blocking one it waits for the disk. Returns the errno on failure.
pub fn make_blocking(fd: &OwnedFd) -> Result<(), i32> {
    use rustix::fs::{OFlags, fcntl_getfl, fcntl_setfl};
    let flags = fcntl_getfl(fd).map_err(|e| e.raw_os_error())?;
    fcntl_setfl(fd, flags - OFlags::NONBLOCK).map_err(|e| e.raw_os_error())
}

/// A `statx` buffer for STATX to fill.
pub fn zeroed_statx() -> Box<libc::statx> {
    // SAFETY: `statx` is plain integers (and reserved padding), for which all zeros is a
    // valid value.
    Box::new(unsafe { std::mem::zeroed() })
}

/// The descriptor an OPENAT completion returned, owned from now on (closed on drop).
pub fn opened(result: i32) -> Option<OwnedFd> {
    // SAFETY: a non-negative OPENAT result is a descriptor the kernel has just opened for
    // this transfer; nothing else knows it, so it has exactly one owner.
    (result >= 0).then(|| unsafe { OwnedFd::from_raw_fd(result) })
}

/// Pushes `op` for `transfer`, which the connection has just marked submitted.
pub fn submit(ring: &mut Ring, transfer: &mut FileTransfer, op: FileOp, token: Token) {
    let user_data = token.encode();
    match op {
        FileOp::Open => {
            let (root, path) = transfer.open_args();
            let entry = opcode::OpenAt::new(types::Fd(root), path.as_ptr())
                .flags(OPEN_FLAGS)
                .build();
            // SAFETY: the kernel reads the NUL-terminated name, a heap `CString` the
            // transfer owns and never changes; the transfer is not dropped before this
            // operation's completion (`DESIGN.md`, rules 1 and 7). The root stays open
            // for the process's lifetime (`main.rs`).
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
            .mask(libc::STATX_TYPE | libc::STATX_SIZE)
            .build();
            // SAFETY: the kernel reads the `'static` empty path and writes the boxed
            // `statx`, which the transfer owns and neither reads nor drops before this
            // operation's completion; the descriptor stays open until then, as the
            // transfer owns it (`DESIGN.md`, rule 7).
            unsafe { ring.push(entry.user_data(user_data)) };
        }
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

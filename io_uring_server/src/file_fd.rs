//! The descriptors of `/files/{name}` outside the ring: the root opened once at startup,
//! the descriptor an OPENAT returned (owned, so it closes on drop), made blocking once
//! STATX finds a regular file, and the zeroed `statx` STATX fills.

use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

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
/// One `fcntl(F_SETFL, 0)`, as every server does: the file was opened with no other
/// flag that F_SETFL changes.
pub fn make_blocking(fd: &OwnedFd) -> Result<(), i32> {
    rustix::fs::fcntl_setfl(fd, rustix::fs::OFlags::empty()).map_err(|e| e.raw_os_error())
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

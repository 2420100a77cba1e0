//! The descriptors of `/files/{name}` outside the ring: the root opened once at startup,
//! whether its file system's reads may stay non-blocking, the descriptor an OPENAT
//! returned (owned, so it closes on drop), made blocking where they may not.

use std::os::fd::{FromRawFd, OwnedFd, RawFd};
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

/// `--files-dir` as the workers use it: the root's descriptor (O_PATH, open for the
/// process's lifetime) and whether a READ of a file opened O_NONBLOCK in it may be left
/// so ([`nowait_reads`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FilesRoot {
    pub fd: RawFd,
    pub nowait_reads: bool,
}

/// Whether the file system of `root` (ext4, xfs, btrfs) does a READ with IOCB_NOWAIT
/// without blocking (FMODE_NOWAIT), as io_uring asks of any file opened O_NONBLOCK before
/// it hands the read to a worker thread: there a regular file may stay non-blocking, and
/// no file pays an `fcntl`. Elsewhere (NFS, FUSE, any other) a read could block the ring
/// thread, so the file is made blocking once STATX finds it regular, and io_uring hands
/// its reads to a worker thread whenever they would wait. The names are flat, so every
/// file lies in the root's own directory (a file bind-mounted there is not seen).
pub fn nowait_reads(root: &OwnedFd) -> bool {
    rustix::fs::fstatfs(root).is_ok_and(|fs| {
        // ext2/3/4 share their magic.
        let nowait = [
            libc::EXT4_SUPER_MAGIC,
            libc::XFS_SUPER_MAGIC,
            libc::BTRFS_SUPER_MAGIC,
        ];
        nowait.contains(&fs.f_type)
    })
}

/// Clears O_NONBLOCK on a regular file (opened so that a FIFO could not block the open):
/// io_uring then hands a READ that would wait to a worker thread. Returns the errno on
/// failure.
/// One `fcntl(F_SETFL, 0)`, as every server does: the file was opened with no other
/// flag that F_SETFL changes.
pub fn make_blocking(fd: &OwnedFd) -> Result<(), i32> {
    rustix::fs::fcntl_setfl(fd, rustix::fs::OFlags::empty()).map_err(|e| e.raw_os_error())
}

/// A `statx` for STATX to fill.
pub fn zeroed_statx() -> libc::statx {
    // SAFETY: `statx` is plain integers (and reserved padding), for which all zeros is a
    // valid value.
    unsafe { std::mem::zeroed() }
}

/// The descriptor an OPENAT completion returned, owned from now on (closed on drop).
pub fn opened(result: i32) -> Option<OwnedFd> {
    // SAFETY: a non-negative OPENAT result is a descriptor the kernel has just opened for
    // this transfer; nothing else knows it, so it has exactly one owner.
    (result >= 0).then(|| unsafe { OwnedFd::from_raw_fd(result) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_root_on_a_file_system_not_known_to_read_without_blocking_makes_files_blocking() {
        // procfs and tmpfs are not among ext4, xfs and btrfs.
        for dir in ["/proc", "/dev"] {
            let root = open_root(Path::new(dir)).unwrap();
            assert!(!nowait_reads(&root), "{dir}");
        }
    }
}

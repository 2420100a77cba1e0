//! The descriptors of `/files/{name}` outside the ring: the root opened once at startup,
//! whether its file system's reads may stay non-blocking, the descriptor an OPENAT2
//! returned (owned, so it closes on drop), made blocking where they may not.

use std::os::fd::{FromRawFd, OwnedFd, RawFd};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Opens `--files-dir` once, as a handle for OPENAT2 to resolve names in
/// (O_PATH|O_DIRECTORY; std adds O_CLOEXEC).
pub fn open_root(dir: &Path) -> std::io::Result<OwnedFd> {
    let root = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_PATH | libc::O_DIRECTORY)
        .open(dir)?;
    Ok(root.into())
}

/// `--files-dir` as the workers use it: the root's descriptor (O_PATH, open for the
/// process's lifetime), the mount it is on, and whether a READ of a file of that mount
/// opened O_NONBLOCK may be left so ([`nowait_mount`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FilesRoot {
    pub fd: RawFd,
    /// The root's mount id (STATX_MNT_ID); a file on another would be made blocking, but
    /// none is opened (RESOLVE_NO_XDEV, `files/entries.rs`).
    pub mount: u64,
    pub nowait_reads: bool,
}

impl FilesRoot {
    /// `root` (opened by [`open_root`]) as the workers use it.
    pub fn of(root: &OwnedFd) -> FilesRoot {
        use std::os::fd::AsRawFd;
        let mount = nowait_mount(root);
        FilesRoot {
            fd: root.as_raw_fd(),
            mount: mount.unwrap_or(0),
            nowait_reads: mount.is_some(),
        }
    }

    /// Whether a regular file on `mount` (its STATX_MNT_ID) may stay non-blocking.
    pub fn reads_nowait_on(&self, mount: u64) -> bool {
        self.nowait_reads && mount == self.mount
    }
}

/// The mount id of `root` if its file system (ext4, xfs, btrfs: [`nowait_fs`]) does a READ
/// with IOCB_NOWAIT without blocking (FMODE_NOWAIT), as io_uring asks of any file opened
/// O_NONBLOCK before it hands the read to a worker thread: there a regular file of that
/// mount may stay non-blocking, and no file pays an `fcntl`. Elsewhere (NFS, FUSE, any
/// other) a read could block the ring thread, so the file is made blocking once the stat
/// finds it regular, and io_uring runs its reads on worker threads.
fn nowait_mount(root: &OwnedFd) -> Option<u64> {
    use rustix::fs::{AtFlags, StatxFlags, fstatfs, statx};
    let fs = fstatfs(root).ok()?;
    let stat = statx(root, c"", AtFlags::EMPTY_PATH, StatxFlags::MNT_ID).ok()?;
    let known = stat.stx_mask & libc::STATX_MNT_ID != 0;
    (nowait_fs(fs.f_type as i64) && known).then_some(stat.stx_mnt_id)
}

/// Whether the file system of magic `f_type` is ext4 (whose magic ext2 and ext3 share:
/// the ext4 driver serves them), xfs or btrfs, each setting FMODE_NOWAIT on its files.
fn nowait_fs(f_type: i64) -> bool {
    [0xEF53, 0x5846_5342, 0x9123_683E].contains(&f_type)
}

/// Clears O_NONBLOCK on a regular file (opened so that a FIFO could not block the open):
/// io_uring then hands a READ that would wait to a worker thread. Returns the errno on
/// failure.
/// One `fcntl(F_SETFL, 0)`, as every server does: the file was opened with no other
/// flag that F_SETFL changes.
pub fn make_blocking(fd: &OwnedFd) -> Result<(), i32> {
    rustix::fs::fcntl_setfl(fd, rustix::fs::OFlags::empty()).map_err(|e| e.raw_os_error())
}

/// `statx(2)` of an opened descriptor (AT_EMPTY_PATH): its type, size and mount, into
/// `into`; 0 or the negated errno. Called on the ring thread only where the root's file
/// system reads without waiting (`FilesRoot::nowait_reads`), where a stat of an open
/// descriptor reads its inode in memory; AT_STATX_DONT_SYNC besides. A file of another
/// file system bind-mounted into the root (CIFS, GFS2, FUSE, whose stat may wait) never
/// gets here: its open is refused (RESOLVE_NO_XDEV, `files/entries.rs`).
pub fn stat_into(fd: &OwnedFd, into: &mut libc::statx) -> i32 {
    use rustix::fs::{AtFlags, StatxFlags, statx};
    let flags = AtFlags::EMPTY_PATH | AtFlags::STATX_DONT_SYNC;
    let wanted = StatxFlags::TYPE | StatxFlags::SIZE | StatxFlags::MNT_ID;
    match statx(fd, c"", flags, wanted) {
        Ok(stat) => {
            into.stx_mask = stat.stx_mask;
            into.stx_mode = stat.stx_mode;
            into.stx_size = stat.stx_size;
            into.stx_mnt_id = stat.stx_mnt_id;
            0
        }
        Err(errno) => -errno.raw_os_error(),
    }
}

/// A `statx` for the stat to fill.
pub fn zeroed_statx() -> libc::statx {
    // SAFETY: `statx` is plain integers (and reserved padding), for which all zeros is a
    // valid value.
    unsafe { std::mem::zeroed() }
}

/// The descriptor an OPENAT2 completion returned, owned from now on (closed on drop).
pub fn opened(result: i32) -> Option<OwnedFd> {
    // SAFETY: a non-negative OPENAT2 result is a descriptor the kernel has just opened for
    // this transfer; nothing else knows it, so it has exactly one owner.
    (result >= 0).then(|| unsafe { OwnedFd::from_raw_fd(result) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_ext4_xfs_and_btrfs_read_without_blocking() {
        assert!(nowait_fs(0xEF53) && nowait_fs(0x5846_5342) && nowait_fs(0x9123_683E));
        // tmpfs, procfs, NFS, FUSE.
        for other in [0x0102_1994, 0x9FA0, 0x6969, 0x6573_5546] {
            assert!(!nowait_fs(other), "{other:#x}");
        }
    }

    #[test]
    fn a_root_on_another_file_system_makes_files_blocking() {
        // procfs and tmpfs are not among ext4, xfs and btrfs.
        for dir in ["/proc", "/dev"] {
            let root = FilesRoot::of(&open_root(Path::new(dir)).unwrap());
            assert!(!root.nowait_reads && !root.reads_nowait_on(root.mount), "{dir}");
        }
    }

    #[test]
    fn a_stat_fills_the_type_size_and_mount_over_what_a_previous_file_left() {
        let dir = std::env::temp_dir().join(format!("stat-into-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("f"), b"hello").unwrap();
        let mut into = zeroed_statx();
        (into.stx_mode, into.stx_size) = (0xffff, u64::MAX);
        let file: OwnedFd = std::fs::File::open(dir.join("f")).unwrap().into();
        assert_eq!(stat_into(&file, &mut into), 0);
        assert_eq!(u32::from(into.stx_mode) & libc::S_IFMT, libc::S_IFREG);
        assert_eq!(into.stx_size, 5);
        assert_ne!(into.stx_mask & libc::STATX_MNT_ID, 0);
        let root = FilesRoot::of(&open_root(&dir).unwrap());
        assert!(!root.nowait_reads || root.reads_nowait_on(into.stx_mnt_id));
        let folder: OwnedFd = std::fs::File::open(&dir).unwrap().into();
        assert_eq!(stat_into(&folder, &mut into), 0);
        assert_eq!(u32::from(into.stx_mode) & libc::S_IFMT, libc::S_IFDIR);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_on_another_mount_than_the_roots_is_made_blocking() {
        let root = FilesRoot {
            fd: 3,
            mount: 7,
            nowait_reads: true,
        };
        assert!(root.reads_nowait_on(7));
        assert!(!root.reads_nowait_on(8), "a file bind-mounted into the root");
    }
}

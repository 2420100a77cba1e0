//! The temporary files root the file checks serve ([`Tree`]), and what `/proc` tells of
//! how a server read them.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::PathBuf;

use http_core::files::FILE_CHUNK;
use http_core::routes::pattern_byte;

use crate::ServerProcess;

/// The files every check reads, under a root beside a secret that must stay unread;
/// removed when dropped.
pub struct Tree {
    dir: PathBuf,
}

/// A file larger than one read, so it is streamed in pieces.
pub const STREAMED_LEN: usize = 4 * FILE_CHUNK + 123;
/// Larger than what loopback socket buffers can hold, so the server is still sending it
/// when the test removes or truncates it.
pub const SLOW_LEN: usize = 48 << 20;
pub const SMALL_LEN: usize = 5000;

pub fn content(len: usize) -> Vec<u8> {
    (0..len).map(|i| pattern_byte(i * 7 + 3)).collect()
}

impl Tree {
    pub fn create(label: &str) -> Tree {
        let dir = std::env::temp_dir().join(format!("files-{label}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let root = dir.join("root");
        fs::create_dir_all(root.join("dir")).expect("create the root");
        fs::write(dir.join("secret"), b"outside the root").expect("write the secret");
        fs::write(root.join("small"), content(SMALL_LEN)).expect("write small");
        fs::write(root.join("empty"), b"").expect("write empty");
        fs::write(root.join("streamed"), content(STREAMED_LEN)).expect("write streamed");
        symlink(root.join("small"), root.join("link-in")).expect("symlink in");
        symlink(dir.join("secret"), root.join("link-out")).expect("symlink out");
        symlink("/etc/passwd", root.join("passwd")).expect("symlink passwd");
        let fifo = std::ffi::CString::new(root.join("fifo").into_os_string().into_encoded_bytes()).unwrap();
        // SAFETY: `fifo` is a NUL-terminated path that outlives the call.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0, "mkfifo");
        Tree { dir }
    }

    pub fn root(&self) -> PathBuf {
        self.dir.join("root")
    }

    /// Starts `binary args --files-dir <this tree's root>`.
    pub fn serve(&self, binary: &str, args: &[&str]) -> ServerProcess {
        let root = self
            .root()
            .into_os_string()
            .into_string()
            .expect("a UTF-8 temp path");
        let mut with_root = args.to_vec();
        with_root.extend(["--files-dir", &root]);
        ServerProcess::start(binary, &with_root)
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// The io_uring instances among `pid`'s descriptors: which I/O path a server took.
pub fn io_uring_instances(pid: u32) -> usize {
    fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|fds| {
            fds.filter_map(|fd| fs::read_link(fd.ok()?.path()).ok())
                .filter(|link| link.to_string_lossy().contains("io_uring"))
                .count()
        })
        .unwrap_or(0)
}

/// The threads `pid` runs now.
pub fn threads(pid: u32) -> usize {
    fs::read_dir(format!("/proc/{pid}/task")).map_or(0, |tasks| tasks.count())
}

//! The `/files/{name}` checks each server crate's `tests/files.rs` runs against its binary
//! (included there with `#[path]`, so the servers share one copy; it needs `conformance`
//! as a dev-dependency): exact bytes of a small and a streamed file, HEAD, 404 for a
//! missing name, a symlink, a directory and a FIFO, and a file answer pipelined in order
//! with the requests around it.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use conformance::ServerProcess;
use conformance::wire::{Conn, Response};

/// A file over one `FILE_CHUNK`, so it is streamed in pieces.
pub const LARGE: usize = (1 << 20) + 12_345;
pub const SMALL: usize = 1000;

/// The bytes of a test file of `len` bytes.
pub fn content(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i % 251) as u8 ^ (i >> 12) as u8).collect()
}

/// A temporary files root: `small`, `large`, `link` (a symlink to `small`), `dir` and
/// `fifo`; removed when dropped.
pub struct FilesRoot {
    pub path: PathBuf,
}

impl FilesRoot {
    pub fn new(tag: &str) -> FilesRoot {
        static ROOTS: AtomicUsize = AtomicUsize::new(0);
        let nth = ROOTS.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("files-{tag}-{}-{nth}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(path.join("dir")).unwrap();
        std::fs::write(path.join("small"), content(SMALL)).unwrap();
        std::fs::write(path.join("large"), content(LARGE)).unwrap();
        std::os::unix::fs::symlink("small", path.join("link")).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(path.join("fifo"))
            .status();
        assert!(made.is_ok_and(|status| status.success()), "mkfifo");
        FilesRoot { path }
    }

    pub fn arg(&self) -> &str {
        self.path.to_str().expect("a UTF-8 temp dir")
    }
}

impl Drop for FilesRoot {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// `binary args --files-dir ROOT`, started.
pub fn start_serving(binary: &str, args: &[&str], root: &FilesRoot) -> ServerProcess {
    let mut all = args.to_vec();
    all.extend(["--files-dir", root.arg()]);
    ServerProcess::start(binary, &all)
}

fn request(method: &str, path: &str) -> Vec<u8> {
    format!("{method} {path} HTTP/1.1\r\nHost: test\r\n\r\n").into_bytes()
}

/// One request on `conn` and its answer.
pub fn exchange(conn: &mut Conn, method: &str, path: &str) -> Response {
    conn.send(&request(method, path)).unwrap();
    conn.response(method == "HEAD")
        .unwrap_or_else(|e| panic!("{method} {path}: {e}"))
}

fn assert_file(response: &Response, len: usize, body: Option<&[u8]>) {
    assert_eq!(response.status, 200, "{}", response.normalized());
    assert_eq!(
        response.header("content-type"),
        Some(&b"application/octet-stream"[..])
    );
    assert_eq!(
        response.header("content-length"),
        Some(len.to_string().as_bytes())
    );
    assert_eq!(response.header("server"), Some(&b"uring-vs-tokio"[..]));
    assert!(response.header("date").is_some());
    if let Some(body) = body {
        assert!(response.body == body, "the body differs from the file");
    }
}

/// Every check, against `binary args`.
pub fn check_files(binary: &str, args: &[&str]) {
    let root = FilesRoot::new(binary.rsplit('/').next().unwrap_or("server"));
    let server = start_serving(binary, args, &root);
    let mut conn = Conn::connect(server.addr());
    let small = exchange(&mut conn, "GET", "/files/small");
    assert_file(&small, SMALL, Some(&content(SMALL)));
    let large = exchange(&mut conn, "GET", "/files/large");
    assert_file(&large, LARGE, Some(&content(LARGE)));
    let head = exchange(&mut conn, "HEAD", "/files/large");
    assert_file(&head, LARGE, Some(b""));
    for name in ["missing", "link", "dir", "fifo"] {
        let response = exchange(&mut conn, "GET", &format!("/files/{name}"));
        assert_eq!(response.status, 404, "{name}: {}", response.normalized());
    }

    // In one write: the file answer comes between the answers around it, in order.
    let mut batch = request("GET", "/files/small");
    batch.extend(request("GET", "/"));
    batch.extend(request("GET", "/files/large"));
    batch.extend(request("GET", "/files/missing"));
    batch.extend(request("GET", "/"));
    conn.send(&batch).unwrap();
    assert_file(&conn.response(false).unwrap(), SMALL, Some(&content(SMALL)));
    assert_eq!(conn.response(false).unwrap().body, http_core::routes::HELLO);
    assert_file(&conn.response(false).unwrap(), LARGE, Some(&content(LARGE)));
    assert_eq!(conn.response(false).unwrap().status, 404);
    assert_eq!(conn.response(false).unwrap().body, http_core::routes::HELLO);

    // A file answer the client asked to be the last.
    conn.send(b"GET /files/small HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
        .unwrap();
    assert_file(&conn.response(false).unwrap(), SMALL, Some(&content(SMALL)));
    conn.expect_close(Duration::from_secs(5)).unwrap();
    drop(server);

    let without_root = ServerProcess::start(binary, args);
    let mut conn = Conn::connect(without_root.addr());
    assert_eq!(exchange(&mut conn, "GET", "/files/small").status, 404);
}

/// The links in `/proc/PID/fd` that are io_uring instances.
pub fn io_uring_descriptors(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .filter_map(|entry| std::fs::read_link(entry.ok()?.path()).ok())
        .filter(|target| target == Path::new("anon_inode:[io_uring]"))
        .count()
}

/// The threads of process `pid`.
pub fn threads(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/task")).unwrap().count()
}

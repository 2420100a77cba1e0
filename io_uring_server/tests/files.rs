//! `GET|HEAD /files/{name}`: the conformance kit's file checks with several feature sets,
//! then what is particular to this server: a file answer that ends its connection while
//! a plain recv holds the input, a truncated file's descriptors all released, and a file
//! not in the page cache read whole (by each file path).

mod flags;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use conformance::ServerProcess;
use conformance::stress::fd_count;
use conformance::wire::probe;
use http_core::files::FILE_CHUNK;

const BIN: &str = env!("CARGO_BIN_EXE_io_uring_server");

/// Larger than two chunks and not a multiple of one.
const LARGE: usize = 4 * FILE_CHUNK + 12_345;

/// A directory removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("uring-files-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 % 251) as u8).collect()
}

/// A root with `small` (5 bytes), `large` ([`LARGE`]), `empty`, a symlink to `small`,
/// a directory and a FIFO.
fn root(tag: &str) -> TempDir {
    let dir = TempDir::new(tag);
    std::fs::write(dir.0.join("small"), b"hello").unwrap();
    std::fs::write(dir.0.join("large"), pattern(LARGE)).unwrap();
    std::fs::write(dir.0.join("empty"), b"").unwrap();
    std::os::unix::fs::symlink("small", dir.0.join("link")).unwrap();
    std::fs::create_dir(dir.0.join("dir")).unwrap();
    let fifo = std::ffi::CString::new(dir.0.join("fifo").into_os_string().into_encoded_bytes()).unwrap();
    // SAFETY: a NUL-terminated path; mkfifo touches no other memory of ours.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    dir
}

fn start(dir: &TempDir, args: &[&str]) -> ServerProcess {
    let mut all = vec!["--threads", "1", "--files-dir", dir.0.to_str().unwrap()];
    all.extend_from_slice(args);
    ServerProcess::start(BIN, &all)
}

/// The conformance kit's file checks (bytes, HEAD, every way out of the root,
/// pipelining, a file removed or truncated mid-response, no `--files-dir`), with the
/// default features and with the switches that change how a response leaves or input
/// arrives.
#[test]
fn files_conform_with_default_features() {
    conformance::check_files(BIN, &[]);
}

#[test]
fn files_conform_reading_every_file() {
    conformance::check_files(BIN, &["--no-sendfile"]);
}

#[test]
fn files_conform_with_every_feature_off() {
    conformance::check_files(BIN, &flags::EVERY_FEATURE_OFF);
}

#[test]
fn files_conform_with_direct_descriptors_and_zero_copy() {
    conformance::check_files(BIN, &["--fixed-files", "--zero-copy-send"]);
}

#[test]
fn a_file_with_connection_close_ends_its_connection_with_plain_recvs() {
    // A plain recv is in flight (lent the input) when the answer completes.
    let dir = root("close");
    let server = start(&dir, &["--no-multishot-recv"]);
    for (name, status, len) in [("small", 200, 5), ("large", 200, LARGE), ("missing", 404, 0)] {
        let mut stream = TcpStream::connect(server.addr()).unwrap();
        let request = format!("GET /files/{name} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
        stream.write_all(request.as_bytes()).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).expect("the answer, then EOF");
        let head = format!("HTTP/1.1 {status} ");
        assert!(answer.starts_with(head.as_bytes()), "{name}");
        let head_len = answer.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
        if status == 200 {
            assert_eq!(answer.len() - head_len, len, "{name}: the whole file, then EOF");
        }
    }
    probe(server.addr()).expect("the server still serves");
}

#[test]
fn a_file_truncated_while_streamed_closes_its_connection_only() {
    let dir = TempDir::new("truncated");
    let len = 32 << 20;
    let path = dir.0.join("big");
    std::fs::write(&path, pattern(len)).unwrap();
    let server = start(&dir, &[]);
    let before = fd_count(server.pid()).unwrap();
    let mut stream = TcpStream::connect(server.addr()).unwrap();
    stream
        .write_all(b"GET /files/big HTTP/1.1\r\nHost: t\r\n\r\n")
        .unwrap();
    // Read the head (and some bytes), then cut the file while most is still to be read:
    // the client reads nothing more until then, so the server is held by backpressure.
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut received = vec![0; 64 << 10];
    let first = stream.read(&mut received).unwrap();
    assert!(received[..first].starts_with(b"HTTP/1.1 200 OK"));
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(0)
        .unwrap();
    let mut total = first;
    loop {
        match stream.read(&mut received) {
            Ok(0) => break,
            Ok(n) => total += n,
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
            Err(e) => panic!("the connection did not end: {e} after {total} bytes"),
        }
    }
    assert!(total < len, "the response was cut short ({total} bytes)");
    probe(server.addr()).unwrap();
    // The file's descriptor and the connection's are gone once it has lingered.
    let deadline = Instant::now() + Duration::from_secs(10);
    while fd_count(server.pid()).unwrap() > before && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(fd_count(server.pid()).unwrap() <= before, "no descriptor leaked");
}

/// A file whose pages were dropped from the page cache comes back whole, by the read path
/// and by the default one (a cold file is read, not sent by sendfile), on a descriptor
/// left non-blocking where the root's file system reads without blocking.
#[test]
fn a_file_not_in_the_page_cache_is_read_whole() {
    let dir = root("cold");
    let path = dir.0.join("large");
    for args in [&[][..], &["--no-sendfile"][..]] {
        let file = std::fs::File::open(&path).unwrap();
        file.sync_all().unwrap();
        let len = LARGE as i64;
        // SAFETY: posix_fadvise on a descriptor we own; it touches no memory of ours.
        let dropped = unsafe {
            libc::posix_fadvise(
                std::os::fd::AsRawFd::as_raw_fd(&file),
                0,
                len,
                libc::POSIX_FADV_DONTNEED,
            )
        };
        assert_eq!(dropped, 0);
        let server = start(&dir, args);
        let mut conn = conformance::wire::Conn::connect(server.addr());
        conn.send(b"GET /files/large HTTP/1.1\r\nHost: t\r\n\r\n")
            .unwrap();
        let response = conn.response(false).unwrap();
        assert_eq!(response.status, 200, "{args:?}");
        assert!(response.body == pattern(LARGE), "{args:?}: the body differs");
    }
}

/// A file bind-mounted into the root (another mount, whose stat and reads the root's file
/// system cannot vouch for) is refused, 404, as a file the server cannot serve; the root's
/// own files are served beside it. The server runs in a private mount namespace
/// (`unshare`) holding the bind mount, so nothing outside the test sees it.
#[test]
fn a_file_on_another_mount_inside_the_root_is_404() {
    let dir = root("mount");
    let outside = TempDir::new("mount-source");
    std::fs::write(outside.0.join("secret"), b"from another mount").unwrap();
    std::fs::write(dir.0.join("mounted"), b"").unwrap();
    let bind = format!(
        "mount --bind {} {}",
        outside.0.join("secret").display(),
        dir.0.join("mounted").display()
    );
    let namespace = ["--mount", "--propagation", "private", "sh", "-c"];
    let can_mount = std::process::Command::new("unshare")
        .args(namespace)
        .arg(&bind)
        .status();
    if !can_mount.is_ok_and(|status| status.success()) {
        eprintln!("skipped: cannot bind-mount in a private mount namespace (unshare --mount needs root)");
        return;
    }
    let mount = format!("{bind} && exec \"$0\" \"$@\"");
    let mut command = std::process::Command::new("unshare");
    command.args(namespace).args([&mount, BIN]);
    command.args(["--threads", "1", "--files-dir", dir.0.to_str().unwrap()]);
    let server = ServerProcess::spawn(command, "io_uring_server in a mount namespace".into()).unwrap();
    for (name, status) in [("mounted", 404), ("small", 200)] {
        let mut conn = conformance::wire::Conn::connect(server.addr());
        conn.send(format!("GET /files/{name} HTTP/1.1\r\nHost: t\r\n\r\n").as_bytes())
            .unwrap();
        assert_eq!(conn.response(false).unwrap().status, status, "{name}");
    }
}

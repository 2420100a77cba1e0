//! `GET /files/{name}` against a server given `--files-dir`: the bytes of a small, an
//! empty and a streamed file (larger than [`FILE_CHUNK`]), HEAD, every way out of the
//! root refused (a failure here is a security hole, not a benchmark detail), the
//! connection kept after a 404, pipelined order, a file removed or truncated while it is
//! being sent, and an upload pipelined behind a large file ([`crate::file_upload`]).
//! [`check_files`] runs them all.

use std::fs;
use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use crate::ServerProcess;
use crate::wire::{Conn, Response};

use crate::file_tree::{SLOW_LEN, SMALL_LEN, STREAMED_LEN, content};
pub use crate::file_tree::{Tree, io_uring_instances, threads};

/// Fetches `GET /files/small` (5,000 bytes) and checks it.
pub fn fetch_small(addr: SocketAddr) -> Result<(), String> {
    expect_file(
        &fetch(&mut Conn::connect(addr), "GET", "/files/small")?,
        &content(SMALL_LEN),
        false,
        "small",
    )
}

/// Starts `binary args --files-dir <a fresh tree>` and runs every file check; then checks
/// that without `--files-dir` a file is 404. Panics with the list of failures.
pub fn check_files(binary: &str, args: &[&str]) {
    let label = format!(
        "{}-{}",
        binary.rsplit('/').next().unwrap_or("server"),
        args.join("_")
    );
    let tree = Tree::create(&label.replace([' ', '/'], "_"));
    let server = tree.serve(binary, args);
    let addr = server.addr();
    let mut failures = Vec::new();
    type Check = fn(SocketAddr, &Path) -> Result<(), String>;
    let checks: [(&str, Check); 8] = [
        ("bytes", bytes_and_heads),
        ("refusals", refusals),
        ("pipelined", pipelined),
        ("last", asked_to_be_the_last),
        ("method", method_not_allowed),
        ("removed", removed_while_sent),
        ("truncated", truncated_while_sent),
        ("upload behind a file", crate::file_upload::upload_behind_a_file),
    ];
    for (name, check) in checks {
        if let Err(e) = check(addr, &tree.root()) {
            failures.push(format!("files {name}: {e}"));
        }
    }
    failures.extend(
        crate::wire::probe(addr)
            .err()
            .map(|e| format!("files: alive after all: {e}")),
    );
    drop(server);
    let without = ServerProcess::start(binary, args);
    if let Err(e) = expect_status(without.addr(), "GET", "/files/small", 404) {
        failures.push(format!("files without --files-dir: {e}"));
    }
    assert!(
        failures.is_empty(),
        "{binary} {args:?}: file failures:\n- {}",
        failures.join("\n- ")
    );
}

fn request(method: &str, target: &str) -> Vec<u8> {
    format!("{method} {target} HTTP/1.1\r\nHost: files\r\n\r\n").into_bytes()
}

fn fetch(conn: &mut Conn, method: &str, target: &str) -> Result<Response, String> {
    conn.send(&request(method, target)).map_err(|e| e.to_string())?;
    conn.response(method == "HEAD")
}

fn expect_status(addr: SocketAddr, method: &str, target: &str, status: u16) -> Result<(), String> {
    let response = fetch(&mut Conn::connect(addr), method, target)?;
    match response.status == status {
        true => Ok(()),
        false => Err(format!("{method} {target}: {} (want {status})", response.status)),
    }
}

/// A 200 with the contract's headers and exactly the file's bytes (none for HEAD).
fn expect_file(response: &Response, want: &[u8], head: bool, what: &str) -> Result<(), String> {
    let length = response
        .header("content-length")
        .map(|v| String::from_utf8_lossy(v).into_owned());
    let content_type = response.header("content-type");
    if response.status != 200 || length != Some(want.len().to_string()) {
        return Err(format!("{what}: status {} length {length:?}", response.status));
    }
    if content_type != Some(b"application/octet-stream".as_slice()) || response.header("server").is_none() {
        return Err(format!("{what}: headers {:?}", response.headers));
    }
    match (head, response.body.as_slice()) {
        (true, []) => Ok(()),
        (false, body) if body == want => Ok(()),
        (_, body) => Err(format!("{what}: {} body bytes differ from the file", body.len())),
    }
}

fn bytes_and_heads(addr: SocketAddr, _: &Path) -> Result<(), String> {
    let mut conn = Conn::connect(addr);
    for (name, len) in [("small", SMALL_LEN), ("empty", 0), ("streamed", STREAMED_LEN)] {
        let want = content(len);
        expect_file(
            &fetch(&mut conn, "GET", &format!("/files/{name}"))?,
            &want,
            false,
            name,
        )?;
        expect_file(
            &fetch(&mut conn, "HEAD", &format!("/files/{name}?x=1"))?,
            &want,
            true,
            name,
        )?;
    }
    Ok(())
}

/// Every name that is not a plain regular file in the root is 404 (a request line
/// HTTP itself refuses may be 400), and the connection stays open after each.
fn refusals(addr: SocketAddr, _: &Path) -> Result<(), String> {
    let mut conn = Conn::connect(addr);
    let not_found = [
        "/files/missing",
        "/files/dir",
        "/files/link-in",
        "/files/link-out",
        "/files/passwd",
        "/files/fifo",
        "/files/..",
        "/files/../secret",
        "/files/root/../secret",
        "/files//etc/passwd",
        "/files/..%2Fsecret",
        "/files/%2e%2e%2fsecret",
        "/files/%2E%2E",
        "/files/small%00",
        "/files/.",
        "/files/",
        "/files/%73mall",
    ];
    for target in not_found {
        let response = fetch(&mut conn, "GET", target)?;
        if response.status != 404 || response.body.as_slice() != b"Not Found" {
            return Err(format!(
                "GET {target}: {} {:?}",
                response.status,
                response.body.len()
            ));
        }
    }
    for raw in ["/files/..\\secret", "/files/small\0"] {
        let response = fetch(&mut Conn::connect(addr), "GET", raw)?;
        if !matches!(response.status, 400 | 404) {
            return Err(format!("GET {raw:?}: {}", response.status));
        }
    }
    expect_file(
        &fetch(&mut conn, "GET", "/files/small")?,
        &content(SMALL_LEN),
        false,
        "small after 404s",
    )
}

/// A file request between others in one write is answered in its place.
fn pipelined(addr: SocketAddr, _: &Path) -> Result<(), String> {
    let mut conn = Conn::connect(addr);
    let mut batch = request("GET", "/files/small");
    for (method, target) in [
        ("GET", "/"),
        ("HEAD", "/files/streamed"),
        ("GET", "/files/missing"),
    ] {
        batch.extend(request(method, target));
    }
    batch.extend(request("GET", "/files/streamed"));
    conn.send(&batch).map_err(|e| e.to_string())?;
    expect_file(
        &conn.response(false)?,
        &content(SMALL_LEN),
        false,
        "pipelined small",
    )?;
    let hello = conn.response(false)?;
    if hello.body.as_slice() != http_core::routes::HELLO {
        return Err(format!("pipelined GET /: {}", hello.status));
    }
    expect_file(
        &conn.response(true)?,
        &content(STREAMED_LEN),
        true,
        "pipelined HEAD",
    )?;
    let missing = conn.response(false)?.status;
    if missing != 404 {
        return Err(format!("pipelined missing: {missing}"));
    }
    expect_file(
        &conn.response(false)?,
        &content(STREAMED_LEN),
        false,
        "pipelined streamed",
    )
}

/// A file answer the client asked to be the last (`Connection: close`) is whole, then
/// the server closes.
fn asked_to_be_the_last(addr: SocketAddr, _: &Path) -> Result<(), String> {
    let mut conn = Conn::connect(addr);
    conn.send(b"GET /files/streamed HTTP/1.1\r\nHost: files\r\nConnection: close\r\n\r\n")
        .map_err(|e| e.to_string())?;
    expect_file(&conn.response(false)?, &content(STREAMED_LEN), false, "the last")?;
    conn.expect_close(Duration::from_secs(5))
}

fn method_not_allowed(addr: SocketAddr, _: &Path) -> Result<(), String> {
    let response = fetch(&mut Conn::connect(addr), "DELETE", "/files/small")?;
    match (response.status, response.header("allow")) {
        (405, Some(b"GET, HEAD")) => Ok(()),
        (status, allow) => Err(format!("DELETE: {status} allow {allow:?}")),
    }
}

/// How long a large file may take to arrive, or its connection to close.
const SLOW_LIMIT: Duration = Duration::from_secs(20);

/// Requests a large file, lets the server fill the socket buffers (the client reads
/// nothing yet), then calls `change` on the file.
fn change_while_sent(addr: SocketAddr, root: &Path, name: &str, change: fn(&Path)) -> Result<Conn, String> {
    let path = root.join(name);
    fs::write(&path, content(SLOW_LEN)).map_err(|e| e.to_string())?;
    let mut conn = Conn::connect(addr);
    conn.send(&request("GET", &format!("/files/{name}")))
        .map_err(|e| e.to_string())?;
    std::thread::sleep(Duration::from_millis(200));
    change(&path);
    Ok(conn)
}

/// A removed file stays readable through the open descriptor: the response completes.
fn removed_while_sent(addr: SocketAddr, root: &Path) -> Result<(), String> {
    let mut conn = change_while_sent(addr, root, "removed", |path| {
        fs::remove_file(path).expect("remove")
    })?;
    expect_file(
        &conn.response_within(SLOW_LIMIT)?,
        &content(SLOW_LEN),
        false,
        "removed mid-response",
    )
}

/// A truncated file cannot complete its Content-Length: the server closes the connection
/// (without hanging) and keeps serving others.
fn truncated_while_sent(addr: SocketAddr, root: &Path) -> Result<(), String> {
    let truncate = |path: &Path| {
        fs::OpenOptions::new()
            .write(true)
            .open(path)
            .and_then(|file| file.set_len(1024))
            .expect("truncate");
    };
    let received = change_while_sent(addr, root, "truncated", truncate)?
        .drain_for(SLOW_LIMIT)?
        .len();
    if received >= SLOW_LEN {
        return Err(format!("truncated mid-response: all {received} bytes arrived"));
    }
    crate::wire::probe(addr)
}

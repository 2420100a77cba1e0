//! Checks that need a conversation rather than one write: `100 Continue`, requests split
//! byte by byte, the two timeouts, graceful shutdown, flags and startup errors.

use std::net::{SocketAddr, TcpListener};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use http_core::limits::SHUTDOWN_GRACE;
use http_core::routes::upload_receipt;

use crate::endpoint::Endpoint;
use crate::stuck_reader::{released_within, stuck_reader};
use crate::wire::{Conn, probe};
use server_kit::ServerProcess;

/// The timeouts the suite's server runs with, short so the checks stay quick.
pub const REQUEST_TIMEOUT_SECS: u64 = 2;
pub const IDLE_TIMEOUT_SECS: u64 = 4;

pub fn expect_continue(to: &Endpoint) -> Result<(), String> {
    let mut conn = Conn::connect(to);
    let head = b"POST /payload HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n";
    conn.send(head).map_err(|e| e.to_string())?;
    let interim = conn.response(false)?;
    if interim.status != 100 {
        return Err(format!(
            "wanted 100 Continue before the body, got {}",
            interim.normalized()
        ));
    }
    conn.send(b"hello").map_err(|e| e.to_string())?;
    let done = conn.response(false)?;
    match (done.status, done.body.as_slice()) {
        (200, b"hello") => Ok(()),
        _ => Err(format!("after 100 Continue got {}", done.normalized())),
    }
}

pub fn byte_by_byte(to: &Endpoint) -> Result<(), String> {
    let mut conn = Conn::connect(to);
    for byte in b"POST /payload HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabc" {
        conn.send(&[*byte]).map_err(|e| e.to_string())?;
    }
    let response = conn.response(false)?;
    match (response.status, response.body.as_slice()) {
        (200, b"abc") => Ok(()),
        _ => Err(format!("split request got {}", response.normalized())),
    }
}

/// A partial head or body is closed after the request timeout, an idle connection only
/// after the idle timeout. The three run side by side.
pub fn timeouts(to: &Endpoint) -> Vec<String> {
    let request = Duration::from_secs(REQUEST_TIMEOUT_SECS);
    let idle = Duration::from_secs(IDLE_TIMEOUT_SECS);
    let checks: [(&str, &[u8], Duration); 3] = [
        ("partial head", b"GET / HTTP/1.1\r\nHo", request),
        (
            "partial body",
            b"POST /payload HTTP/1.1\r\nHost: t\r\nContent-Length: 9\r\n\r\nabc",
            request,
        ),
        ("idle keep-alive", b"GET / HTTP/1.1\r\nHost: t\r\n\r\n", idle),
    ];
    let handles: Vec<_> = checks
        .into_iter()
        .map(|(name, bytes, limit)| {
            let to = to.clone();
            std::thread::spawn(move || {
                closed_after(&to, bytes, limit).map_err(|e| format!("timeout, {name}: {e}"))
            })
        })
        .collect();
    handles
        .into_iter()
        .filter_map(|h| h.join().expect("timeout check panicked").err())
        .collect()
}

fn closed_after(to: &Endpoint, bytes: &[u8], limit: Duration) -> Result<(), String> {
    let mut conn = Conn::connect(to);
    conn.send(bytes).map_err(|e| e.to_string())?;
    let start = Instant::now();
    if bytes.ends_with(b"\r\n\r\n") {
        conn.response(false)?;
    }
    conn.expect_abandoned(limit + Duration::from_secs(3))?;
    let waited = start.elapsed();
    let early = limit.saturating_sub(Duration::from_millis(600));
    if waited >= early {
        Ok(())
    } else {
        Err(format!("closed after {waited:?}, before the {limit:?} timeout"))
    }
}

/// A client that pipelines until the answers back up, then stops reading and keeps its
/// socket open, loses its connection at the idle timeout at the latest (+2 s).
pub fn stuck_reader_released(addr: SocketAddr) -> Result<(), String> {
    let reader = stuck_reader(addr)?;
    let limit = Duration::from_secs(IDLE_TIMEOUT_SECS + 2);
    released_within(addr, &reader, limit).map_err(|e| format!("stuck reader: {e}"))?;
    probe(addr)
}

/// SIGTERM: idle connections close, a request in progress is finished (an upload half
/// read too, though the server holds none of it), a client that stopped reading is not
/// waited for, and the process exits 0 within the shutdown grace
/// (+1 s).
pub fn graceful_shutdown(server: &mut ServerProcess) -> Result<(), String> {
    let addr = server.addr();
    let stuck = stuck_reader(addr)?;
    let mut idle = Conn::connect(addr);
    idle.send(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        .map_err(|e| e.to_string())?;
    idle.response(false)?;
    let mut busy = Conn::connect(addr);
    busy.send(b"POST /payload HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\n\r\nab")
        .map_err(|e| e.to_string())?;
    let mut uploading = Conn::connect(addr);
    uploading
        .send(b"POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\n\r\nab")
        .map_err(|e| e.to_string())?;
    std::thread::sleep(Duration::from_millis(200));
    server.signal(libc::SIGTERM);
    std::thread::sleep(Duration::from_millis(300));
    busy.send(b"cd").map_err(|e| e.to_string())?;
    uploading.send(b"cd").map_err(|e| e.to_string())?;
    let finished = busy
        .response(false)
        .map_err(|e| format!("in-flight request not finished: {e}"))?;
    if finished.body != b"abcd" {
        return Err(format!("in-flight request got {}", finished.normalized()));
    }
    let uploaded = uploading
        .response(false)
        .map_err(|e| format!("in-flight upload not finished: {e}"))?;
    if uploaded.body != upload_receipt(4, crc32c::crc32c(b"abcd")) {
        return Err(format!("in-flight upload got {}", uploaded.normalized()));
    }
    idle.expect_close(Duration::from_secs(2))
        .map_err(|e| format!("idle connection: {e}"))?;
    let limit = SHUTDOWN_GRACE + Duration::from_secs(1);
    let exited = server.wait_exit(limit);
    drop(stuck);
    match exited {
        Some(status) if status.success() => Ok(()),
        Some(status) => Err(format!("exited with {status} after SIGTERM")),
        None => Err(format!(
            "still running {limit:?} after SIGTERM (a client that stopped reading was connected)"
        )),
    }
}

/// Limits given as flags take effect.
pub fn limit_flags(binary: &str, args: &[&str]) -> Vec<String> {
    let mut all_args = args.to_vec();
    all_args.extend([
        "--max-body-bytes",
        "16",
        "--max-headers",
        "4",
        "--max-head-bytes",
        "2048",
    ]);
    let server = ServerProcess::start(binary, &all_args);
    let checks: [(&str, String, u16); 4] = [
        ("body at the limit", post_of(16), 200),
        ("body over the limit", post_of(17), 413),
        (
            "headers over the count",
            format!("GET / HTTP/1.1\r\nHost: t\r\n{}\r\n", "X: y\r\n".repeat(4)),
            431,
        ),
        (
            "head over the size",
            format!("GET / HTTP/1.1\r\nHost: t\r\nX: {}\r\n\r\n", "a".repeat(3000)),
            431,
        ),
    ];
    checks
        .into_iter()
        .filter_map(|(name, request, want)| {
            let mut conn = Conn::connect(server.addr());
            let _ = conn.send(request.as_bytes());
            match conn.response(false) {
                Ok(r) if r.status == want => None,
                Ok(r) => Some(format!("flags, {name}: got {} want {want}", r.status)),
                Err(e) => Some(format!("flags, {name}: {e}")),
            }
        })
        .chain(probe(server.addr()).err())
        .collect()
}

fn post_of(len: usize) -> String {
    format!(
        "POST /payload HTTP/1.1\r\nHost: t\r\nContent-Length: {len}\r\n\r\n{}",
        "b".repeat(len)
    )
}

/// A port in use, a bad flag and a TLS certificate that cannot be read (or TLS where the
/// server has none) each give one line on stderr and exit status 2.
pub fn startup_errors(binary: &str, args: &[&str]) -> Vec<String> {
    let taken = TcpListener::bind("127.0.0.1:0").expect("bind a port to occupy");
    let port = taken.local_addr().expect("local addr").to_string();
    let no_identity = [
        "--tls-cert",
        "/nonexistent/cert.pem",
        "--tls-key",
        "/nonexistent/key.pem",
    ];
    let attempts: [(&str, Vec<&str>, &str); 3] = [
        ("port in use", vec!["--addr", &port], "in use"),
        ("bad flag", vec!["--threads", "zero"], "--threads"),
        (
            "TLS identity that cannot be read",
            no_identity.to_vec(),
            "--tls-cert",
        ),
    ];
    attempts
        .into_iter()
        .filter_map(|(name, extra, needle)| {
            let output = Command::new(binary)
                .args(args)
                .args(&extra)
                .stdin(Stdio::null())
                .output()
                .expect("run the server binary");
            let stderr = String::from_utf8_lossy(&output.stderr);
            let first = stderr.lines().next().unwrap_or_default();
            let ok =
                output.status.code() == Some(2) && first.contains(needle) && !stderr.contains("panicked");
            (!ok).then(|| {
                format!(
                    "startup, {name}: exit {:?}, stderr {stderr:?}",
                    output.status.code()
                )
            })
        })
        .collect()
}

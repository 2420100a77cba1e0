//! Requests that never stop arriving: a head, or a body, trickled a byte at a time, never
//! silent long enough for the request timeout. Every server must close them once they
//! fall behind their pace ([`http_core::pace`]: a grace from the first byte, then a
//! minimum byte rate), over plain TCP and TLS alike, and must still answer a slow but
//! honest request that keeps above the rate.
//!
//! The checks start their own server with a short grace ([`pace_args`]).

use std::io::{ErrorKind, Read, Write};
use std::time::{Duration, Instant};

use crate::behaviour::{IDLE_TIMEOUT_SECS, REQUEST_TIMEOUT_SECS};
use crate::endpoint::{Endpoint, Wire};
use crate::wire::Conn;

/// The grace the checked server is given, in seconds.
pub const GRACE_SECS: u64 = 2;

/// The rate floor the checked server is given, in bytes per second.
pub const MIN_RATE: u64 = 1000;

/// How often a trickler sends its next byte: well within the request timeout.
const EVERY: Duration = Duration::from_millis(500);

/// The latest a trickle may still be open: the grace, then the idle timeout (a watchdog
/// asleep until an idle connection's deadline sees the request's when it wakes), and a
/// margin.
const LATEST: Duration = Duration::from_secs(GRACE_SECS + IDLE_TIMEOUT_SECS + 3);

/// The pace and timeout flags the trickle checks start a server with.
pub fn pace_args() -> Vec<String> {
    [
        ("--request-grace-secs", GRACE_SECS),
        ("--min-request-rate", MIN_RATE),
        ("--request-timeout-secs", REQUEST_TIMEOUT_SECS),
        ("--idle-timeout-secs", IDLE_TIMEOUT_SECS),
    ]
    .iter()
    .flat_map(|(flag, value)| [flag.to_string(), value.to_string()])
    .collect()
}

/// A trickled head, a trickled body and a trickled large upload are closed by their pace,
/// and a slow honest body and a slow honest large upload are answered; all run side by
/// side. A large upload is one an engine may receive by a path of its own
/// (io_uring_server's `--bulk-recv`), so it is checked apart from a small body. One line
/// per failure.
pub fn trickles(to: &Endpoint) -> Vec<String> {
    let head = (
        to.clone(),
        b"GET / HTTP/1.1\r\nHost: t\r\nX-Slow: ".as_slice(),
        "head",
    );
    let body = (
        to.clone(),
        b"POST /payload HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\n".as_slice(),
        "body",
    );
    let upload = (
        to.clone(),
        b"POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 1048576\r\n\r\n".as_slice(),
        "large upload",
    );
    let trickled = [head, body, upload].map(|(to, start, what)| {
        std::thread::spawn(move || {
            closed_while_trickling(&to, start).map_err(|e| format!("trickled {what}: {e}"))
        })
    });
    let honest = [slow_honest_body, slow_honest_upload].map(|check| {
        let to = to.clone();
        std::thread::spawn(move || check(&to))
    });
    trickled
        .into_iter()
        .map(|thread| thread.join().expect("trickle check panicked").map(|_| ()))
        .chain(honest.map(|thread| thread.join().expect("slow body check panicked")))
        .filter_map(Result::err)
        .collect()
}

/// Sends `start`, then a byte every [`EVERY`] (each in its own TLS record over TLS), until
/// the server closes: not before the grace, nor after [`LATEST`].
fn closed_while_trickling(to: &Endpoint, start: &[u8]) -> Result<Duration, String> {
    let mut wire = to.try_connect()?;
    let begun = Instant::now();
    wire.write_all(start)
        .and_then(|()| wire.flush())
        .map_err(|e| e.to_string())?;
    let closed = loop {
        if begun.elapsed() > LATEST {
            return Err(format!("still open after {LATEST:?}, the client still sending"));
        }
        if wire.write_all(b"a").and_then(|()| wire.flush()).is_err() || closed_within(&mut wire, EVERY)? {
            break begun.elapsed();
        }
    };
    let grace = Duration::from_secs(GRACE_SECS);
    match closed + Duration::from_millis(600) < grace {
        true => Err(format!("closed after {closed:?}, within its {grace:?} grace")),
        false => Ok(closed),
    }
}

/// Reads (an answer such as a 408 is allowed) until the server closes or `wait` passes;
/// whether it closed.
fn closed_within(wire: &mut Wire, wait: Duration) -> Result<bool, String> {
    let until = Instant::now() + wait;
    let mut sink = [0u8; 4096];
    loop {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(false);
        }
        wire.tcp()
            .set_read_timeout(Some(left))
            .map_err(|e| e.to_string())?;
        match wire.read(&mut sink) {
            Ok(0) => return Ok(true),
            Ok(_) => {}
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => return Ok(false),
            Err(_) => return Ok(true),
        }
    }
}

/// A 6 KiB body sent in 1 KiB slices every [`EVERY`] (2 KiB/s, twice the floor), taking
/// past the grace: it is answered in full.
fn slow_honest_body(to: &Endpoint) -> Result<(), String> {
    const SLICE: usize = 1024;
    const SLICES: usize = 6;
    let mut conn = Conn::connect(to);
    let head = format!(
        "POST /payload HTTP/1.1\r\nHost: t\r\nContent-Length: {}\r\n\r\n",
        SLICE * SLICES
    );
    conn.send(head.as_bytes()).map_err(|e| e.to_string())?;
    for _ in 0..SLICES {
        std::thread::sleep(EVERY);
        conn.send(&[b'b'; SLICE])
            .map_err(|e| format!("slow honest body cut off: {e}"))?;
    }
    let response = conn
        .response(false)
        .map_err(|e| format!("slow honest body: {e}"))?;
    match (response.status, response.body.len()) {
        (200, n) if n == SLICE * SLICES => Ok(()),
        (status, n) => Err(format!("slow honest body: answered {status} with {n} bytes")),
    }
}

/// A 72 KiB upload by `Content-Length` (a large one: 64 KiB or more) sent in 8 KiB slices
/// every [`EVERY`] (16 KiB/s, far above the floor), taking past the grace: its receipt
/// comes back whole.
fn slow_honest_upload(to: &Endpoint) -> Result<(), String> {
    const SLICE: usize = 8 << 10;
    const SLICES: usize = 9;
    let body = crate::uploads::patterned(SLICE * SLICES);
    let mut conn = Conn::connect(to);
    conn.send(&crate::uploads::length_head(body.len(), ""))
        .map_err(|e| e.to_string())?;
    for slice in body.chunks(SLICE) {
        std::thread::sleep(EVERY);
        conn.send(slice)
            .map_err(|e| format!("slow honest upload cut off: {e}"))?;
    }
    crate::uploads::expect_receipt(&mut conn, &body).map_err(|e| format!("slow honest upload: {e}"))
}

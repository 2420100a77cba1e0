//! Hostile TLS clients that hold a connection open at little cost to themselves: a crowd
//! that pipelines large responses and never reads them (the server must hold back, not
//! buffer what it cannot send: its memory per connection is measured), and clients that
//! dribble their ClientHello a byte a second, never stopping, which the request timeout
//! must end all the same. [`crate::tls_hostile`] runs them.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use server_kit::ServerProcess;

use crate::behaviour::REQUEST_TIMEOUT_SECS;
use crate::endpoint::{ANSWER_TIMEOUT, Endpoint};
use crate::stress::rss_kib;

/// How many clients never read.
const STALLED: u64 = 64;

/// What each of them sends: three requests for the largest `/bytes` body.
const LARGE_GETS: &[u8] = b"GET /bytes/1048576 HTTP/1.1\r\nHost: t\r\n\r\n\
    GET /bytes/1048576 HTTP/1.1\r\nHost: t\r\n\r\n\
    GET /bytes/1048576 HTTP/1.1\r\nHost: t\r\n\r\n";

/// How long the server's memory is watched once they have all sent their requests.
const STALLED_WATCH: Duration = Duration::from_millis(2000);

/// How much the server's resident memory may grow per connection that never reads (a
/// server that holds back: 5 to 90 KiB; one that seals all it cannot send yet: 450 to
/// 650).
const STALLED_RSS_LIMIT_KIB: u64 = 256;

/// How many clients dribble a ClientHello at once.
pub const DRIBBLERS: usize = 4;

/// How long after the request timeout, counted from connect, a dribbler may still be
/// open.
const DRIBBLE_MARGIN: Duration = Duration::from_secs(3);

/// [`STALLED`] TLS connections, each pipelining [`LARGE_GETS`] and then reading nothing,
/// all held open for [`STALLED_WATCH`] after the last: the server's resident memory may
/// grow by [`STALLED_RSS_LIMIT_KIB`] per connection at its peak (sampled after each
/// connection and every 100 ms after: a server may free what it held once it gives up on
/// a client). Returns that growth per connection, in KiB.
pub fn stalled_readers(server: &ServerProcess, to: &Endpoint) -> Result<u64, String> {
    let before = rss_kib(server.pid())?;
    let growth = || rss_kib(server.pid()).map(|rss| rss.saturating_sub(before));
    let (mut held, mut peak) = (Vec::new(), 0);
    for i in 0..STALLED {
        let mut wire = to.try_connect().map_err(|e| format!("connection {i}: {e}"))?;
        wire.write_all(LARGE_GETS)
            .and_then(|()| wire.flush())
            .map_err(|e| format!("connection {i}: send: {e}"))?;
        held.push(wire);
        peak = peak.max(growth()?);
    }
    let watched = Instant::now();
    while watched.elapsed() < STALLED_WATCH {
        std::thread::sleep(Duration::from_millis(100));
        peak = peak.max(growth()?);
    }
    drop(held);
    let per_connection = peak / STALLED;
    match per_connection <= STALLED_RSS_LIMIT_KIB {
        true => Ok(per_connection),
        false => Err(format!(
            "the server's RSS grew {peak} KiB over {STALLED} connections: {per_connection} KiB \
             per connection (limit {STALLED_RSS_LIMIT_KIB})"
        )),
    }
}

/// A ClientHello written a byte a second from connect on: the server must close the
/// connection at its request timeout (a scheduling margin before it at the earliest,
/// [`DRIBBLE_MARGIN`] after it at the latest), although the client never stops
/// sending. Returns when it closed, counted from connect.
pub fn dribbled_hello(to: &Endpoint) -> Result<Duration, String> {
    let hello = to.client_hello();
    let timeout = Duration::from_secs(REQUEST_TIMEOUT_SECS);
    let give_up = timeout + DRIBBLE_MARGIN + Duration::from_secs(2);
    let tcp = TcpStream::connect_timeout(&to.addr, ANSWER_TIMEOUT).map_err(|e| format!("connect: {e}"))?;
    let start = Instant::now();
    tcp.set_nodelay(true).map_err(|e| e.to_string())?;
    let mut closed = None;
    for (second, byte) in (1..).zip(&hello) {
        if start.elapsed() >= give_up {
            break;
        }
        if (&tcp).write_all(&[*byte]).is_err() {
            closed = Some(start.elapsed());
            break;
        }
        closed = closed_before(&tcp, start + Duration::from_secs(second))?.map(|at| at - start);
        if closed.is_some() {
            break;
        }
    }
    match closed {
        None => Err(format!("still open after {give_up:?}, the client still sending")),
        Some(at) if at + Duration::from_millis(600) < timeout => Err(format!(
            "closed after {at:?}, before the {timeout:?} request timeout"
        )),
        Some(at) if at > timeout + DRIBBLE_MARGIN => Err(format!(
            "closed only after {at:?} (request timeout {timeout:?}, margin {DRIBBLE_MARGIN:?})"
        )),
        Some(at) => Ok(at),
    }
}

/// Reads (and drops: an alert) until the server closes (EOF or a reset) or `until`;
/// when it closed, if it did.
fn closed_before(mut tcp: &TcpStream, until: Instant) -> Result<Option<Instant>, String> {
    let mut chunk = [0u8; 1024];
    loop {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(None);
        }
        tcp.set_read_timeout(Some(left)).map_err(|e| e.to_string())?;
        match tcp.read(&mut chunk) {
            Ok(0) => return Ok(Some(Instant::now())),
            Ok(_) => continue,
            Err(e) if e.kind() == ErrorKind::ConnectionReset => return Ok(Some(Instant::now())),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => return Ok(None),
            Err(e) => return Err(format!("read failed: {e}")),
        }
    }
}

//! Bad input to an HTTPS server: plain HTTP sent to the TLS port, a ClientHello cut off
//! midway (FIN), a client that stops mid-handshake (closed by the request timeout, not
//! before), and a garbage record after the handshake. Each must get a close, the server
//! must go on serving everyone else, and after a crowd of each, its descriptors, held
//! connections and memory must come back to where they were.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::{Duration, Instant};

use server_kit::ServerProcess;

use crate::behaviour::REQUEST_TIMEOUT_SECS;
use crate::endpoint::Endpoint;
use crate::stress::{expect_released, held_resources, rss_kib};
use crate::wire::{Conn, probe};

/// How many of each bad client the leak check sends.
const CROWD: usize = 25;

/// How much the server's resident memory may grow over the whole crowd.
const RSS_LIMIT_KIB: u64 = 8 * 1024;

/// The header of an application-data record (TLS 1.3's outer type) of 32 bytes, which
/// [`garbage_record`] fills with bytes no key encrypted.
const GARBAGE_HEADER: [u8; 5] = [0x17, 0x03, 0x03, 0x00, 0x20];

/// Every bad client [`CROWD`] times (those that stall, at once), each followed by a
/// probe; then the leak check. One line per failure.
pub fn bad_tls_input(server: &ServerProcess, to: &Endpoint) -> Vec<String> {
    let (held_before, rss_before) = match (held_resources(server), rss_kib(server.pid())) {
        (Ok(held), Ok(rss)) => (held, rss),
        (Err(e), _) | (_, Err(e)) => return vec![format!("bad TLS input: {e}")],
    };
    let mut failures = Vec::new();
    let stalled: Vec<_> = (0..CROWD)
        .map(|_| {
            let to = to.clone();
            std::thread::spawn(move || stalled_handshake(&to))
        })
        .collect();
    for _ in 0..CROWD {
        for (name, check) in [
            (
                "plain HTTP to the TLS port",
                plain_http as fn(&Endpoint) -> Result<(), String>,
            ),
            ("a ClientHello cut off midway", cut_off_handshake),
            ("a garbage record after the handshake", garbage_record),
        ] {
            failures.extend(check(to).err().map(|e| format!("{name}: {e}")));
            failures.extend(probe(to).err().map(|e| format!("{name}: then {e}")));
        }
        failures.dedup();
    }
    for handle in stalled {
        let result = handle.join().expect("the stalled client's thread");
        failures.extend(
            result
                .err()
                .map(|e| format!("a client that stops mid-handshake: {e}")),
        );
    }
    failures.dedup();
    failures.extend(expect_released(server, held_before, "bad TLS input").err());
    match rss_kib(server.pid()) {
        Ok(rss) if rss.saturating_sub(rss_before) > RSS_LIMIT_KIB => failures.push(format!(
            "RSS grew {} KiB (limit {RSS_LIMIT_KIB}) after bad TLS input",
            rss - rss_before
        )),
        Ok(_) => {}
        Err(e) => failures.push(e),
    }
    failures
}

/// `GET /` in plain text, where the server expects a ClientHello.
fn plain_http(to: &Endpoint) -> Result<(), String> {
    let mut tcp = raw(to)?;
    tcp.write_all(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        .map_err(|e| e.to_string())?;
    closes_within(&tcp, Duration::from_secs(3)).map(drop)
}

/// Half a ClientHello, then FIN.
fn cut_off_handshake(to: &Endpoint) -> Result<(), String> {
    let hello = to.client_hello();
    let mut tcp = raw(to)?;
    tcp.write_all(&hello[..hello.len() / 2])
        .map_err(|e| e.to_string())?;
    tcp.shutdown(Shutdown::Write).map_err(|e| e.to_string())?;
    closes_within(&tcp, Duration::from_secs(3)).map(drop)
}

/// Half a ClientHello, then silence with the connection open: closed at the request
/// timeout (less a scheduling margin), not before, and not long after.
fn stalled_handshake(to: &Endpoint) -> Result<(), String> {
    let hello = to.client_hello();
    let mut tcp = raw(to)?;
    tcp.write_all(&hello[..hello.len() / 2])
        .map_err(|e| e.to_string())?;
    let timeout = Duration::from_secs(REQUEST_TIMEOUT_SECS);
    let waited = closes_within(&tcp, timeout + Duration::from_secs(3))?;
    match waited >= timeout.saturating_sub(Duration::from_millis(600)) {
        true => Ok(()),
        false => Err(format!(
            "closed after {waited:?}, before the {timeout:?} request timeout"
        )),
    }
}

/// A full handshake, then a record no key encrypted, straight onto the socket.
fn garbage_record(to: &Endpoint) -> Result<(), String> {
    let conn = Conn::connect(to);
    let mut tcp = conn.stream();
    let mut record = GARBAGE_HEADER.to_vec();
    record.resize(GARBAGE_HEADER.len() + 32, 0xAB);
    tcp.write_all(&record).map_err(|e| e.to_string())?;
    closes_within(tcp, Duration::from_secs(3)).map(drop)
}

/// A plain TCP connection to the endpoint's address, whatever it speaks.
fn raw(to: &Endpoint) -> Result<TcpStream, String> {
    let tcp = TcpStream::connect(to.addr).map_err(|e| format!("connect: {e}"))?;
    tcp.set_nodelay(true).map_err(|e| e.to_string())?;
    Ok(tcp)
}

/// Reads (and drops: an alert, a ticket) until the server closes (EOF or a reset),
/// within `limit`; how long that took.
fn closes_within(mut tcp: &TcpStream, limit: Duration) -> Result<Duration, String> {
    let start = Instant::now();
    let mut chunk = [0u8; 4096];
    loop {
        let left = limit.saturating_sub(start.elapsed());
        if left.is_zero() {
            return Err(format!("still open after {limit:?}"));
        }
        tcp.set_read_timeout(Some(left)).map_err(|e| e.to_string())?;
        match tcp.read(&mut chunk) {
            Ok(0) => return Ok(start.elapsed()),
            Ok(_) => continue,
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return Ok(start.elapsed()),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return Err(format!("still open after {limit:?}"));
            }
            Err(e) => return Err(format!("read failed: {e}")),
        }
    }
}

//! A client that pipelines requests until the answers fill every buffer between it and
//! the server, then never reads again but keeps its socket open. The server must let go
//! of that connection at its request or idle timeout (never wait on the peer), and a
//! shutdown must not wait for it either.

use std::io::{ErrorKind, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use crate::tcp_table::server_side;

const GET: &[u8] = b"GET / HTTP/1.1\r\nHost: stuck\r\n\r\n";

/// Most bytes the client pipelines before it counts as stuck anyway.
const MAX_WRITTEN: usize = 64 << 20;

/// A connected client whose writes no longer go through: the server has stopped reading
/// because its answers cannot be sent.
pub struct StuckReader {
    pub stream: TcpStream,
    /// The client's end, to find the server's side in the kernel's TCP table.
    pub local: SocketAddr,
    /// Request bytes written before the writes stalled.
    pub written: usize,
}

/// Connects and pipelines GETs until a write stalls for a second (or 64 MiB are out). A
/// server may also refuse such a flood outright (a reset): the checks that follow then
/// find its side already released.
pub fn stuck_reader(addr: SocketAddr) -> Result<StuckReader, String> {
    let mut stream = TcpStream::connect(addr).map_err(|e| format!("connect: {e}"))?;
    let local = stream.local_addr().map_err(|e| e.to_string())?;
    stream
        .set_write_timeout(Some(Duration::from_secs(1)))
        .map_err(|e| e.to_string())?;
    let batch = GET.repeat(4096);
    let mut written = 0;
    while written < MAX_WRITTEN {
        match stream.write(&batch) {
            Ok(n) => written += n,
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => break,
            Err(e) if matches!(e.kind(), ErrorKind::ConnectionReset | ErrorKind::BrokenPipe) => break,
            Err(e) => return Err(format!("writing to the server after {written} bytes: {e}")),
        }
    }
    Ok(StuckReader {
        stream,
        local,
        written,
    })
}

/// The server's side of a stuck reader's connection is released within `limit`: gone
/// from the kernel's TCP table, or left to the kernel (no process holds it any more).
pub fn released_within(server: SocketAddr, reader: &StuckReader, limit: Duration) -> Result<(), String> {
    let start = Instant::now();
    loop {
        let side = server_side(server, reader.local)?;
        if side.is_none_or(|socket| !socket.held()) {
            return Ok(());
        }
        if start.elapsed() > limit {
            let state = side.map_or(0, |socket| socket.state);
            return Err(format!(
                "a client that stopped reading (after {} request bytes) is still held by the server {limit:?} later (TCP state {state:02X})",
                reader.written
            ));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

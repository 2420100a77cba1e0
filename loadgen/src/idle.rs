//! Holds many idle keep-alive connections: each connects, makes one request, checks its
//! answer, then stays open, silent, until the holder is dropped. This is what a server
//! with thousands of mostly idle clients (chat, push, long polling) sees, and what its
//! memory per connection is measured on while an ordinary load runs beside it.
//!
//! Against 127.0.0.1 the connections come from 127.0.0.2 to 127.0.0.9 in turn (bound
//! before connecting), so no single source address runs short of ports. The process's
//! descriptor soft limit is raised to its hard limit first, and a count that still does
//! not fit is refused up front. Every connect and read is bounded by [`TIMEOUT`].
//!
//! Dropped, the connections close by a reset (`SO_LINGER` 0), not a FIN: how they end is
//! not what is measured, and a client that closes first keeps each port in TIME_WAIT for
//! a minute. A study holding 10k at a time for every server piles up over 100k of them;
//! binding a port then takes seconds to tens of seconds per 10k once a source address's
//! half of the port range is spent.

use std::io::{ErrorKind, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream};
use std::time::Duration;

use socket2::{Domain, Protocol, SockAddr, Socket, Type};

use crate::churn::source_addrs;
use crate::response::{Expect, Frame, frame};

/// Longest wait for one connect or one read. Default is 5 seconds.
pub const TIMEOUT: Duration = Duration::from_secs(5);

/// Connections opened, then asked, then read, at a time: few enough for any listen
/// backlog, many enough that round trips overlap.
const BATCH: usize = 128;

/// Descriptors left for everything else in this process (active connections, files).
const SPARE_DESCRIPTORS: u64 = 256;

/// Open, answered, idle connections; dropping this resets them.
#[derive(Debug)]
pub struct IdleConnections {
    streams: Vec<TcpStream>,
}

impl IdleConnections {
    /// Opens `count` connections to `addr`, sends `request` on each and checks its one
    /// answer against `expect`. Fails, naming the connection, if any connect, send or
    /// answer fails or takes longer than [`TIMEOUT`], or if `count` descriptors do not
    /// fit under this process's limit.
    pub fn open(
        addr: SocketAddr,
        count: usize,
        request: &[u8],
        expect: Expect,
    ) -> Result<IdleConnections, String> {
        let limit = server_kit::fd_limit::raise_to_hard_limit().unwrap_or(u64::MAX);
        if count as u64 + SPARE_DESCRIPTORS > limit {
            return Err(format!(
                "{count} idle connections do not fit: this process may open {limit} descriptors \
                 (RLIMIT_NOFILE, raised to its hard limit) and keeps {SPARE_DESCRIPTORS} spare; \
                 hold fewer, or split them over several processes"
            ));
        }
        let sources = source_addrs(addr, true);
        let mut streams = Vec::with_capacity(count);
        while streams.len() < count {
            let first = streams.len();
            let batch = (first..count.min(first + BATCH))
                .map(|i| connect(addr, sources.get(i % sources.len().max(1)).copied()))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| format!("idle connection {first}+ of {count}: connect: {e}"))?;
            for (i, mut stream) in batch.iter().enumerate() {
                stream
                    .write_all(request)
                    .map_err(|e| format!("idle connection {} of {count}: send: {e}", first + i))?;
            }
            for (i, stream) in batch.iter().enumerate() {
                read_answer(stream, expect)
                    .map_err(|e| format!("idle connection {} of {count}: {e}", first + i))?;
            }
            streams.extend(batch);
        }
        Ok(IdleConnections { streams })
    }

    pub fn len(&self) -> usize {
        self.streams.len()
    }

    pub fn is_empty(&self) -> bool {
        self.streams.is_empty()
    }

    /// How many of the connections the server has closed or reset so far (or sent
    /// something unasked on); checked without waiting.
    pub fn closed(&self) -> usize {
        self.streams.iter().filter(|stream| !is_open(stream)).count()
    }
}

/// Connects to `addr`, from `source` (any port) if given, within [`TIMEOUT`]; closed by a
/// reset when dropped.
fn connect(addr: SocketAddr, source: Option<IpAddr>) -> std::io::Result<TcpStream> {
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
    if let Some(ip) = source {
        socket.bind(&SockAddr::from(SocketAddr::new(ip, 0)))?;
    }
    socket.connect_timeout(&SockAddr::from(addr), TIMEOUT)?;
    socket.set_tcp_nodelay(true)?;
    socket.set_linger(Some(Duration::ZERO))?;
    Ok(socket.into())
}

/// Reads exactly one response, which must match `expect` and be all there is.
fn read_answer(mut stream: &TcpStream, expect: Expect) -> Result<(), String> {
    stream
        .set_read_timeout(Some(TIMEOUT))
        .map_err(|e| e.to_string())?;
    let mut received = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        if let Frame::Complete {
            status,
            len,
            body_len,
            ..
        } = frame(&received)?
        {
            expect.check(status, body_len).map_err(|f| f.message)?;
            if len != received.len() {
                return Err(format!("{} bytes after the answer", received.len() - len));
            }
            return Ok(());
        }
        match stream.read(&mut chunk) {
            Ok(0) => return Err("the server closed the connection before answering".into()),
            Ok(n) => received.extend_from_slice(&chunk[..n]),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return Err(format!("no answer within {TIMEOUT:?}"));
            }
            Err(e) => return Err(format!("read: {e}")),
        }
    }
}

/// Nothing has arrived and the connection is neither closed nor reset.
fn is_open(stream: &TcpStream) -> bool {
    let mut byte = [0u8; 1];
    let _ = stream.set_nonblocking(true);
    let peeked = stream.peek(&mut byte);
    let _ = stream.set_nonblocking(false);
    matches!(peeked, Err(e) if e.kind() == ErrorKind::WouldBlock)
}

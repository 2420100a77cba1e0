//! Churn: a new connection per request (or per few, where the client closes). Each client
//! connects (bound to the next source address when they are spread), sends one request,
//! reads and validates the answer, and closes (or sends the next of its
//! `requests_per_connection` first), then starts over (the loop is in `client.rs`); a
//! connection's first latency runs from the connect (or its intended time in the open
//! loop, whose schedule starts at the run's start: the connect is what is measured) to
//! the answer's last byte. Two patterns, by who closes:
//! - [`Churn::ServerCloses`]: the request carries `Connection: close` ([`closing`]); the
//!   client reads to the end of the stream (the server's FIN) and then closes. Bytes after
//!   the answer, or a reset, fail the connection.
//! - [`Churn::ClientCloses`]: plain keep-alive requests; the client closes as soon as it
//!   has read the whole answer to the connection's last.
//!
//! Here: who closes, the source addresses ([`source_addrs`]) and making a connection
//! ([`connect`]), which the keep-alive clients use too. A failed connection is counted by
//! kind and the client goes on with the next one; any failure fails the run.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::os::fd::AsRawFd;

use serde::{Deserialize, Serialize};
use tokio::net::{TcpSocket, TcpStream};
use tokio::time::Instant;

use crate::errors::{ErrorKind, Failure};

/// Who closes each connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Churn {
    /// The request says `Connection: close`; the client reads to EOF, then closes.
    ServerCloses,
    /// Keep-alive requests; the client closes once it has the whole answer to the
    /// connection's last (`--requests-per-connection`, default 1).
    ClientCloses,
}

/// The source addresses connections to `target` are bound to, in turn:
/// 127.0.0.2..=127.0.0.9 when `spread` and the target is 127.0.0.1 (each address has its
/// own ephemeral ports, so eight times as many connections fit in TIME_WAIT); otherwise
/// none, and the kernel chooses.
pub fn source_addrs(target: SocketAddr, spread: bool) -> Vec<IpAddr> {
    if spread && target.ip() == IpAddr::V4(Ipv4Addr::LOCALHOST) {
        (2..=9)
            .map(|last| IpAddr::V4(Ipv4Addr::new(127, 0, 0, last)))
            .collect()
    } else {
        Vec::new()
    }
}

/// `request` with a `Connection: close` header after its request line.
pub fn closing(request: &[u8]) -> Vec<u8> {
    let line_end = request
        .windows(2)
        .position(|w| w == b"\r\n")
        .map_or(request.len(), |i| i + 2);
    let mut closing = request[..line_end].to_vec();
    closing.extend_from_slice(b"Connection: close\r\n");
    closing.extend_from_slice(&request[line_end..]);
    closing
}

/// [`connect`], given up at `patience` (the run's end plus its grace).
pub(crate) async fn connect_by(
    addr: SocketAddr,
    source: Option<IpAddr>,
    patience: Instant,
) -> Result<TcpStream, Failure> {
    tokio::time::timeout_at(patience, connect(addr, source))
        .await
        .map_err(|_| {
            Failure::new(
                ErrorKind::Timeout,
                "connect: no connection within 5 s after the run's end",
            )
        })?
}

/// A connection to `addr` with TCP_NODELAY, from `source` (any port) if given.
pub async fn connect(addr: SocketAddr, source: Option<IpAddr>) -> Result<TcpStream, Failure> {
    let fail = |e: std::io::Error| Failure::new(ErrorKind::Connect, format!("connect: {e}"));
    let socket = if addr.is_ipv4() {
        TcpSocket::new_v4()
    } else {
        TcpSocket::new_v6()
    }
    .map_err(fail)?;
    if let Some(ip) = source {
        bind_address_only(&socket).map_err(fail)?;
        socket.bind(SocketAddr::new(ip, 0)).map_err(fail)?;
    }
    socket.set_nodelay(true).map_err(fail)?;
    socket.connect(addr).await.map_err(fail)
}

/// Makes a later `bind` to port 0 take only the address (IP_BIND_ADDRESS_NO_PORT): the
/// port is then chosen at connect, where a port in use towards another address and port,
/// or whose earlier connection to the same one has waited in TIME_WAIT for a second
/// (`net.ipv4.tcp_tw_reuse` on loopback), serves again. A port chosen by `bind` must be
/// free of every connection from that address, TIME_WAIT included: once tens of
/// thousands wait there, the kernel's search for one slows connects to a few hundred a
/// second.
fn bind_address_only(socket: &TcpSocket) -> std::io::Result<()> {
    let on: libc::c_int = 1;
    // SAFETY: the descriptor is the socket's own and open; the option value is a c_int
    // that lives across the call, its size passed beside it.
    let result = unsafe {
        libc::setsockopt(
            socket.as_raw_fd(),
            libc::IPPROTO_IP,
            libc::IP_BIND_ADDRESS_NO_PORT,
            (&raw const on).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    match result {
        0 => Ok(()),
        _ => Err(std::io::Error::last_os_error()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closing_request_says_so_after_its_request_line() {
        assert_eq!(
            closing(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n"),
            b"GET / HTTP/1.1\r\nConnection: close\r\nHost: t\r\n\r\n"
        );
        let post = b"POST /payload HTTP/1.1\r\nContent-Length: 2\r\n\r\nab";
        assert!(closing(post).ends_with(b"Connection: close\r\nContent-Length: 2\r\n\r\nab"));
    }

    #[test]
    fn sources_are_spread_only_from_127_0_0_1() {
        let local: SocketAddr = "127.0.0.1:80".parse().unwrap();
        let spread = source_addrs(local, true);
        assert_eq!(spread.len(), 8);
        assert_eq!(spread[0], IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2)));
        assert_eq!(spread[7], IpAddr::V4(Ipv4Addr::new(127, 0, 0, 9)));
        assert!(source_addrs(local, false).is_empty());
        assert!(source_addrs("127.0.0.5:80".parse().unwrap(), true).is_empty());
    }

    #[tokio::test]
    async fn a_spread_connection_binds_its_address_and_leaves_the_port_to_connect() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let source = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));
        let stream = connect(listener.local_addr().unwrap(), Some(source))
            .await
            .unwrap();
        assert_eq!(stream.local_addr().unwrap().ip(), source);
        let mut value: libc::c_int = 0;
        let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
        // SAFETY: the descriptor is the stream's own and open; value and len outlive the
        // call and len holds value's size.
        let result = unsafe {
            libc::getsockopt(
                stream.as_raw_fd(),
                libc::IPPROTO_IP,
                libc::IP_BIND_ADDRESS_NO_PORT,
                (&raw mut value).cast(),
                &raw mut len,
            )
        };
        assert_eq!((result, value), (0, 1));
    }
}

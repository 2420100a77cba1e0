//! The kernel's table of TCP sockets (`/proc/net/tcp`), to see a server's side of a
//! connection from outside: whether the server still holds it, whatever kind of
//! descriptor it uses (io_uring's direct descriptors do not show in `/proc/PID/fd`, but
//! their sockets show here like any other).

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};

/// One row: a socket's two ends, its TCP state and its inode. The inode is 0 once no
/// process holds the socket (closed, lingering in FIN_WAIT or TIME_WAIT on its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TcpSocket {
    pub local: SocketAddrV4,
    pub remote: SocketAddrV4,
    pub state: u8,
    pub inode: u64,
}

/// `st` of a listening socket.
const LISTEN: u8 = 0x0A;

impl TcpSocket {
    /// A process still holds this socket.
    pub fn held(&self) -> bool {
        self.inode != 0
    }
}

/// Every IPv4 TCP socket on this machine. Fails loudly if the table cannot be read, so a
/// check built on it cannot pass by reading nothing.
pub fn sockets() -> Result<Vec<TcpSocket>, String> {
    let table =
        std::fs::read_to_string("/proc/net/tcp").map_err(|e| format!("cannot read /proc/net/tcp: {e}"))?;
    table.lines().skip(1).map(parse_row).collect()
}

/// The server's side of the connection from `client` to `server`, if the kernel still
/// has it.
pub fn server_side(server: SocketAddr, client: SocketAddr) -> Result<Option<TcpSocket>, String> {
    let (server, client) = (v4(server)?, v4(client)?);
    Ok(sockets()?
        .into_iter()
        .find(|s| s.local == server && s.remote == client))
}

/// Connections to `server` that a process (the server) still holds.
pub fn held_connections(server: SocketAddr) -> Result<usize, String> {
    let server = v4(server)?;
    Ok(sockets()?
        .iter()
        .filter(|s| s.local == server && s.state != LISTEN && s.held())
        .count())
}

fn v4(addr: SocketAddr) -> Result<SocketAddrV4, String> {
    match addr {
        SocketAddr::V4(addr) => Ok(addr),
        SocketAddr::V6(addr) => Err(format!("{addr}: only IPv4 servers are checked here")),
    }
}

/// `"  0: 0100007F:1F90 0100007F:D3A2 01 00000000:00000000 00:00000000 00000000  1000 0 12345 ..."`
fn parse_row(row: &str) -> Result<TcpSocket, String> {
    let bad = || format!("unexpected /proc/net/tcp row: {row}");
    let fields: Vec<&str> = row.split_whitespace().collect();
    if fields.len() < 10 {
        return Err(bad());
    }
    Ok(TcpSocket {
        local: parse_addr(fields[1]).ok_or_else(bad)?,
        remote: parse_addr(fields[2]).ok_or_else(bad)?,
        state: u8::from_str_radix(fields[3], 16).map_err(|_| bad())?,
        inode: fields[9].parse().map_err(|_| bad())?,
    })
}

/// `0100007F:1F90`: the address as the kernel's 32-bit value in host (little-endian)
/// order, then the port.
fn parse_addr(text: &str) -> Option<SocketAddrV4> {
    let (ip, port) = text.split_once(':')?;
    let ip = u32::from_str_radix(ip, 16).ok()?;
    let port = u16::from_str_radix(port, 16).ok()?;
    Some(SocketAddrV4::new(Ipv4Addr::from(ip.to_le_bytes()), port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_parse_into_ends_state_and_inode() {
        let row = "   3: 0100007F:1F90 0200007F:D3A2 08 00000000:00000000 00:00000000 00000000  1000        0 54321 1 0000000000000000 20 4 0 10 -1";
        let socket = parse_row(row).unwrap();
        assert_eq!(socket.local, "127.0.0.1:8080".parse().unwrap());
        assert_eq!(socket.remote, "127.0.0.2:54178".parse().unwrap());
        assert_eq!((socket.state, socket.inode, socket.held()), (0x08, 54321, true));
        assert!(parse_row("   3: garbage").is_err());
    }

    #[test]
    fn this_machine_lists_a_listener_it_opened() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = v4(listener.local_addr().unwrap()).unwrap();
        let found = sockets().unwrap().into_iter().find(|s| s.local == addr).unwrap();
        assert_eq!((found.state, found.held()), (LISTEN, true));
    }
}

//! The listening sockets: one per worker thread, all bound to the same address with
//! SO_REUSEPORT, for the thread-per-core servers (io_uring_server, tokio_uring_server);
//! a single exclusive one for tokio_server.
//!
//! Why not one shared listener with a multishot accept in every ring? With SO_REUSEPORT
//! the kernel spreads new connections over the threads by hash, each ring accepts only
//! from its own queue, and no two rings are woken for the same connection. The cost: a
//! second process of the same user could join the group on that port; the bind of the
//! first socket still fails with "address in use" if anything else holds the port.
//!
//! Every listener has TCP_NODELAY set, and Linux copies it to each socket accepted from
//! it (by accept(2) and by io_uring's accept alike), so no server sets it per connection;
//! a test below holds the kernel to that.

use std::io;
use std::net::{SocketAddr, TcpListener};

use socket2::{Domain, Socket, Type};

use crate::StartupError;

/// Pending connections the kernel may queue per listener (capped by
/// `net.core.somaxconn`). Default is 4096.
pub const LISTEN_BACKLOG: u32 = 4096;

/// Binds one listener to `addr`, without SO_REUSEPORT: nothing else can join its port.
pub fn bind(addr: SocketAddr) -> io::Result<TcpListener> {
    bind_one(addr, false)
}

/// Binds `count` listeners to `addr`. With port 0 the first picks a free port and the
/// others join it.
pub fn bind_group(addr: SocketAddr, count: usize) -> io::Result<Vec<TcpListener>> {
    let first = bind_one(addr, true)?;
    let actual = first.local_addr()?;
    let mut listeners = vec![first];
    for _ in 1..count {
        listeners.push(bind_one(actual, true)?);
    }
    Ok(listeners)
}

/// [`bind_group`] for a server that cannot start without it: the listeners and the
/// address they share, or why not.
pub fn listen_group(addr: SocketAddr, count: usize) -> Result<(Vec<TcpListener>, SocketAddr), StartupError> {
    let listeners = bind_group(addr, count).map_err(|error| StartupError::Bind { addr, error })?;
    let local = listeners[0].local_addr().map_err(|e| e.to_string())?;
    Ok((listeners, local))
}

fn bind_one(addr: SocketAddr, reuse_port: bool) -> io::Result<TcpListener> {
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, None)?;
    socket.set_reuse_address(true)?;
    if reuse_port {
        socket.set_reuse_port(true)?;
    }
    socket.set_tcp_nodelay(true)?;
    socket.bind(&addr.into())?;
    let backlog = i32::try_from(LISTEN_BACKLOG).unwrap_or(i32::MAX);
    socket.listen(backlog)?;
    Ok(socket.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_listeners_share_the_port_picked_for_port_zero() {
        let group = bind_group("127.0.0.1:0".parse().unwrap(), 3).unwrap();
        let port = group[0].local_addr().unwrap().port();
        assert_ne!(port, 0);
        assert!(group.iter().all(|l| l.local_addr().unwrap().port() == port));
    }

    #[test]
    fn a_port_held_without_reuseport_is_in_use() {
        let holder = TcpListener::bind("127.0.0.1:0").unwrap();
        let error = bind_group(holder.local_addr().unwrap(), 1).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::AddrInUse);
        let exclusive = bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let error = bind_group(exclusive.local_addr().unwrap(), 1).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::AddrInUse);
    }

    #[test]
    fn accepted_sockets_inherit_tcp_nodelay() {
        for listener in [bind("127.0.0.1:0".parse().unwrap()).unwrap()]
            .into_iter()
            .chain(bind_group("127.0.0.1:0".parse().unwrap(), 1).unwrap())
        {
            let client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
            let (accepted, _) = listener.accept().unwrap();
            assert!(accepted.nodelay().unwrap(), "TCP_NODELAY was not inherited");
            assert!(!client.nodelay().unwrap());
        }
    }
}

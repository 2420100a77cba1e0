//! One listening socket per worker thread, all bound to the same address with
//! SO_REUSEPORT, for the thread-per-core servers (io_uring_server, tokio_uring_server).
//!
//! Why not one shared listener with a multishot accept in every ring? With SO_REUSEPORT
//! the kernel spreads new connections over the threads by hash, each ring accepts only
//! from its own queue, and no two rings are woken for the same connection. The cost: a
//! second process of the same user could join the group on that port; the bind of the
//! first socket still fails with "address in use" if anything else holds the port.

use std::io;
use std::net::{SocketAddr, TcpListener};

use socket2::{Domain, Socket, Type};

/// Pending connections the kernel may queue per listener (capped by
/// `net.core.somaxconn`). Default is 4096.
pub const LISTEN_BACKLOG: i32 = 4096;

/// Binds `count` listeners to `addr`. With port 0 the first picks a free port and the
/// others join it. TCP_NODELAY is set on the listeners; Linux copies it to every
/// accepted socket, which saves a setsockopt per connection.
pub fn bind_group(addr: SocketAddr, count: usize) -> io::Result<Vec<TcpListener>> {
    let first = bind_one(addr)?;
    let actual = first.local_addr()?;
    let mut listeners = vec![first];
    for _ in 1..count {
        listeners.push(bind_one(actual)?);
    }
    Ok(listeners)
}

/// [`bind_group`] for a server that cannot start without it: returns the listeners and
/// the address they share, or prints one line naming the cause and exits with status 2.
pub fn bind_group_or_exit(program: &str, addr: SocketAddr, count: usize) -> (Vec<TcpListener>, SocketAddr) {
    use crate::args::{exit_startup_error, explain_bind_error};
    let listeners =
        bind_group(addr, count).unwrap_or_else(|e| exit_startup_error(program, explain_bind_error(addr, &e)));
    let local = listeners[0]
        .local_addr()
        .unwrap_or_else(|e| exit_startup_error(program, e));
    (listeners, local)
}

fn bind_one(addr: SocketAddr) -> io::Result<TcpListener> {
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, None)?;
    socket.set_reuse_address(true)?;
    socket.set_reuse_port(true)?;
    socket.set_tcp_nodelay(true)?;
    socket.bind(&addr.into())?;
    socket.listen(LISTEN_BACKLOG)?;
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
    }
}

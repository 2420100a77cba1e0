//! One thread: a compio runtime accepting from its own listener until shutdown, then
//! letting its connections finish for at most the shutdown grace. The ready message is
//! the driver the runtime runs on; anything but io_uring is refused, and so is a kernel
//! whose ring lacks an operation this server submits.

use std::net::TcpListener;

use compio::driver::op::OpCodeFlag;
use compio::driver::{DriverType, ProactorBuilder};
use server_kit::workers::Ready;
use server_kit::{AcceptBackoff, Settings, StartupError};
use tokio_util::task::TaskTracker;

use crate::connection;

/// The operations this server submits: compio runs any the kernel lacks on a thread pool
/// instead, so each must be on the ring or the server refuses to start. Files
/// (`/files/{name}`) add OpenAt, Read and Statx; compio's flags cannot name Statx, so it
/// is probed apart ([`statx_on_the_ring`]).
fn needed() -> OpCodeFlag {
    OpCodeFlag::Accept
        | OpCodeFlag::Recv
        | OpCodeFlag::Send
        | OpCodeFlag::Shutdown
        | OpCodeFlag::Close
        | OpCodeFlag::AsyncCancel
        | OpCodeFlag::PollAdd
        | OpCodeFlag::OpenAt
        | OpCodeFlag::Read
}

/// Whether this kernel's io_uring runs Statx (compio's `File::metadata`), asked as compio
/// asks for the others: a probe on a small ring.
fn statx_on_the_ring() -> std::io::Result<bool> {
    let mut probe = io_uring::Probe::new();
    io_uring::IoUring::new(2)?
        .submitter()
        .register_probe(&mut probe)?;
    Ok(probe.is_supported(io_uring::opcode::Statx::CODE))
}

/// Runs the thread's runtime; connections speak TLS where `tls` is given.
pub fn run(
    listener: TcpListener,
    settings: Settings,
    tls: Option<compio::tls::TlsAcceptor>,
    ready: Ready<String, StartupError>,
) {
    let mut proactor = ProactorBuilder::new();
    proactor.detect_opcode_support(needed());
    let built = compio::runtime::RuntimeBuilder::new()
        .with_proactor(proactor)
        .build();
    let built = built.and_then(|runtime| match statx_on_the_ring()? {
        true => Ok(runtime),
        false => Err(std::io::Error::other("io_uring here lacks Statx")),
    });
    let runtime = match built {
        Ok(runtime) => runtime,
        Err(error) => {
            let _ = ready.send(Err(StartupError::IoUring(error)));
            return;
        }
    };
    if runtime.driver_type() != DriverType::IoUring {
        let refused = std::io::Error::other(format!(
            "compio runs on its {:?} driver here, not io_uring",
            runtime.driver_type()
        ));
        let _ = ready.send(Err(StartupError::IoUring(refused)));
        return;
    }
    // The accept loop as a task, woken only when it can progress: `block_on` polls its
    // own future on every turn of the event loop, which would take the shutdown token's
    // lock (shared by every thread) each time.
    let accepting = runtime.spawn(async move {
        let listener = match compio::net::TcpListener::from_std(listener) {
            Ok(listener) => listener,
            Err(error) => {
                let _ = ready.send(Err(StartupError::IoUring(error)));
                return;
            }
        };
        let _ = ready.send(Ok("io_uring".to_string()));
        let connections = TaskTracker::new();
        let mut backoff = AcceptBackoff::default();
        loop {
            tokio::select! {
                _ = settings.shutdown.cancelled() => break,
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => {
                        backoff.succeeded();
                        let task = connection::serve(stream, settings.clone(), tls.clone());
                        compio::runtime::spawn(connections.track_future(task)).detach();
                    }
                    Err(e) => backoff.failed_on(e, compio::time::sleep).await,
                },
            }
        }
        drop(listener);
        connections.close();
        let grace = http_core::limits::SHUTDOWN_GRACE;
        tokio::select! {
            _ = connections.wait() => {}
            _ = compio::time::sleep(grace) => {}
        }
    });
    let _ = runtime.block_on(accepting);
}

#[cfg(test)]
mod tests {

    /// No setsockopt per connection: sockets compio accepts (io_uring's accept) inherit
    /// TCP_NODELAY from the listener group, as `server_kit::listener` says.
    #[test]
    fn accepted_connections_have_tcp_nodelay() {
        let mut group = server_kit::listener::bind_group("127.0.0.1:0".parse().unwrap(), 1).unwrap();
        let listener = group.remove(0);
        let addr = listener.local_addr().unwrap();
        let runtime = compio::runtime::RuntimeBuilder::new().build().unwrap();
        runtime.block_on(async move {
            let listener = compio::net::TcpListener::from_std(listener).unwrap();
            let _client = std::net::TcpStream::connect(addr).unwrap();
            let (stream, _) = listener.accept().await.unwrap();
            assert!(stream.nodelay().unwrap(), "TCP_NODELAY was not inherited");
        });
    }
}

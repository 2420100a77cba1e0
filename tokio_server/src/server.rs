//! Listening, accepting and graceful shutdown, shared by both engines.
//!
//! On SIGINT or SIGTERM the server stops accepting, lets each connection finish the
//! request it is in (idle connections close at once), waits at most
//! [`http_core::limits::SHUTDOWN_GRACE`], and returns so the process exits 0.

use std::future::Future;
use std::net::SocketAddr;

use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::signal::unix::{SignalKind, signal};
use tokio_server::accept::AcceptBackoff;
use tokio_util::task::TaskTracker;

pub use tokio_server::settings::Settings;

/// Pending connections the kernel may queue before accept; the kernel caps it at
/// `net.core.somaxconn`. Default is 4096.
pub const LISTEN_BACKLOG: u32 = 4096;

pub fn bind(addr: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = if addr.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(LISTEN_BACKLOG)
}

/// Accepts until SIGINT/SIGTERM, running `serve` for each connection on its own task.
pub async fn run<F, Fut>(listener: TcpListener, settings: Settings, serve: F)
where
    F: Fn(TcpStream, Settings) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let tasks = TaskTracker::new();
    let mut backoff = AcceptBackoff::new("tokio_server");
    let stop = shutdown_signal();
    tokio::pin!(stop);
    loop {
        tokio::select! {
            _ = &mut stop => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    backoff.succeeded();
                    if let Err(e) = stream.set_nodelay(true) {
                        eprintln!("tokio_server: TCP_NODELAY failed: {e}");
                    }
                    tasks.spawn(serve(stream, settings.clone()));
                }
                Err(e) => backoff.failed(e).await,
            },
        }
    }
    drop(listener);
    settings.shutdown.cancel();
    tasks.close();
    let grace = http_core::limits::SHUTDOWN_GRACE;
    if tokio::time::timeout(grace, tasks.wait()).await.is_err() {
        eprintln!(
            "tokio_server: {} connections still busy after {grace:?}; closing them",
            tasks.len()
        );
    }
}

async fn shutdown_signal() {
    let mut interrupt = signal(SignalKind::interrupt()).expect("installing a SIGINT handler");
    let mut terminate = signal(SignalKind::terminate()).expect("installing a SIGTERM handler");
    tokio::select! {
        _ = interrupt.recv() => {}
        _ = terminate.recv() => {}
    }
}

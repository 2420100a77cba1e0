//! One thread: a monoio runtime on its io_uring driver accepting from its own listener
//! until shutdown, then letting its connections finish for at most the shutdown grace.

use std::net::TcpListener;

use monoio::IoUringDriver;
use monoio::time::TimeDriver;
use monoio_rustls::TlsAcceptor;
use server_kit::workers::Ready;
use server_kit::{AcceptBackoff, Settings, StartupError};
use tokio_util::task::TaskTracker;

use crate::connection;

/// Submission queue entries per ring.
const RING_ENTRIES: u32 = 1024;

/// Runs the thread's runtime; connections speak TLS where `tls` is given.
pub fn run(
    listener: TcpListener,
    settings: Settings,
    tls: Option<TlsAcceptor>,
    ready: Ready<(), StartupError>,
) {
    let built = monoio::RuntimeBuilder::<IoUringDriver>::new()
        .with_entries(RING_ENTRIES)
        .enable_timer()
        .build();
    let mut runtime: monoio::Runtime<TimeDriver<IoUringDriver>> = match built {
        Ok(runtime) => runtime,
        Err(error) => {
            let _ = ready.send(Err(StartupError::IoUring(error)));
            return;
        }
    };
    runtime.block_on(async move {
        let listener = match monoio::net::TcpListener::from_std(listener) {
            Ok(listener) => listener,
            Err(error) => {
                let _ = ready.send(Err(StartupError::IoUring(error)));
                return;
            }
        };
        let _ = ready.send(Ok(()));
        let connections = TaskTracker::new();
        let mut backoff = AcceptBackoff::default();
        loop {
            tokio::select! {
                _ = settings.shutdown.cancelled() => break,
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => {
                        backoff.succeeded();
                        let task = connection::serve(stream, settings.clone(), tls.clone());
                        drop(monoio::spawn(connections.track_future(task)));
                    }
                    Err(e) => backoff.failed_on(e, monoio::time::sleep).await,
                },
            }
        }
        drop(listener);
        connections.close();
        let grace = http_core::limits::SHUTDOWN_GRACE;
        tokio::select! {
            _ = connections.wait() => {}
            _ = monoio::time::sleep(grace) => {}
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No setsockopt per connection: sockets monoio accepts (io_uring's accept) inherit
    /// TCP_NODELAY from the listener group, as `server_kit::listener` says.
    #[test]
    fn accepted_connections_have_tcp_nodelay() {
        let mut group = server_kit::listener::bind_group("127.0.0.1:0".parse().unwrap(), 1).unwrap();
        let listener = group.remove(0);
        let addr = listener.local_addr().unwrap();
        let mut runtime = monoio::RuntimeBuilder::<IoUringDriver>::new().build().unwrap();
        runtime.block_on(async move {
            let listener = monoio::net::TcpListener::from_std(listener).unwrap();
            let _client = std::net::TcpStream::connect(addr).unwrap();
            let (stream, _) = listener.accept().await.unwrap();
            assert!(stream.nodelay().unwrap(), "TCP_NODELAY was not inherited");
        });
    }
}

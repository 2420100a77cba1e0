//! Listening, accepting and graceful shutdown, shared by both engines, and HTTPS's
//! handshake before an engine serves the connection ([`after_handshake`]).
//!
//! On SIGINT or SIGTERM the server stops accepting, lets each connection finish the
//! request it is in (idle connections close at once), waits at most
//! [`http_core::limits::SHUTDOWN_GRACE`], and returns so the process exits 0.

use std::future::Future;
use std::net::SocketAddr;

use server_kit::{AcceptBackoff, Settings, StartupError, log};
use tokio::net::{TcpListener, TcpStream};
use tokio::signal::unix::{SignalKind, signal};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;
use tokio_util::task::TaskTracker;

/// The listener (one, whatever the thread count: tokio's runtime spreads the accepted
/// connections) and its actual address. Accepted sockets inherit its TCP_NODELAY.
pub fn listen(addr: SocketAddr) -> Result<(TcpListener, SocketAddr), StartupError> {
    let listener = server_kit::listener::bind(addr).map_err(|error| StartupError::Bind { addr, error })?;
    let local = listener.local_addr().map_err(|e| e.to_string())?;
    listener.set_nonblocking(true).map_err(|e| e.to_string())?;
    let listener = TcpListener::from_std(listener).map_err(|e| e.to_string())?;
    Ok((listener, local))
}

/// Accepts until SIGINT/SIGTERM, running `serve` for each connection on its own task.
pub async fn run<F, Fut>(listener: TcpListener, settings: Settings, serve: F)
where
    F: Fn(TcpStream, Settings) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let tasks = TaskTracker::new();
    let mut backoff = AcceptBackoff::default();
    let stop = shutdown_signal();
    tokio::pin!(stop);
    loop {
        tokio::select! {
            _ = &mut stop => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    backoff.succeeded();
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
        log!(
            "{} connections still busy after {grace:?}; closing them",
            tasks.len()
        );
    }
}

/// `serve` over TLS once the handshake is done: a client that has not finished it
/// within the request timeout, or by the time the server shuts down, is closed (as a
/// request silent that long is), and a failed one is closed after rustls's alert.
pub async fn after_handshake<F, Fut>(acceptor: TlsAcceptor, stream: TcpStream, settings: Settings, serve: F)
where
    F: FnOnce(TlsStream<TcpStream>, Settings) -> Fut,
    Fut: Future<Output = ()>,
{
    let handshake = tokio::time::timeout(settings.request_timeout, acceptor.accept(stream));
    let stream = tokio::select! {
        done = handshake => match done {
            Ok(Ok(stream)) => stream,
            Ok(Err(_)) | Err(_) => return,
        },
        _ = settings.shutdown.cancelled() => return,
    };
    serve(stream, settings).await
}

async fn shutdown_signal() {
    let mut interrupt = signal(SignalKind::interrupt()).expect("installing a SIGINT handler");
    let mut terminate = signal(SignalKind::terminate()).expect("installing a SIGTERM handler");
    tokio::select! {
        _ = interrupt.recv() => {}
        _ = terminate.recv() => {}
    }
}

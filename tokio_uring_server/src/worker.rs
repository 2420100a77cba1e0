//! One thread: a tokio-uring runtime accepting from its own listener until shutdown, then
//! letting its connections finish for at most the shutdown grace.

use std::net::TcpListener;

use server_kit::workers::Ready;
use server_kit::{AcceptBackoff, Settings, StartupError};
use tokio_util::task::TaskTracker;

use crate::connection;

pub fn run(listener: TcpListener, settings: Settings, ready: Ready<(), StartupError>) {
    let runtime = match tokio_uring::Runtime::new(&tokio_uring::builder()) {
        Ok(runtime) => runtime,
        Err(error) => {
            let _ = ready.send(Err(StartupError::IoUring(error)));
            return;
        }
    };
    runtime.block_on(async move {
        let listener = tokio_uring::net::TcpListener::from_std(listener);
        let _ = ready.send(Ok(()));
        let connections = TaskTracker::new();
        let mut backoff = AcceptBackoff::default();
        loop {
            tokio::select! {
                _ = settings.shutdown.cancelled() => break,
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => {
                        backoff.succeeded();
                        let task = connection::serve(stream, settings.clone());
                        tokio_uring::spawn(connections.track_future(task));
                    }
                    Err(e) => backoff.failed(e).await,
                },
            }
        }
        drop(listener);
        connections.close();
        let grace = http_core::limits::SHUTDOWN_GRACE;
        let _ = tokio::time::timeout(grace, connections.wait()).await;
    });
}

//! One thread: a tokio-uring runtime accepting from its own listener until shutdown, then
//! letting its connections finish for at most the shutdown grace.

use std::io;
use std::net::TcpListener;
use std::sync::mpsc::Sender;

use tokio_server::accept::AcceptBackoff;
use tokio_server::settings::Settings;
use tokio_util::task::TaskTracker;

use crate::connection;

pub fn run(listener: TcpListener, settings: Settings, ready: Sender<io::Result<()>>) {
    let runtime = match tokio_uring::Runtime::new(&tokio_uring::builder()) {
        Ok(runtime) => runtime,
        Err(error) => {
            let _ = ready.send(Err(error));
            return;
        }
    };
    runtime.block_on(async move {
        let listener = tokio_uring::net::TcpListener::from_std(listener);
        let _ = ready.send(Ok(()));
        let connections = TaskTracker::new();
        let mut backoff = AcceptBackoff::new("tokio_uring_server");
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

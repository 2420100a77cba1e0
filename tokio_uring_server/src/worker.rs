//! One thread: a tokio-uring runtime accepting from its own listener until shutdown, then
//! letting its connections finish for at most the shutdown grace.

use std::io;
use std::net::TcpListener;
use std::sync::mpsc::Sender;
use std::time::Duration;

use tokio_server::settings::Settings;
use tokio_util::task::TaskTracker;

use crate::connection;

/// After accept fails (e.g. EMFILE), wait this long before trying again. Default is 50 ms.
const ACCEPT_RETRY: Duration = Duration::from_millis(50);

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
        loop {
            tokio::select! {
                _ = settings.shutdown.cancelled() => break,
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => {
                        let task = connection::serve(stream, settings.clone());
                        tokio_uring::spawn(connections.track_future(task));
                    }
                    Err(e) => {
                        eprintln!("tokio_uring_server: accept failed: {e}; retrying");
                        tokio::time::sleep(ACCEPT_RETRY).await;
                    }
                },
            }
        }
        drop(listener);
        connections.close();
        let grace = http_core::limits::SHUTDOWN_GRACE;
        let _ = tokio::time::timeout(grace, connections.wait()).await;
    });
}

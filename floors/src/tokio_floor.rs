//! What the two tokio floors share: one thread per listener of server_kit's SO_REUSEPORT
//! group, each running a current-thread tokio runtime that accepts and spawns a task per
//! connection, the ready line once every thread is up, and an immediate exit on SIGINT or
//! SIGTERM.

use std::future::Future;

use server_kit::{StartupError, Workers};
use tokio::net::TcpStream;

use crate::Cli;

/// Serves `serve(stream)` for every connection, on `--threads` threads, until a signal.
/// `details` goes into the ready line after the thread count.
pub fn run<F, Fut>(cli: &Cli, details: &str, serve: F)
where
    F: Fn(TcpStream) -> Fut + Clone + Send + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    let threads = cli.common.threads();
    let (listeners, local) =
        server_kit::listener::listen_group(cli.addr, threads).unwrap_or_else(|e| e.exit());
    let (workers, _) = Workers::start("floor", listeners, |listener, ready| {
        let serve = serve.clone();
        move || {
            let started = tokio::runtime::Builder::new_current_thread()
                .enable_io()
                .build()
                .map_err(|e| format!("cannot start the tokio runtime: {e}"))
                .and_then(|runtime| {
                    listener.set_nonblocking(true).map_err(|e| e.to_string())?;
                    let _entered = runtime.enter();
                    let listener = tokio::net::TcpListener::from_std(listener).map_err(|e| e.to_string())?;
                    Ok((runtime, listener))
                });
            let (runtime, listener) = match started {
                Ok(started) => started,
                Err(message) => {
                    let _ = ready.send(Err(StartupError::from(message)));
                    return;
                }
            };
            let _ = ready.send(Ok(()));
            runtime.block_on(async move {
                loop {
                    // A failed accept (e.g. out of descriptors) is retried: a floor keeps
                    // no backoff.
                    if let Ok((stream, _)) = listener.accept().await {
                        tokio::spawn(serve(stream));
                    }
                }
            });
        }
    })
    .unwrap_or_else(|e| e.exit());
    server_kit::ready::announce(local, &format!("threads={threads}, {details}"));
    workers.serve_until_signal(|| std::process::exit(0));
}

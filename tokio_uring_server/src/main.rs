//! `tokio_uring_server`: the http_core contract through http_core's codec on tokio-uring,
//! i.e. io_uring through an async runtime, as many users try it first. One single-threaded
//! tokio-uring runtime per thread, each with its own SO_REUSEPORT listener. tokio-uring
//! offers no multishot operations or provided-buffer rings: each read and write is one
//! submission, with a buffer owned by the operation until it completes.

mod connection;
mod worker;

use std::net::SocketAddr;
use std::sync::mpsc;

use clap::Parser;
use http_core::args::{CommonArgs, exit_startup_error, explain_io_uring_error, ready_line};
use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::iterator::Signals;
use tokio_server::settings::Settings;

const PROGRAM: &str = "tokio_uring_server";

/// Serve the uring-vs-tokio HTTP contract on tokio-uring.
#[derive(Parser, Debug)]
#[command(version)]
struct Cli {
    /// Address to listen on; loopback by default, `0.0.0.0:8082` exposes it.
    #[arg(long, default_value = "127.0.0.1:8082")]
    addr: SocketAddr,

    #[command(flatten)]
    common: CommonArgs,
}

fn main() {
    let cli = Cli::parse();
    if let Err(message) = cli.common.validate() {
        exit_startup_error(PROGRAM, message);
    }
    let threads = cli.common.threads();
    let (listeners, local) = http_core::listener::bind_group_or_exit(PROGRAM, cli.addr, threads);
    let mut signals = Signals::new([SIGINT, SIGTERM])
        .unwrap_or_else(|e| exit_startup_error(PROGRAM, format!("cannot handle signals: {e}")));
    let settings = Settings::from(&cli.common);

    let (ready_sender, ready) = mpsc::channel();
    let workers: Vec<_> = listeners
        .into_iter()
        .enumerate()
        .map(|(index, listener)| {
            let (settings, ready_sender) = (settings.clone(), ready_sender.clone());
            std::thread::Builder::new()
                .name(format!("tokio-uring-{index}"))
                .spawn(move || worker::run(listener, settings, ready_sender))
                .unwrap_or_else(|e| exit_startup_error(PROGRAM, format!("cannot start a worker thread: {e}")))
        })
        .collect();
    drop(ready_sender);
    for _ in 0..threads {
        match ready.recv() {
            Ok(Ok(())) => {}
            Ok(Err(error)) => exit_startup_error(PROGRAM, explain_io_uring_error(&error)),
            Err(_) => exit_startup_error(PROGRAM, "a worker thread stopped during startup"),
        }
    }
    println!(
        "{}",
        ready_line(local, &format!("engine=tokio-uring, threads={threads}"))
    );

    signals.forever().next();
    settings.shutdown.cancel();
    for worker in workers {
        let _ = worker.join();
    }
}

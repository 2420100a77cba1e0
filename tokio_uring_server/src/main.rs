//! `tokio_uring_server`: the http_core contract through http_core's codec on tokio-uring,
//! i.e. io_uring through an async runtime, as many users try it first. One single-threaded
//! tokio-uring runtime per thread, each with its own SO_REUSEPORT listener. tokio-uring
//! offers no multishot operations or provided-buffer rings: each read and write is one
//! submission, with a buffer owned by the operation until it completes.

mod connection;
mod files;
mod worker;

use std::net::SocketAddr;

use clap::Parser;
use server_kit::{CommonArgs, Settings, Workers};

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
    let cli: Cli = server_kit::args::parse(PROGRAM, |cli: &Cli| {
        cli.common.validate()?;
        cli.common.refuse_tls(
            "tokio-uring has no rustls adapter (none is published), so tokio_uring_server has no TLS",
        )
    });
    let threads = cli.common.threads();
    let (listeners, local) =
        server_kit::listener::listen_group(cli.addr, threads).unwrap_or_else(|e| e.exit());
    let settings = Settings::from(&cli.common);
    let (workers, _) = Workers::start("tokio-uring", listeners, |listener, ready| {
        let settings = settings.clone();
        move || worker::run(listener, settings, ready)
    })
    .unwrap_or_else(|e| e.exit());
    server_kit::ready::announce(local, &format!("engine=tokio-uring, threads={threads}"));
    workers.serve_until_signal(|| settings.shutdown.cancel());
}

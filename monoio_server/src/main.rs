//! `monoio_server`: the http_core contract through http_core's codec on monoio (ByteDance's
//! thread-per-core runtime), as a user who picks a ready io_uring runtime would write it.
//! One monoio runtime per thread on its io_uring driver, each with its own SO_REUSEPORT
//! listener. monoio can fall back to epoll (its "legacy" driver); this server asks for
//! io_uring only and exits with one line where it is unavailable, so what is measured as
//! io_uring is io_uring. HTTPS with `--tls-cert` and `--tls-key` through monoio-rustls,
//! monoio's rustls adapter.

mod connection;
mod files;
mod worker;

use std::net::SocketAddr;

use clap::Parser;
use server_kit::{CommonArgs, Settings, StartupError, Workers};

const PROGRAM: &str = "monoio_server";

/// Serve the uring-vs-tokio HTTP contract on monoio.
#[derive(Parser, Debug)]
#[command(version)]
struct Cli {
    /// Address to listen on; loopback by default, `0.0.0.0:8083` exposes it.
    #[arg(long, default_value = "127.0.0.1:8083")]
    addr: SocketAddr,

    #[command(flatten)]
    common: CommonArgs,
}

fn main() {
    let cli: Cli = server_kit::args::parse(PROGRAM, |cli: &Cli| cli.common.validate());
    let tls = cli
        .common
        .tls()
        .unwrap_or_else(|e| StartupError::from(e).exit())
        .map(monoio_rustls::TlsAcceptor::from);
    let threads = cli.common.threads();
    let (listeners, local) =
        server_kit::listener::listen_group(cli.addr, threads).unwrap_or_else(|e| e.exit());
    let settings = Settings::from(&cli.common);
    let (workers, _) = Workers::start("monoio", listeners, |listener, ready| {
        let (settings, tls) = (settings.clone(), tls.clone());
        move || worker::run(listener, settings, tls, ready)
    })
    .unwrap_or_else(|e| e.exit());
    let details = format!("engine=monoio (io_uring driver), threads={threads}");
    match tls {
        Some(_) => server_kit::ready::announce_https(local, &format!("{details}, tls adapter=monoio-rustls")),
        None => server_kit::ready::announce(local, &details),
    }
    workers.serve_until_signal(|| settings.shutdown.cancel());
}

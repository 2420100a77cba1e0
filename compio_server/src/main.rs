//! `compio_server`: the http_core contract through http_core's codec on compio (a
//! completion-based runtime: io_uring on Linux), as a user who picks a ready io_uring
//! runtime would write it. One compio runtime per thread, each with its own SO_REUSEPORT
//! listener. Built with compio's io_uring driver only (no `polling` fallback): where
//! io_uring is unavailable it exits with one line, and the ready line names the driver
//! the runtime reports, so what is measured as io_uring is io_uring.

mod connection;
mod files;
mod worker;

use std::net::SocketAddr;

use clap::Parser;
use server_kit::{CommonArgs, Settings, StartupError, Workers};

const PROGRAM: &str = "compio_server";

/// Serve the uring-vs-tokio HTTP contract on compio.
#[derive(Parser, Debug)]
#[command(version)]
struct Cli {
    /// Address to listen on; loopback by default, `0.0.0.0:8084` exposes it.
    #[arg(long, default_value = "127.0.0.1:8084")]
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
        .map(compio::tls::TlsAcceptor::from);
    let threads = cli.common.threads();
    let (listeners, local) =
        server_kit::listener::listen_group(cli.addr, threads).unwrap_or_else(|e| e.exit());
    let settings = Settings::from(&cli.common);
    let (workers, drivers) = Workers::start("compio", listeners, |listener, ready| {
        let (settings, tls) = (settings.clone(), tls.clone());
        move || worker::run(listener, settings, tls, ready)
    })
    .unwrap_or_else(|e| e.exit());
    let driver = drivers.first().map_or("none".to_string(), |d| d.clone());
    let details = format!("engine=compio ({driver} driver), threads={threads}");
    match tls {
        Some(_) => server_kit::ready::announce_https(local, &format!("{details}, tls adapter=compio-tls")),
        None => server_kit::ready::announce(local, &details),
    }
    workers.serve_until_signal(|| settings.shutdown.cancel());
}

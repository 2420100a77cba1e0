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
use server_kit::{CommonArgs, Settings, Workers};

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
    let cli: Cli = server_kit::args::parse(PROGRAM, |cli: &Cli| {
        cli.common.validate()?;
        cli.common
            .refuse_tls("compio_server has no TLS yet (compio's tls is to come)")
    });
    let threads = cli.common.threads();
    let (listeners, local) =
        server_kit::listener::listen_group(cli.addr, threads).unwrap_or_else(|e| e.exit());
    let settings = Settings::from(&cli.common);
    let (workers, drivers) = Workers::start("compio", listeners, |listener, ready| {
        let settings = settings.clone();
        move || worker::run(listener, settings, ready)
    })
    .unwrap_or_else(|e| e.exit());
    let driver = drivers.first().map_or("none".to_string(), |d| d.clone());
    server_kit::ready::announce(
        local,
        &format!("engine=compio ({driver} driver), threads={threads}"),
    );
    workers.serve_until_signal(|| settings.shutdown.cancel());
}

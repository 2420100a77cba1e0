//! `tokio_server`: the http_core contract on tokio (epoll), served either by hyper (what
//! users run in production) or by http_core's codec (the same HTTP work the io_uring
//! server does, for an apples-to-apples comparison of the I/O layers).

mod cli;
mod codec_engine;
mod hyper_engine;
mod server;

use clap::Parser;
use http_core::args::{exit_startup_error, explain_bind_error, ready_line};

use crate::cli::{Cli, Engine};

const PROGRAM: &str = "tokio_server";

fn main() {
    let cli = Cli::parse();
    if let Err(message) = cli.common.validate() {
        exit_startup_error(PROGRAM, message);
    }
    let threads = cli.common.threads();
    // One thread: tokio's current-thread scheduler, which skips the multi-thread one's
    // work-stealing queues and cross-thread wake-ups (the io_uring servers are thread per
    // core too). More threads: the work-stealing runtime, as hyper users run it.
    let mut builder = match threads {
        1 => tokio::runtime::Builder::new_current_thread(),
        _ => tokio::runtime::Builder::new_multi_thread(),
    };
    if threads > 1 {
        builder.worker_threads(threads);
    }
    let runtime = builder
        .enable_all()
        .build()
        .unwrap_or_else(|e| exit_startup_error(PROGRAM, format!("cannot start the tokio runtime: {e}")));
    runtime.block_on(async {
        let listener = server::bind(cli.addr)
            .unwrap_or_else(|e| exit_startup_error(PROGRAM, explain_bind_error(cli.addr, &e)));
        let local = listener
            .local_addr()
            .unwrap_or_else(|e| exit_startup_error(PROGRAM, e));
        let engine = cli.engine;
        println!(
            "{}",
            ready_line(local, &format!("engine={engine}, threads={threads}"))
        );
        let settings = server::Settings::from(&cli.common);
        match engine {
            Engine::Hyper => server::run(listener, settings, hyper_engine::serve).await,
            Engine::Codec => server::run(listener, settings, codec_engine::serve).await,
        }
    });
}

//! `tokio_server`: the http_core contract on tokio (epoll), served either by hyper (what
//! users run in production) or by http_core's codec (the same HTTP work the io_uring
//! server does, for an apples-to-apples comparison of the I/O layers), reading into a
//! buffer per connection (`codec`) or one per thread (`codec-shared`); over HTTPS with
//! `--tls-cert` and `--tls-key` (tokio-rustls around the accepted stream, as hyper's
//! users add it; `server_kit::tls` says how TLS is configured).

mod cli;
mod codec_engine;
mod hyper_engine;
mod hyper_files;
mod hyper_reply;
mod hyper_upload;
mod server;

use server_kit::{Settings, StartupError};
use tokio_rustls::TlsAcceptor;

use crate::cli::{Cli, Engine};

const PROGRAM: &str = "tokio_server";

fn main() {
    let cli: Cli = server_kit::args::parse(PROGRAM, Cli::validate);
    let threads = cli.common.threads();
    // One thread: tokio's current-thread scheduler, which skips the multi-thread one's
    // work-stealing queues and cross-thread wake-ups (the io_uring servers are thread per
    // core too). More threads, or --multi-thread: the work-stealing runtime, as
    // `#[tokio::main]` gives it to most users.
    let multi_thread = threads > 1 || cli.multi_thread;
    let mut builder = if !multi_thread {
        tokio::runtime::Builder::new_current_thread()
    } else {
        let mut builder = tokio::runtime::Builder::new_multi_thread();
        builder.worker_threads(threads);
        builder
    };
    builder.enable_all();
    // tokio's io_uring file path (the `io-uring-fs` build, see Cargo.toml): `enable_all`
    // turns it on too in such a build; said here so the contender's one difference shows.
    #[cfg(all(tokio_unstable, feature = "io-uring-fs"))]
    builder.enable_io_uring();
    let tls = cli.common.tls().unwrap_or_else(|e| StartupError::from(e).exit());
    let runtime = builder
        .build()
        .unwrap_or_else(|e| StartupError::from(format!("cannot start the tokio runtime: {e}")).exit());
    runtime.block_on(async {
        let (listener, local) = server::listen(cli.addr).unwrap_or_else(|e| e.exit());
        let engine = cli.engine;
        let scheduler = if multi_thread {
            "multi-thread"
        } else {
            "current-thread"
        };
        let mut details = format!("engine={engine}, threads={threads}, scheduler={scheduler}");
        if cfg!(all(tokio_unstable, feature = "io-uring-fs")) {
            details.push_str(", files=tokio io_uring");
        }
        if engine == Engine::CodecShared {
            details.push_str(", input=one buffer per thread, read on readiness");
        }
        if cli.sendfile {
            let min = http_core::files::SENDFILE_MIN;
            details.push_str(&format!(", file-body=sendfile from {min} B"));
        }
        let mut settings = Settings::from(&cli.common);
        settings.sendfile = cli.sendfile;
        let Some(tls) = tls else {
            server_kit::ready::announce(local, &details);
            return match engine {
                Engine::Hyper => server::run(listener, settings, hyper_engine::serve).await,
                Engine::Codec => server::run(listener, settings, codec_engine::serve).await,
                Engine::CodecShared => server::run(listener, settings, codec_engine::serve_shared).await,
            };
        };
        server_kit::ready::announce_https(local, &format!("{details}, tls adapter=tokio-rustls"));
        let acceptor = TlsAcceptor::from(tls);
        match engine {
            Engine::Hyper => {
                let serve = move |stream, settings| {
                    server::after_handshake(acceptor.clone(), stream, settings, hyper_engine::serve)
                };
                server::run(listener, settings, serve).await
            }
            Engine::Codec => {
                let serve = move |stream, settings| {
                    server::after_handshake(acceptor.clone(), stream, settings, codec_engine::serve)
                };
                server::run(listener, settings, serve).await
            }
            Engine::CodecShared => unreachable!("Cli::validate refuses codec-shared with TLS"),
        }
    });
}

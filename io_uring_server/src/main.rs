//! `io_uring_server`: the http_core contract served by a hand-rolled io_uring loop,
//! thread per core, no async runtime. Each thread owns a ring and a SO_REUSEPORT
//! listener. How it works (the life of a connection and of a request, operation by
//! operation) and the rules that keep the kernel's use of our memory sound:
//! [`DESIGN.md`](../DESIGN.md) beside this crate's `Cargo.toml`.
//!
//! With `--tls-cert` and `--tls-key` it serves HTTPS: rustls's unbuffered connection
//! between the ring and the codec (`tls_session.rs`, `conn/tls.rs`).
//!
//! A panic anywhere stops the whole process with status 70 and a message: the kernel may
//! still own connection buffers, so unwinding (and freeing them) is never safe.

mod accepting;
mod batch;
mod buf_ring;
mod config;
mod conn;
mod event_loop;
mod files;
mod gather;
mod incremental;
mod input;
mod op_state;
mod ops;
mod ring;
mod ring_enter;
mod setup;
mod slab;
mod timer;
mod tls_session;
mod token;
mod worker;

use server_kit::{StartupError, Workers};

use crate::config::Cli;

const PROGRAM: &str = "io_uring_server";

/// How this server's TLS handles bytes, for the ready line (`tls_session.rs`).
const TLS_PATH: &str = "tls path=rustls unbuffered (ciphertext copied out of the buffer ring, decrypted in place and copied out by rustls, sealed into the send)";

fn main() {
    let cli: Cli = server_kit::args::parse(PROGRAM, Cli::validate);
    std::panic::set_hook(Box::new(|info| {
        server_kit::log!("internal error: {info}; exiting");
        std::process::exit(70);
    }));
    // The root of `/files/{name}`, opened once; every worker's OPENATs resolve names in
    // it. Owned here, so it stays open until the workers are joined.
    let files_root = cli.common.files_dir.as_deref().map(|dir| {
        files::fd::open_root(dir).unwrap_or_else(|e| {
            StartupError::from(format!("cannot open --files-dir {}: {e}", dir.display())).exit()
        })
    });
    let root = files_root.as_ref().map(files::fd::FilesRoot::of);
    let tls = cli.common.tls().unwrap_or_else(|e| StartupError::from(e).exit());
    let threads = cli.common.threads();
    let (listeners, local) =
        server_kit::listener::listen_group(cli.addr, threads).unwrap_or_else(|e| e.exit());
    // Each worker's event loop also watches a pipe: closing its write end wakes it to
    // shut down.
    let mut wakers = Vec::with_capacity(threads);
    let (workers, setups) = Workers::start("uring", listeners, |listener, ready| {
        let (wake, waker) = std::io::pipe().unwrap_or_else(|e| StartupError::from(e.to_string()).exit());
        wakers.push(waker);
        let (cli, tls) = (cli.clone(), tls.clone());
        move || worker::run(cli, (root, tls), listener, wake, ready)
    })
    .unwrap_or_else(|e| e.exit());
    let setup = setups.last().map_or("", String::as_str);
    let details = describe(&cli, threads, setup);
    match tls {
        Some(_) => server_kit::ready::announce_https(local, &format!("{details}, {TLS_PATH}")),
        None => server_kit::ready::announce(local, &details),
    }
    workers.serve_until_signal(|| drop(wakers));
    drop(files_root);
}

/// The ready line's details: every feature in use, so a run's log says what was measured.
fn describe(cli: &Cli, threads: usize, setup: &str) -> String {
    let features = cli.features;
    let accept = if features.no_multishot_accept {
        "single"
    } else {
        "multishot"
    };
    format!("engine=io_uring, threads={threads}, accept={accept}, {setup}")
}

//! `io_uring_server`: the http_core contract served by a hand-rolled io_uring loop,
//! thread per core, no async runtime. Each thread owns a ring and a SO_REUSEPORT
//! listener; see `event_loop.rs` for the loop and its memory invariants.
//!
//! A panic anywhere stops the whole process with status 70 and a message: the kernel may
//! still own connection buffers, so unwinding (and freeing them) is never safe.

mod accepting;
mod batch;
mod buf_ring;
mod config;
mod conn;
mod event_loop;
mod input;
mod op_state;
mod ops;
mod ring;
mod setup;
mod slab;
mod timer;
mod token;
mod worker;

use std::sync::mpsc;

use clap::Parser;
use http_core::args::{exit_startup_error, ready_line};
use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

use crate::config::Cli;

const PROGRAM: &str = "io_uring_server";

fn main() {
    std::panic::set_hook(Box::new(|info| {
        eprintln!("{PROGRAM}: internal error: {info}; exiting");
        std::process::exit(70);
    }));
    let cli = Cli::parse();
    if let Err(message) = cli.validate() {
        exit_startup_error(PROGRAM, message);
    }
    let threads = cli.common.threads();
    let (listeners, local) = http_core::listener::bind_group_or_exit(PROGRAM, cli.addr, threads);
    let mut signals = Signals::new([SIGINT, SIGTERM])
        .unwrap_or_else(|e| exit_startup_error(PROGRAM, format!("cannot handle signals: {e}")));

    let (ready_sender, ready) = mpsc::channel();
    let mut wakers = Vec::new();
    let mut workers = Vec::new();
    for (index, listener) in listeners.into_iter().enumerate() {
        let (wake, waker) = std::io::pipe().unwrap_or_else(|e| exit_startup_error(PROGRAM, e));
        wakers.push(waker);
        let (cli, ready_sender) = (cli.clone(), ready_sender.clone());
        let thread = std::thread::Builder::new()
            .name(format!("uring-{index}"))
            .spawn(move || worker::run(cli, listener, wake, ready_sender))
            .unwrap_or_else(|e| exit_startup_error(PROGRAM, format!("cannot start a worker thread: {e}")));
        workers.push(thread);
    }
    drop(ready_sender);
    let mut setup = String::new();
    for _ in 0..threads {
        match ready.recv() {
            Ok(Ok(flags)) => setup = flags,
            Ok(Err(message)) => exit_startup_error(PROGRAM, message),
            Err(_) => exit_startup_error(PROGRAM, "a worker thread stopped during startup"),
        }
    }
    println!("{}", ready_line(local, &describe(&cli, threads, &setup)));

    signals.forever().next();
    drop(wakers);
    for worker in workers {
        let _ = worker.join();
    }
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

//! Starts one worker thread: its ring, its buffer ring, then its event loop. Reports the
//! ring setup in use (or why it failed) before serving.

use std::io::PipeReader;
use std::net::TcpListener;
use std::sync::mpsc::Sender;

use crate::buf_ring::BufRing;
use crate::config::Cli;
use crate::conn::Timeouts;
use crate::event_loop::Worker;
use crate::setup;

/// The buffer group id of each thread's provided-buffer ring.
const BUFFER_GROUP: u16 = 0;

/// Runs on the worker thread, since a SINGLE_ISSUER ring belongs to its creating thread.
pub fn run(cli: Cli, listener: TcpListener, wake: PipeReader, ready: Sender<Result<&'static str, String>>) {
    let worker = match build(&cli, listener, wake) {
        Ok(worker) => worker,
        Err(message) => {
            let _ = ready.send(Err(message));
            return;
        }
    };
    let _ = ready.send(Ok(worker.1));
    drop(ready);
    worker.0.run();
}

fn build(cli: &Cli, listener: TcpListener, wake: PipeReader) -> Result<(Worker, &'static str), String> {
    let built = setup::build_ring(cli.ring_entries, cli.features)?;
    let buf_ring = match cli.features.no_multishot_recv {
        true => None,
        false => Some(
            BufRing::register(&built.ring.submitter(), BUFFER_GROUP, cli.buf_count, cli.buf_size).map_err(|e| {
                format!("cannot register a provided-buffer ring ({e}); use Linux 6.1 or later, or pass --no-multishot-recv")
            })?,
        ),
    };
    let timeouts = Timeouts {
        request: cli.common.request_timeout_secs,
        idle: cli.common.idle_timeout_secs,
    };
    let grace = http_core::limits::SHUTDOWN_GRACE.as_secs();
    let worker = Worker::new(
        built.ring,
        buf_ring,
        listener,
        wake,
        cli.common.limits(),
        timeouts,
        grace,
        cli.features,
        cli.buf_size,
    );
    Ok((worker, built.setup))
}

//! Starts one worker thread: its ring, its buffer ring, then its event loop. Reports the
//! ring setup in use (or why it failed) before serving.

use crate::files::fd::FilesRoot;
use std::io::PipeReader;
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::mpsc::Sender;

use crate::buf_ring::BufRing;
use io_uring::Submitter;
use rustls::ServerConfig;

use crate::config::{Buffers, Cli};
use crate::conn::Timeouts;
use crate::event_loop::{Worker, WorkerConfig};
use crate::gather::ZERO_COPY_MIN;
use crate::incremental::{self, KernelVersion};
use crate::ops::RecvMode;
use crate::ring::Ring;
use crate::setup;

/// The buffer group id of each thread's provided-buffer ring.
const BUFFER_GROUP: u16 = 0;

/// Runs on the worker thread, since a SINGLE_ISSUER ring belongs to its creating thread.
pub fn run(
    cli: Cli,
    (files_root, tls): (Option<FilesRoot>, Option<Arc<ServerConfig>>),
    listener: TcpListener,
    wake: PipeReader,
    ready: Sender<Result<String, String>>,
) {
    let worker = match build(&cli, (files_root, tls), listener, wake) {
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

/// Builds the worker and describes its kernel-dependent setup for the ready line.
fn build(
    cli: &Cli,
    (files_root, tls): (Option<FilesRoot>, Option<Arc<ServerConfig>>),
    listener: TcpListener,
    wake: PipeReader,
) -> Result<(Worker, String), String> {
    let built = setup::build_ring(cli.ring_entries, cli.features)?;
    let direct_slots = if cli.features.fixed_files {
        Some(setup::register_direct_table(&built.ring)?)
    } else {
        None
    };
    let files = match direct_slots {
        Some(slots) => format!("direct ({slots} slots)"),
        None => "regular".to_string(),
    };
    let batch_wait_us = if built.min_wait {
        cli.features.batch_wait_us
    } else {
        0
    };
    let batching = match (batch_wait_us, cli.features.batch_wait_us) {
        (0, 0) => "off".to_string(),
        (0, _) => "off (kernel lacks min-wait, Linux 6.12)".to_string(),
        (us, _) => format!("{us}us"),
    };
    let ring = Ring::new(built.ring, !cli.features.no_registered_ring);
    let sq = if built.no_sqarray { "|NO_SQARRAY" } else { "" };
    let enter = match (ring.registered(), cli.features.batch_wait_us) {
        (false, _) => "",
        (true, 0) => ", registered ring",
        // A wait with a minimum goes through the crate's enter, which names the ring by
        // its descriptor.
        (true, _) => ", registered ring (unbatched enters)",
    };
    let setup = format!("{}{sq}{enter}", built.setup);
    let description = format!("setup={setup}, files={files}, batch_wait={batching}");
    let (buf_ring, recv_description) = receive_buffers(cli, &ring.uring.submitter())?;
    let description = format!("{description}, recv={recv_description}");
    let zero_copy = cli.features.zero_copy_send && setup::supports_send_zc(&ring.uring);
    let description = match (cli.features.zero_copy_send, zero_copy) {
        (false, _) => description,
        (true, true) => format!("{description}, send=zero-copy from {ZERO_COPY_MIN} B"),
        (true, false) => format!("{description}, send=plain (kernel lacks SEND_ZC, Linux 6.0)"),
    };
    let file_body = match (cli.features.no_sendfile, direct_slots) {
        _ if tls.is_some() => "read (TLS encrypts every byte)".to_string(),
        (true, _) => "read".to_string(),
        (false, Some(_)) => "read (direct descriptors cannot sendfile)".to_string(),
        (false, None) => format!(
            "sendfile from {} B if cached, else read",
            http_core::files::SENDFILE_MIN
        ),
    };
    let description = format!("{description}, file-body={file_body}");
    let recv = match &buf_ring {
        Some(buffers) => RecvMode::Multishot { group: buffers.group },
        None => RecvMode::OwnBuffer {
            size: cli.buffers(false).size,
        },
    };
    let config = WorkerConfig {
        limits: cli.common.limits(),
        // A connection's silence is counted in whole ticks from the tick it last made
        // progress in, so N ticks of it may be as little as N - 1 seconds: one tick more
        // than the seconds keeps a timeout from closing a connection early.
        timeouts: Timeouts {
            request: cli.common.request_timeout_secs + 1,
            idle: cli.common.idle_timeout_secs + 1,
        },
        grace_ticks: http_core::limits::SHUTDOWN_GRACE.as_secs(),
        features: cli.features,
        recv,
        batch_wait_us,
        max_conns: direct_slots.map_or(usize::MAX, |slots| slots as usize),
        zero_copy,
        files_root,
        tls,
    };
    let worker = Worker::new(ring, buf_ring, listener, wake, config);
    Ok((worker, description))
}

/// The provided-buffer ring for multishot recv, incrementally consumed where the kernel
/// can be trusted with it (`incremental.rs`), and its description for the ready line,
/// which says why not when it is not.
fn receive_buffers(cli: &Cli, submitter: &Submitter) -> Result<(Option<BufRing>, String), String> {
    let features = cli.features;
    if features.no_multishot_recv {
        let size = cli.buffers(false).size;
        return Ok((None, format!("plain into {size} B per connection")));
    }
    let register = |incremental: bool| {
        let Buffers { count, size } = cli.buffers(incremental);
        BufRing::register(submitter, BUFFER_GROUP, count, size, incremental)
            .map(|ring| (ring, format!("{count}x{size} B")))
    };
    let bodies = if features.no_plain_body_recv || cli.common.tls_cert.is_some() {
        ""
    } else {
        ", large bodies by plain recv"
    };
    let kernel = KernelVersion::running();
    let fallback = match incremental::decide(features.no_incremental_buffers, features.sqpoll, kernel) {
        Err(refusal) => format!(" ({refusal})"),
        Ok(()) => match register(true) {
            Ok((ring, sizes)) => {
                let description = format!("multishot with incremental buffer ring {sizes}{bodies}");
                return Ok((Some(ring), description));
            }
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
                " (not incremental: the kernel refused IOU_PBUF_RING_INC)".to_string()
            }
            Err(e) => return Err(format!("cannot register a provided-buffer ring ({e})")),
        },
    };
    let (ring, sizes) = register(false).map_err(|e| {
        format!("cannot register a provided-buffer ring ({e}); use Linux 6.1 or later, or pass --no-multishot-recv")
    })?;
    Ok((
        Some(ring),
        format!("multishot with buffer ring {sizes}{fallback}{bodies}"),
    ))
}

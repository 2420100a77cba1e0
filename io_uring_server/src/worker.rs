//! One worker thread: what it owns ([`Worker`]), how it is built (its ring, its direct
//! descriptor table, its buffer ring) and what its ready line says about what the kernel
//! granted. Its loop is `event_loop.rs`. Built and run on its own thread, since a
//! SINGLE_ISSUER ring belongs to its creating thread.

use std::io::PipeReader;
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::mpsc::Sender;
use std::time::Instant;

use io_uring::Submitter;
use rustls::ServerConfig;

use crate::accepting::Acceptor;
use crate::batch::WaitBatcher;
use crate::buf_ring::BufRing;
use crate::config::{Buffers, BulkRecv, Cli, Features};
use crate::conn::{Conn, Receiving, Timeouts};
use crate::files::fd::FilesRoot;
use crate::gather::ZERO_COPY_MIN;
use crate::incremental::{self, KernelVersion};
use crate::ring::Ring;
use crate::setup;
use crate::slab::Slab;
use crate::timer::Timer;
use http_core::Limits;

/// The buffer group id of each thread's provided-buffer ring.
const BUFFER_GROUP: u16 = 0;

/// What a worker is told at start.
#[derive(Debug, Clone)]
pub struct WorkerConfig {
    pub limits: Limits,
    pub timeouts: Timeouts,
    /// Ticks a shutdown waits for busy connections before closing them anyway.
    pub grace_ticks: u64,
    pub features: Features,
    /// How every connection receives (the buffer group, or plain recvs).
    pub recv: Receiving,
    /// Most connections at once: the registered table's size with direct descriptors.
    pub max_conns: usize,
    /// Send large static bodies with SEND_ZC (`--zero-copy-send`, where supported).
    pub zero_copy: bool,
    /// `--files-dir`, opened once by `main` (O_PATH) and open for the process's lifetime.
    pub files_root: Option<FilesRoot>,
    /// `--tls-cert`: every connection speaks TLS with this configuration.
    pub tls: Option<Arc<ServerConfig>>,
}

/// Everything one worker thread owns. `ring` is declared first so it is dropped first,
/// before the buffer memory it may name.
pub struct Worker {
    pub(crate) ring: Ring,
    pub(crate) buf_ring: Option<BufRing>,
    pub(crate) wake: PipeReader,
    pub(crate) conns: Slab<Conn>,
    pub(crate) config: WorkerConfig,
    /// Ticks since start: the clock of every timeout.
    pub(crate) now: u64,
    pub(crate) accept: Acceptor,
    pub(crate) timer: Timer,
    pub(crate) shutdown_since: Option<u64>,
    /// One turn's completions, copied out of the queue (kept to reuse its allocation).
    pub(crate) completions: Vec<(u64, i32, u32)>,
    /// Batched waits (`--batch-wait-us`, `batch.rs`); `None` when off, as by default.
    pub(crate) batcher: Option<WaitBatcher>,
}

impl Worker {
    /// A worker whose waits are batched by up to `batch_wait_us` (0: not batched).
    pub fn new(
        ring: Ring,
        buf_ring: Option<BufRing>,
        (listener, wake): (TcpListener, PipeReader),
        config: WorkerConfig,
        batch_wait_us: u32,
    ) -> Worker {
        Worker {
            ring,
            buf_ring,
            wake,
            conns: Slab::new(),
            now: 0,
            accept: Acceptor::new(listener, config.features, config.max_conns),
            timer: Timer::Stopped,
            shutdown_since: None,
            completions: Vec::with_capacity(1024),
            batcher: (batch_wait_us > 0).then(|| WaitBatcher::new(batch_wait_us, Instant::now())),
            config,
        }
    }
}

/// Runs on the worker thread, since a SINGLE_ISSUER ring belongs to its creating thread.
pub fn run(
    cli: Cli,
    (files_root, tls): (Option<FilesRoot>, Option<Arc<ServerConfig>>),
    listener: TcpListener,
    wake: PipeReader,
    ready: Sender<Result<String, String>>,
) {
    let (worker, ready_line) = match build(&cli, (files_root, tls), listener, wake) {
        Ok(built) => built,
        Err(message) => {
            let _ = ready.send(Err(message));
            return;
        }
    };
    let _ = ready.send(Ok(ready_line));
    drop(ready);
    worker.run();
}

/// What the kernel granted one worker, for its ready line.
struct Granted {
    /// The ring's setup flags, and whether it has no index array.
    setup: &'static str,
    no_sqarray: bool,
    /// Enters name the ring by a registered index.
    registered: bool,
    /// The direct descriptor table's size (`--fixed-files`).
    direct_slots: Option<u32>,
    /// The batched wait in effect (0: off).
    batch_wait_us: u32,
    zero_copy: bool,
    /// How connections receive, said by [`receive_buffers`].
    recv: String,
}

/// Builds the worker and describes its kernel-dependent setup for the ready line.
fn build(
    cli: &Cli,
    (files_root, tls): (Option<FilesRoot>, Option<Arc<ServerConfig>>),
    listener: TcpListener,
    wake: PipeReader,
) -> Result<(Worker, String), String> {
    let built = setup::build_ring(cli.ring_entries, cli.features)?;
    let direct_slots = match cli.features.direct_descriptors {
        true => Some(setup::register_direct_table(&built.uring)?),
        false => None,
    };
    let batch_wait_us = if built.min_wait {
        cli.features.batch_wait_us
    } else {
        0
    };
    let (setup, no_sqarray) = (built.setup, built.no_sqarray);
    let ring = Ring::new(built.uring, !cli.features.no_registered_ring);
    let (buf_ring, recv) = receive_buffers(cli, &ring.uring.submitter())?;
    let zero_copy = cli.features.zero_copy_send && setup::supports_send_zc(&ring.uring);
    let registered = ring.registered();
    let granted = Granted {
        setup,
        no_sqarray,
        registered,
        direct_slots,
        batch_wait_us,
        zero_copy,
        recv,
    };
    let ready_line = describe(cli, &granted, tls.is_some());
    let recv = match &buf_ring {
        Some(buffers) => Receiving::Ring {
            group: buffers.group,
            large_bodies_plain: !cli.features.no_plain_body_recv,
            ring_bytes: buffers.capacity(),
            bulk_recv: cli.features.bulk_recv,
        },
        None => Receiving::Plain {
            size: cli.buffers(false).size,
        },
    };
    let config = WorkerConfig {
        limits: cli.common.limits(),
        timeouts: timeouts(cli),
        grace_ticks: http_core::limits::SHUTDOWN_GRACE.as_secs(),
        features: cli.features,
        recv,
        max_conns: direct_slots.map_or(usize::MAX, |slots| slots as usize),
        zero_copy,
        files_root,
        tls,
    };
    let worker = Worker::new(ring, buf_ring, (listener, wake), config, batch_wait_us);
    Ok((worker, ready_line))
}

/// The timeouts the flags ask for, in ticks. A connection's silence is counted in whole
/// ticks from the tick it last made progress in, so N ticks of it may be as little as
/// N - 1 seconds: one tick more than the seconds keeps a timeout from closing a
/// connection early.
fn timeouts(cli: &Cli) -> Timeouts {
    Timeouts {
        request: cli.common.request_timeout_secs.saturating_add(1),
        idle: cli.common.idle_timeout_secs.saturating_add(1),
        pace: cli.common.pace(),
    }
}

/// The ready line's words for what `granted` holds, beside what was asked for.
fn describe(cli: &Cli, granted: &Granted, tls: bool) -> String {
    let asked = cli.features;
    let files = match granted.direct_slots {
        Some(slots) => format!("direct ({slots} slots)"),
        None => "regular".to_string(),
    };
    let batching = match (granted.batch_wait_us, asked.batch_wait_us) {
        (0, 0) => "off".to_string(),
        (0, _) => "off (kernel lacks min-wait, Linux 6.12)".to_string(),
        (us, _) => format!("{us}us"),
    };
    let sq = if granted.no_sqarray { "|NO_SQARRAY" } else { "" };
    let enter = match (granted.registered, asked.batch_wait_us) {
        (false, _) => "",
        (true, 0) => ", registered ring",
        // A wait with a minimum goes through the crate's enter, which names the ring by
        // its descriptor.
        (true, _) => ", registered ring (unbatched enters)",
    };
    let setup = format!("{}{sq}{enter}", granted.setup);
    let send = match (asked.zero_copy_send, granted.zero_copy) {
        (false, _) => String::new(),
        (true, true) => format!(", send=zero-copy from {ZERO_COPY_MIN} B"),
        (true, false) => ", send=plain (kernel lacks SEND_ZC, Linux 6.0)".to_string(),
    };
    let file_body = match (asked.no_sendfile, granted.direct_slots) {
        _ if tls => "read (TLS encrypts every byte)".to_string(),
        (true, _) => "read".to_string(),
        (false, Some(_)) => "read (direct descriptors cannot sendfile)".to_string(),
        (false, None) => format!(
            "sendfile from {} B if cached, else read",
            http_core::files::SENDFILE_MIN
        ),
    };
    let recv = &granted.recv;
    format!("setup={setup}, files={files}, batch_wait={batching}, recv={recv}{send}, file-body={file_body}")
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
    let bodies = match cli.common.tls_cert {
        Some(_) => String::new(),
        None => plain_recv_paths(&features),
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

/// What the ready line says goes by plain recvs rather than the buffer ring, if anything.
fn plain_recv_paths(features: &Features) -> String {
    let bodies = (!features.no_plain_body_recv).then_some("large bodies by plain recv");
    let uploads = match features.bulk_recv {
        BulkRecv::Multishot => None,
        BulkRecv::Direct => Some("uploads by plain recv"),
    };
    bodies
        .into_iter()
        .chain(uploads)
        .map(|path| format!(", {path}"))
        .collect()
}

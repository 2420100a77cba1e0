//! One measured point of the long-running studies (the sweep, the ablation, the
//! large-body study): a [`Load`] of some [`LoadKind`] run by loadgen against one server,
//! with server CPU, peak RSS and the bottleneck beside its requests/s and latency.

use std::time::Duration;

use loadgen::churn::Churn;
use loadgen::files::Files;
use loadgen::run::{Config, Driver, Percentiles};
use loadgen::tls::{Handshakes, Tls};
use serde::{Deserialize, Serialize};

use crate::cpu::measure;
use crate::io_workers::IoWorkers;
use crate::noise::Noise;
use crate::perf::SyscallCounter;
use crate::servers::Server;
use crate::settings::Pinning;
use crate::usage::Usage;

/// How the client drives a point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoadKind {
    /// Each connection sends its next request when the answer arrives.
    Closed,
    /// Each connection keeps several requests in flight.
    Pipelined,
    /// Requests leave at a fixed rate, each measured from its intended send time, after a
    /// discarded warm-up ([`open_loop_warmup`]).
    Open,
    /// A closed loop of `POST /payload` echoes.
    Echo,
    /// A new connection per request (or per few, closed by the client).
    Churn,
}

impl LoadKind {
    pub fn name(self) -> &'static str {
        match self {
            LoadKind::Closed => "closed",
            LoadKind::Pipelined => "pipelined",
            LoadKind::Open => "open",
            LoadKind::Echo => "echo",
            LoadKind::Churn => "churn",
        }
    }
}

/// One load on one server, measured.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Point {
    pub contender: String,
    pub label: String,
    pub kind: LoadKind,
    pub connections: usize,
    pub depth: usize,
    pub rate: Option<f64>,
    pub requests: u64,
    /// Every request of the window the CPU figures cover: `requests` and the open loop's
    /// warm-up (a profile's samples cover the same window).
    #[serde(default)]
    pub requests_in_window: u64,
    pub requests_per_sec: f64,
    /// Of `requests`, those answered before the measured window ended (loadgen's
    /// `answered_in_window`): what an open loop served on schedule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered_in_window: Option<u64>,
    /// Open loop: from each request's intended send time (corrected for coordinated
    /// omission).
    pub latency_us: Percentiles,
    /// The median of `latency_us` to a nanosecond's resolution, µs (loadgen's
    /// `median_us`); `None` in results from before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub median_us: Option<f64>,
    /// Open loop only: from each request's actual send (uncorrected).
    pub uncorrected_latency_us: Option<Percentiles>,
    /// Open loop only: how late the client sent against its schedule.
    pub send_lateness_us: Option<Percentiles>,
    /// Over every request of the run, warm-up included (the CPU was measured over all).
    pub server_cpu_us_per_request: Option<f64>,
    pub client_cpu_us_per_request: f64,
    /// The whole machine's CPU per request over the same window, both CPUs and the work
    /// no process is charged for, less the machine's idle baseline ([`crate::machine_cpu`]).
    #[serde(default)]
    pub machine_cpu_us_per_request: Option<f64>,
    /// The client's CPU over the point's wall time and its CPUs (1.0: saturated).
    #[serde(default)]
    pub client_busy: f64,
    pub syscalls_per_request: Option<f64>,
    /// The server's wake-ups over the same window as the CPU figures: its threads'
    /// voluntary context switches ([`crate::switches`]); `None` where they were not read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_wakeups: Option<u64>,
    pub peak_rss_kib: Option<u64>,
    pub bottleneck: String,
    /// The work behind the CPU figures and the bottleneck: what [`crate::slices::merge`]
    /// adds up. Absent in results written before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// What the platform did meanwhile, where the study recorded it (the sweep).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise: Option<Noise>,
    /// io_uring worker threads the server had at the end ([`IoWorkers`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_workers: Option<IoWorkers>,
}

/// A point for tests of rendering: 1000 requests of `contender` under `kind`, every
/// figure zero or absent; set the ones a test reads with struct update syntax.
pub fn blank_point(contender: &str, kind: LoadKind) -> Point {
    Point {
        contender: contender.into(),
        label: contender.into(),
        kind,
        connections: if kind == LoadKind::Open { 64 } else { 256 },
        depth: 1,
        rate: None,
        requests: 1000,
        requests_in_window: 1000,
        requests_per_sec: 0.0,
        answered_in_window: None,
        latency_us: Percentiles::default(),
        median_us: None,
        uncorrected_latency_us: None,
        send_lateness_us: None,
        server_cpu_us_per_request: None,
        client_cpu_us_per_request: 1.0,
        machine_cpu_us_per_request: None,
        client_busy: 0.0,
        syscalls_per_request: None,
        server_wakeups: None,
        peak_rss_kib: None,
        bottleneck: String::new(),
        usage: None,
        noise: None,
        io_workers: None,
    }
}

/// A `POST /payload` of `bytes` (chunked in `chunk`-byte pieces if set), echoed back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Post {
    pub bytes: usize,
    pub chunk: Option<usize>,
}

/// What each request asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Ask {
    /// `GET /`: the 13-byte hello.
    Hello,
    /// `POST /payload`, echoed back.
    Echo(Post),
    /// `GET /bytes/{n}`: a response body of `n` bytes.
    Bytes(usize),
    /// `GET /work/{µs}`: the hello, after the handler kept its thread busy `µs`
    /// microseconds (`http_core::work`).
    Work(u64),
    /// `POST /upload` of `n` patterned bytes (Content-Length), answered with the receipt of
    /// their length and CRC32C (`http_core::routes::upload_receipt`).
    Upload(usize),
    /// `GET /files/{name}`: files of the corpus set labelled `set`, picked at random per
    /// connection from `seed` (loadgen's file mode, every body byte checked).
    File { set: &'static str, seed: u64 },
}

impl Ask {
    /// The request for a server at `base_url`, and the body length its answer must have.
    fn target(self, base_url: &str) -> Result<(loadgen::target::Target, usize), String> {
        Ok(match self {
            Ask::Hello => (
                loadgen::target::parse(&format!("{base_url}/"))?,
                http_core::routes::HELLO.len(),
            ),
            Ask::Echo(post) => (
                loadgen::target::post(&format!("{base_url}/payload"), post.bytes, post.chunk)?,
                post.bytes,
            ),
            Ask::Bytes(n) => (loadgen::target::parse(&format!("{base_url}/bytes/{n}"))?, n),
            Ask::Work(micros) => (
                loadgen::target::parse(&format!("{base_url}/work/{micros}"))?,
                http_core::routes::HELLO.len(),
            ),
            Ask::Upload(n) => {
                let target = loadgen::target::post(&format!("{base_url}/upload"), n, None)?;
                let receipt = target.contract_body.len();
                (target, receipt)
            }
            Ask::File { .. } => {
                let size = self.files()?.map_or(0, |files| files.set.size);
                (loadgen::target::parse(&format!("{base_url}/files/"))?, size)
            }
        })
    }

    /// The files loadgen asks for, for [`Ask::File`].
    fn files(self) -> Result<Option<Files>, String> {
        match self {
            Ask::File { set, seed } => Files::by_label(set, seed).map(Some),
            _ => Ok(None),
        }
    }
}

/// How one point loads a server.
#[derive(Debug, Clone, Copy)]
pub struct Load {
    pub kind: LoadKind,
    pub ask: Ask,
    /// A new connection per request, closed by whom; `None`: kept-alive connections.
    pub churn: Option<Churn>,
    /// With `churn`, the requests each connection carries before the client closes it.
    pub requests_per_connection: usize,
    /// Over TLS, with this handshake on each new connection (the server must serve
    /// HTTPS: [`crate::servers::Lineup::start_fresh_serving`]); `None`: plain HTTP.
    pub tls: Option<Handshakes>,
    pub connections: usize,
    pub depth: usize,
    pub rate: Option<f64>,
    /// The measured window, after `warmup`.
    pub duration: Duration,
    /// Run this long first, its answers kept out of the latency and requests/s figures.
    pub warmup: Duration,
    pub client_threads: usize,
    pub server_cpus: usize,
    /// The client busy-polls for each answer instead of sleeping (loadgen's
    /// `--busy-poll`; closed loop only). Default is false.
    pub busy_poll: bool,
    /// What drives the client's connections. Default is [`Driver::Auto`]: the ring drives
    /// every load it covers ([`Load::on_ring`]) and sends each request close to its
    /// intended time, where the tokio driver lets sends due within [`loadgen::MIN_GAP`]
    /// leave together (issue 70); tokio drives TLS, churn, files and busy-polling.
    pub driver: Driver,
}

/// The open loop's warm-up for a point of `duration`: a fifth of it, at most 1 s (connects
/// and first-touch costs are over well within that at the sweep's rates), so a 5 s point
/// runs 6 s. The closed loops need none: their figures are means over the whole run.
pub fn open_loop_warmup(duration: Duration) -> Duration {
    (duration / 5).min(Duration::from_secs(1))
}

impl Load {
    /// A load with the client threads and server CPUs that `pinning` gives, and for the
    /// open loop [`open_loop_warmup`].
    pub fn new(
        kind: LoadKind,
        (connections, depth): (usize, usize),
        rate: Option<f64>,
        duration: Duration,
        pinning: &Pinning,
    ) -> Load {
        Load {
            kind,
            ask: Ask::Hello,
            churn: None,
            requests_per_connection: 1,
            tls: None,
            connections,
            depth,
            rate,
            duration,
            warmup: match kind {
                LoadKind::Open => open_loop_warmup(duration),
                _ => Duration::ZERO,
            },
            client_threads: pinning.client_cpus().max(1),
            server_cpus: pinning.server_cpus(),
            busy_poll: false,
            driver: Driver::Auto,
        }
    }

    /// Whether loadgen's ring drives this load under [`Driver::Auto`] (on a kernel that
    /// offers io_uring): kept-alive connections over plain TCP, without files or
    /// busy-polling, as loadgen's `ring_client::covers` reads the same run.
    pub fn on_ring(&self) -> bool {
        self.tls.is_none() && self.churn.is_none() && !self.busy_poll && !matches!(self.ask, Ask::File { .. })
    }
}

/// `base` (the target and its request) with the shape `load` gives the client: its
/// connections, threads, depth, length, rate, churn, whether it busy-polls and its driver.
pub(crate) fn client_config(load: &Load, base: Config) -> Config {
    Config {
        driver: load.driver,
        connections: load.connections,
        threads: load.client_threads,
        depth: load.depth,
        duration: load.duration,
        warmup: load.warmup,
        rate: load.rate,
        churn: load.churn,
        requests_per_connection: load.requests_per_connection,
        busy_poll: load.busy_poll,
        ..base
    }
}

/// Runs one point against one server; any wrong response fails the sweep.
pub fn run_point(server: &Server, load: Load) -> Result<Point, String> {
    let (target, body_len) = load.ask.target(&server.base_url)?;
    let files = load.ask.files()?;
    let tls = match (load.tls, target.https) {
        (Some(handshakes), true) => {
            let cert_pem = server.cert_pem()?;
            Some(Tls::new(cert_pem.as_bytes(), &target.host, handshakes)?)
        }
        (None, false) => None,
        (asked, _) => {
            return Err(format!(
                "{}: the load asks for {} but the server serves {}",
                server.contender.label,
                if asked.is_some() { "TLS" } else { "plain HTTP" },
                server.base_url
            ));
        }
    };
    let config = Config {
        expect_body_len: Some(body_len),
        expect_body: files.is_none().then_some(target.contract_body),
        files,
        tls,
        ..client_config(&load, Config::new(target.addr, target.request))
    };
    server.reset_peak_memory()?;
    let switches_before = server.voluntary_switches();
    let (summary, spent) = measure(|| server.cpu_snapshot(), || loadgen::run::run(config));
    let server_wakeups = switches_before
        .zip(server.voluntary_switches())
        .map(|(before, after)| after.saturating_sub(before));
    let (summary, spent) = (summary?, spent?);
    if let Some(error) = summary.first_error {
        return Err(format!(
            "{} at {} connections: {error}",
            server.contender.label, load.connections
        ));
    }
    // CPU was measured over the whole run, so per request means over every request.
    let usage = Usage {
        requests: summary.requests_including_warmup(),
        wall_s: spent.wall.as_secs_f64(),
        server_cpu_s: spent.server.map(|d| d.as_secs_f64()),
        client_cpu_s: spent.client.as_secs_f64(),
        machine_cpu_s: crate::machine_cpu::net_of_idle(spent.machine, spent.wall),
        server_cpus: load.server_cpus,
        client_cpus: load.client_threads,
    };
    Ok(Point {
        contender: server.contender.id.into(),
        label: server.contender.label.into(),
        kind: load.kind,
        connections: load.connections,
        depth: load.depth,
        rate: load.rate,
        requests: summary.requests,
        requests_in_window: usage.requests,
        requests_per_sec: summary.requests_per_sec,
        answered_in_window: Some(summary.answered_in_window),
        latency_us: summary.latency_us,
        median_us: summary.median_us,
        uncorrected_latency_us: summary.uncorrected_latency_us,
        send_lateness_us: summary.send_lateness_us,
        server_cpu_us_per_request: usage.server_us_per_request(),
        client_cpu_us_per_request: usage.client_us_per_request(),
        machine_cpu_us_per_request: usage.machine_us_per_request(),
        client_busy: usage.client_busy(),
        syscalls_per_request: None,
        server_wakeups,
        peak_rss_kib: server.peak_memory_kib().transpose()?,
        bottleneck: usage.bottleneck(),
        usage: Some(usage),
        noise: None,
        io_workers: server.io_workers(),
    })
}

/// Syscalls per request over a short separate run, so perf's tracepoint does not slow
/// the measured one. `None` when perf is unavailable or the server is external.
pub fn syscalls_per_request(server: &Server, load: Load) -> Option<f64> {
    let counter = SyscallCounter::start(server.pid()?)?;
    let short = Load {
        duration: load.duration.min(Duration::from_secs(2)),
        // Every request counted is then measured, so the count divides all the syscalls.
        warmup: Duration::ZERO,
        ..load
    };
    let point = run_point(server, short).ok();
    let syscalls = counter.stop()?;
    point.map(|p| syscalls as f64 / p.requests.max(1) as f64)
}

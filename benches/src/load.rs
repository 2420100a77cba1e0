//! One measured point of the long-running studies (the sweep, the ablation, the
//! large-body study): a [`Load`] of some [`LoadKind`] run by loadgen against one server,
//! with server CPU, peak RSS and the bottleneck beside its requests/s and latency.

use std::time::Duration;

use loadgen::run::{Config, Percentiles};
use serde::Serialize;

use crate::cpu::measure;
use crate::perf::SyscallCounter;
use crate::servers::Server;
use crate::settings::Pinning;
use crate::usage::Usage;

/// How the client drives a point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LoadKind {
    /// Each connection sends its next request when the answer arrives.
    Closed,
    /// Each connection keeps several requests in flight.
    Pipelined,
    /// Requests leave at a fixed rate, late ones measured from their intended send time.
    Open,
    /// A closed loop of `POST /payload` echoes.
    Echo,
}

impl LoadKind {
    pub fn name(self) -> &'static str {
        match self {
            LoadKind::Closed => "closed",
            LoadKind::Pipelined => "pipelined",
            LoadKind::Open => "open",
            LoadKind::Echo => "echo",
        }
    }
}

/// One load on one server, measured.
#[derive(Debug, Clone, Serialize)]
pub struct Point {
    pub contender: String,
    pub label: String,
    pub kind: LoadKind,
    pub connections: usize,
    pub depth: usize,
    pub rate: Option<f64>,
    pub requests: u64,
    pub requests_per_sec: f64,
    pub latency_us: Percentiles,
    pub server_cpu_us_per_request: Option<f64>,
    pub client_cpu_us_per_request: f64,
    pub syscalls_per_request: Option<f64>,
    pub peak_rss_kib: Option<u64>,
    pub bottleneck: String,
}

/// A `POST /payload` of `bytes` (chunked in `chunk`-byte pieces if set), echoed back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Post {
    pub bytes: usize,
    pub chunk: Option<usize>,
}

/// How one point loads a server.
#[derive(Debug, Clone, Copy)]
pub struct Load {
    pub kind: LoadKind,
    /// `None`: `GET /`.
    pub post: Option<Post>,
    pub connections: usize,
    pub depth: usize,
    pub rate: Option<f64>,
    pub duration: Duration,
    pub client_threads: usize,
    pub server_cpus: usize,
}

impl Load {
    /// A load with the client threads and server CPUs that `pinning` gives.
    pub fn new(
        kind: LoadKind,
        (connections, depth): (usize, usize),
        rate: Option<f64>,
        duration: Duration,
        pinning: &Pinning,
    ) -> Load {
        Load {
            kind,
            post: None,
            connections,
            depth,
            rate,
            duration,
            client_threads: pinning.client_cpus().max(1),
            server_cpus: pinning.server_cpus(),
        }
    }
}

/// Runs one point against one server; any wrong response fails the sweep.
pub fn run_point(server: &Server, load: Load) -> Result<Point, String> {
    let target = match load.post {
        Some(post) => loadgen::target::post(&format!("{}/payload", server.base_url), post.bytes, post.chunk)?,
        None => loadgen::target::parse(&format!("{}/", server.base_url))?,
    };
    let config = Config {
        addr: target.addr,
        request: target.request,
        connections: load.connections,
        threads: load.client_threads,
        depth: load.depth,
        duration: load.duration,
        max_requests: None,
        rate: load.rate,
        expect_status: 200,
        expect_body_len: Some(load.post.map_or(http_core::routes::HELLO.len(), |p| p.bytes)),
        expect_body: None,
    };
    let (summary, spent) = measure(server.pid(), || loadgen::run::run(config));
    let summary = summary?;
    if let Some(error) = summary.first_error {
        return Err(format!(
            "{} at {} connections: {error}",
            server.contender.label, load.connections
        ));
    }
    let usage = Usage {
        requests: summary.requests,
        wall_s: spent.wall.as_secs_f64(),
        server_cpu_s: spent.server.map(|d| d.as_secs_f64()),
        client_cpu_s: spent.client.as_secs_f64(),
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
        requests_per_sec: summary.requests_per_sec,
        latency_us: summary.latency_us,
        server_cpu_us_per_request: usage.server_us_per_request(),
        client_cpu_us_per_request: usage.client_us_per_request(),
        syscalls_per_request: None,
        peak_rss_kib: server.pid().and_then(peak_rss_kib),
        bottleneck: usage.bottleneck(),
    })
}

/// Syscalls per request over a short separate run, so perf's tracepoint does not slow
/// the measured one. `None` when perf is unavailable or the server is external.
pub fn syscalls_per_request(server: &Server, load: Load) -> Option<f64> {
    let counter = SyscallCounter::start(server.pid()?)?;
    let short = Load {
        duration: load.duration.min(Duration::from_secs(2)),
        ..load
    };
    let point = run_point(server, short).ok();
    let syscalls = counter.stop()?;
    point.map(|p| syscalls as f64 / p.requests.max(1) as f64)
}

fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

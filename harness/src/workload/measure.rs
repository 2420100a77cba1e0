//! Runs one workload against one server and turns what loadgen and the CPU counters saw
//! into a [`Sample`]: in one go ([`run`]), or as slices ([`point`]) merged into one
//! ([`finish`], see [`crate::slices`]).

use std::time::Duration;

use loadgen::idle::IdleConnections;
use loadgen::response::Expect;

use super::samples::Sample;
use super::{Shape, Unit, Workload};
use crate::load::{self, Ask, Load, LoadKind, Point, Post};
use crate::servers::Server;
use crate::settings::Pinning;

/// Where a sample sits in the study.
#[derive(Debug, Clone, Copy)]
pub struct Slot {
    pub round: usize,
    pub duration: Duration,
    /// Count syscalls in a separate run (first round only, and where the workload asks).
    pub count_syscalls: bool,
}

/// Measures `workload` on `server`; any wrong answer fails the study.
pub fn run(server: &Server, workload: &Workload, slot: Slot, pinning: &Pinning) -> Result<Sample, String> {
    if let Shape::Idle { count, active } = workload.shape {
        return idle(server, workload, slot, pinning, (count, active));
    }
    let point = point(server, workload, slot.duration, pinning)?;
    finish(server, workload, slot, pinning, point)
}

/// One slice of `workload` (not an idle one) on `server`, `duration` long.
pub fn point(
    server: &Server,
    workload: &Workload,
    duration: Duration,
    pinning: &Pinning,
) -> Result<Point, String> {
    load::run_point(server, load_of(workload.shape, duration, pinning))
}

/// The sample of `server`'s `point` of `workload` (its slices merged:
/// [`crate::slices::interleave`]); syscalls counted in a separate run where `slot` asks.
pub fn finish(
    server: &Server,
    workload: &Workload,
    slot: Slot,
    pinning: &Pinning,
    point: Point,
) -> Result<Sample, String> {
    let syscalls = if slot.count_syscalls && workload.counts_syscalls() {
        load::syscalls_per_request(server, load_of(workload.shape, slot.duration, pinning))
    } else {
        None
    };
    let value = match workload.unit() {
        Unit::CpuPerRequest | Unit::CpuPerConnection => point.server_cpu_us_per_request,
        Unit::LatencyP50 => Some(point.latency_us.p50 as f64),
        Unit::RequestsPerSec => Some(point.requests_per_sec),
        Unit::BytesPerIdleConnection => unreachable!("idle workloads return above"),
    };
    Ok(sample(workload, slot.round, value, syscalls, point))
}

/// The loadgen load a shape stands for.
fn load_of(shape: Shape, duration: Duration, pinning: &Pinning) -> Load {
    let closed = |connections, ask| Load {
        ask,
        ..Load::new(LoadKind::Closed, (connections, 1), None, duration, pinning)
    };
    match shape {
        Shape::KeepAlive { connections } | Shape::SmallService { connections } => {
            closed(connections, Ask::Hello)
        }
        Shape::Pipelined { connections, depth } => {
            Load::new(LoadKind::Pipelined, (connections, depth), None, duration, pinning)
        }
        Shape::OneConnection => closed(1, Ask::Hello),
        Shape::Echo { bytes, connections } => Load {
            ask: Ask::Echo(Post { bytes, chunk: None }),
            ..Load::new(LoadKind::Echo, (connections, 1), None, duration, pinning)
        },
        Shape::Response { bytes, connections } => closed(connections, Ask::Bytes(bytes)),
        Shape::Churn { closes, clients } => Load {
            churn: Some(closes),
            ..Load::new(LoadKind::Churn, (clients, 1), None, duration, pinning)
        },
        Shape::Idle { active, .. } => closed(active, Ask::Hello),
    }
}

/// Holds `count` idle connections on a fresh `server`, reads how much its resident memory
/// grew, then runs the `active` closed loop beside them.
fn idle(
    server: &Server,
    workload: &Workload,
    slot: Slot,
    pinning: &Pinning,
    (count, active): (usize, usize),
) -> Result<Sample, String> {
    let target = loadgen::target::parse(&format!("{}/", server.base_url))?;
    let expect = Expect {
        status: 200,
        body_len: Some(http_core::routes::HELLO.len()),
    };
    let before = server
        .pid()
        .map(|pid| load::status_kib(pid, "VmRSS"))
        .transpose()?;
    let held = IdleConnections::open(target.addr, count, &target.request, expect)?;
    std::thread::sleep(SETTLE);
    let after = server
        .pid()
        .map(|pid| load::status_kib(pid, "VmRSS"))
        .transpose()?;
    let grown = before
        .zip(after)
        .map(|(before, after)| after.saturating_sub(before) as f64 * 1024.0 / count as f64);
    let point = load::run_point(
        server,
        load_of(Shape::Idle { count, active }, slot.duration, pinning),
    )?;
    if held.closed() > 0 {
        return Err(format!(
            "{}: {} of {count} idle connections were closed during the load",
            server.contender.label,
            held.closed()
        ));
    }
    Ok(sample(workload, slot.round, grown, None, point))
}

/// How long the server may take to finish setting up the connections it accepted.
const SETTLE: Duration = Duration::from_millis(300);

fn sample(
    workload: &Workload,
    round: usize,
    value: Option<f64>,
    syscalls: Option<f64>,
    point: Point,
) -> Sample {
    Sample {
        workload: workload.name.into(),
        contender: point.contender,
        label: point.label,
        round,
        position: 0,
        started_unix_s: 0.0,
        value,
        server_cpu_us: point.server_cpu_us_per_request,
        machine_cpu_us: point.machine_cpu_us_per_request,
        requests_per_sec: point.requests_per_sec,
        p99_us: point.latency_us.p99,
        syscalls_per_request: syscalls,
        bottleneck: point.bottleneck,
    }
}

//! Runs one workload against one server (a file workload flat out to calibrate its rate),
//! at its rate under `perf record`, turning the samples and /proc's CPU accounting into a
//! [`Profile`] and a flame graph.

use std::path::Path;
use std::time::Duration;

use crate::profiles::record::{self, PERIOD_NS, Recording};
use crate::profiles::{Breakdown, Profile, Shape, Workload, flame};
use harness::load::{self, Ask, Load, LoadKind, Point};
use harness::servers::Server;
use harness::settings::Pinning;

/// The loadgen load of a file workload (`set`, `connections`): at `rate` per second, or
/// flat out when `None`. A verdict row's load is the harness's ([`point`]).
pub fn file_load(
    (set, connections): (&'static str, usize),
    rate: Option<f64>,
    duration: Duration,
    pinning: &Pinning,
) -> Load {
    let kind = match rate {
        Some(_) => LoadKind::Open,
        None => LoadKind::Closed,
    };
    Load {
        ask: Ask::File { set, seed: 1 },
        ..Load::new(kind, (connections, 1), rate, duration, pinning)
    }
}

/// One run of `workload` on `server` at `rate` (closed loop when `None`): a verdict row's
/// exactly as the workloads study measures it ([`harness::workload::measure::point`]).
pub fn point(
    server: &Server,
    workload: &Workload,
    rate: Option<f64>,
    duration: Duration,
    pinning: &Pinning,
) -> Result<Point, String> {
    match workload.shape {
        Shape::Row { .. } => {
            let row = workload.row().expect("a row workload has a row");
            harness::workload::measure::point(server, &row, duration, rate, pinning)
        }
        Shape::File { set, connections, .. } => {
            load::run_point(server, file_load((set, connections), rate, duration, pinning))
        }
    }
}

/// What `server` sustains of a file workload flat out over `duration`, per second (a
/// verdict row's rate comes from [`crate::profiles::rate`] instead).
pub fn calibrate(
    server: &Server,
    workload: &Workload,
    duration: Duration,
    pinning: &Pinning,
) -> Result<f64, String> {
    Ok(point(server, workload, None, duration, pinning)?.requests_per_sec)
}

/// Where a profile's files go: perf data and folded stacks in `scratch`, the flame graph
/// under `results`.
pub struct Dirs<'a> {
    pub scratch: &'a Path,
    pub results: &'a Path,
}

/// Profiles `server` serving `workload` at `rate` (closed loop when `None`) for `duration`.
pub fn profile(
    server: &Server,
    workload: &Workload,
    rate: Option<f64>,
    duration: Duration,
    pinning: &Pinning,
    dirs: &Dirs,
) -> Result<Profile, String> {
    let label = server.contender.label;
    let pid = server.pid().ok_or_else(|| {
        format!("{label}: profiles need a server this study starts (unset its BENCH_*_URL)")
    })?;
    let name = format!("{}_{}", workload.slug, server.contender.id);
    let data = dirs.scratch.join(format!("{name}.data"));
    let recording = Recording::start(pinning.server.as_ref(), &data)?;
    let point = point(server, workload, rate, duration, pinning);
    let recorded = recording.stop()?;
    let point = point?;
    let (folded, span) = record::fold(&recorded.data)?;
    let _ = std::fs::remove_file(&recorded.data);
    std::fs::write(dirs.scratch.join(format!("{name}.folded")), &folded).map_err(|e| e.to_string())?;
    let stacks = record::parse(&folded);
    let breakdown = Breakdown::of(&stacks, pid, PERIOD_NS);
    if breakdown.server_samples() == 0 {
        return Err(format!(
            "{label}: perf took no sample of the server at {}",
            workload.name
        ));
    }
    let server_cpu_us = point
        .server_cpu_us_per_request
        .ok_or_else(|| format!("{label}: no server CPU was measured"))?;
    let svg = format!("profiles/{name}.svg");
    let title = format!("{label}: {}", workload.name);
    flame::write(&title, &stacks, pid, &dirs.results.join(&svg))?;
    Ok(Profile {
        workload: workload.name.into(),
        contender: server.contender.id.into(),
        label: label.into(),
        offered_per_sec: rate,
        served_per_sec: point.requests_per_sec,
        requests: point.requests_in_window,
        p99_us: point.latency_us.p99,
        server_cpu_us,
        cost_us: breakdown.costs(server_cpu_us),
        timer_delivered: span
            .map(|span| breakdown.all_samples() as f64 / record::expected_samples(span, recorded.cpus)),
        breakdown,
        flame_graph: svg,
        client_busy: Some(point.client_busy),
        counts: None,
    })
}

//! Runs one workload against one server and turns what loadgen and the CPU counters saw
//! into a [`Sample`]: in one go ([`run`]), or as slices ([`point`]) merged into one
//! ([`finish`], see [`crate::slices`]).

use std::time::Duration;

use loadgen::churn::Churn;
use loadgen::idle::IdleConnections;
use loadgen::response::Expect;
use loadgen::tls::Handshakes;

use super::samples::Sample;
use super::{Shape, Unit, Workload, offered};
use crate::load::{self, Ask, Load, LoadKind, Point, Post};
use crate::memory_group::MemoryGroup;
use crate::servers::Server;
use crate::settings::Pinning;

/// Where a sample sits in the study.
#[derive(Debug, Clone, Copy)]
pub struct Slot {
    pub round: usize,
    pub duration: Duration,
    /// The rate an offered workload runs at, requests/s.
    pub offered: Option<f64>,
    /// Count syscalls in a separate run (first round only, and where the workload asks).
    pub count_syscalls: bool,
    /// The slices the point is cut into ([`crate::slices`]): each ends with up to one
    /// request per connection in flight, and holds one slot of the schedule more or less
    /// than its mean, which [`offered::keeps_up`] does not count against the server
    /// ([`offered::owed`]).
    pub slices: usize,
}

/// Measures `workload` on `server`; any wrong answer fails the study.
pub fn run(server: &Server, workload: &Workload, slot: Slot, pinning: &Pinning) -> Result<Sample, String> {
    if let Shape::Idle { count, active } = workload.shape {
        return idle(server, workload, slot, pinning, (count, active));
    }
    let point = point(server, workload, slot.duration, slot.offered, pinning)?;
    finish(server, workload, Slot { slices: 1, ..slot }, pinning, point)
}

/// One slice of `workload` (not an idle one) on `server`, `duration` long; an offered
/// workload ([`Shape::Offered`]) at `offered` requests/s.
pub fn point(
    server: &Server,
    workload: &Workload,
    duration: Duration,
    offered: Option<f64>,
    pinning: &Pinning,
) -> Result<Point, String> {
    let load = match (workload.shape, offered) {
        (Shape::Offered { .. }, Some(rate)) => {
            fixed_rate_load(workload, rate, duration, pinning).expect("an offered workload")
        }
        (Shape::Offered { .. }, None) => {
            return Err(format!("{}: no rate was calibrated for it", workload.name));
        }
        (shape, _) => load_of(shape, duration, pinning),
    };
    super::page_cache::before_slice(workload)?;
    load::run_point(server, load)
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
        Unit::LatencyP50 => Some(point.median_us.unwrap_or(point.latency_us.p50 as f64)),
        Unit::LatencyP99 => Some(point.latency_us.p99 as f64),
        Unit::RequestsPerSec => Some(point.requests_per_sec),
        Unit::BytesPerIdleConnection => unreachable!("idle workloads return above"),
    };
    // What an open loop served on schedule; a server that kept up misses only the answers
    // still in flight when each slice's window closed, and the slot that a window's
    // rounding may leave out.
    let served = offered::served(&point, slot.duration);
    let owed = offered::owed(&point, slot.slices, slot.duration);
    let value = match slot.offered {
        Some(rate) if !offered::keeps_up(rate, served, owed) => None,
        _ => value,
    };
    let mut sample = sample(workload, slot.round, value, syscalls, point);
    if slot.offered.is_some() {
        sample.requests_per_sec = served;
        sample.offered_per_sec = slot.offered;
    }
    Ok(sample)
}

/// The open loop an offered workload ([`Shape::Offered`]) runs at `rate` requests/s, each
/// slice `duration` long; `None` for a workload of any other shape.
pub fn fixed_rate_load(
    workload: &Workload,
    rate: f64,
    duration: Duration,
    pinning: &Pinning,
) -> Option<Load> {
    match workload.shape {
        Shape::Offered { of, .. } => Some(at_rate(offered::base(of).shape, rate, duration, pinning)),
        _ => None,
    }
}

/// `shape`'s load (keep-alive, echo, uploads, large responses, files, churn or short-lived
/// connections, plain or over TLS) as an open loop at `rate` requests/s; not pipelining,
/// which loadgen's open loop does not offer (one request at a time per connection).
fn at_rate(shape: Shape, rate: f64, duration: Duration, pinning: &Pinning) -> Load {
    let flat_out = load_of(shape, duration, pinning);
    let kind = match flat_out.kind {
        LoadKind::Churn => LoadKind::Churn,
        _ => LoadKind::Open,
    };
    let warmup = match flat_out.tls {
        Some(_) => load::open_loop_warmup(duration).max(tls_warmup(flat_out.connections)),
        None => load::open_loop_warmup(duration),
    };
    Load {
        kind,
        rate: Some(rate),
        warmup,
        ..flat_out
    }
}

/// The open loop's warm-up over TLS for `connections`, at least: each connection's
/// schedule starts once its handshake is done, so the measured window must open after the
/// last one. A handshake costs each side about 0.2-0.3 ms of CPU here (the TLS churn rows),
/// and the VM's speed drifts up to 3x: 250 ms, and 2 ms more per connection.
fn tls_warmup(connections: usize) -> Duration {
    Duration::from_millis(250) + Duration::from_millis(2) * connections as u32
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
        Shape::OneConnection { tls, busy_poll } => Load {
            tls: tls.then_some(Handshakes::Resumed),
            busy_poll,
            ..closed(1, Ask::Hello)
        },
        Shape::Echo {
            bytes,
            connections,
            chunk,
        } => Load {
            ask: Ask::Echo(Post { bytes, chunk }),
            ..Load::new(LoadKind::Echo, (connections, 1), None, duration, pinning)
        },
        Shape::Response { bytes, connections } => closed(connections, Ask::Bytes(bytes)),
        Shape::Handler { micros, connections } => closed(connections, Ask::Work(micros)),
        Shape::Upload { bytes, connections } => closed(connections, Ask::Upload(bytes)),
        Shape::Files { set, connections, .. } => closed(connections, Ask::File { set, seed: 1 }),
        Shape::Churn { closes, clients } => Load {
            churn: Some(closes),
            ..Load::new(LoadKind::Churn, (clients, 1), None, duration, pinning)
        },
        Shape::ShortLived { requests, clients } => Load {
            churn: Some(Churn::ClientCloses),
            requests_per_connection: requests,
            ..Load::new(LoadKind::Churn, (clients, 1), None, duration, pinning)
        },
        Shape::TlsKeepAlive { connections } => Load {
            tls: Some(Handshakes::Resumed),
            ..closed(connections, Ask::Hello)
        },
        Shape::TlsChurn { handshakes, clients } => Load {
            churn: Some(Churn::ClientCloses),
            tls: Some(handshakes),
            ..Load::new(LoadKind::Churn, (clients, 1), None, duration, pinning)
        },
        Shape::Idle { active, .. } => closed(active, Ask::Hello),
        Shape::Offered { of, .. } => load_of(offered::base(of).shape, duration, pinning),
    }
}

/// Holds `count` idle connections on a fresh `server` and reads how much memory they
/// cost it: in a cgroup of its own where this machine allows ([`MemoryGroup`]: its pages
/// and the kernel's sockets, epoll entries and io_uring requests), else its resident
/// pages alone; then runs the `active` closed loop beside them.
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
    let group = match server.pid().map(MemoryGroup::join) {
        Some(Ok(group)) => Some(group),
        Some(Err(error)) => {
            static SAID: std::sync::Once = std::sync::Once::new();
            SAID.call_once(|| eprintln!("idle memory: resident pages only ({error})"));
            None
        }
        None => None,
    };
    let before = Memory::read(server, group.as_ref())?;
    let held = IdleConnections::open(target.addr, count, &target.request, expect)?;
    std::thread::sleep(SETTLE);
    let after = Memory::read(server, group.as_ref())?;
    let per_connection = |before: Option<u64>, after: Option<u64>| {
        before
            .zip(after)
            .map(|(before, after)| after.saturating_sub(before) as f64 / count as f64)
    };
    let rss = per_connection(before.rss, after.rss);
    let grown = per_connection(before.group, after.group).or(rss);
    let point = load::run_point(
        server,
        load_of(Shape::Idle { count, active }, slot.duration, pinning),
    )?;
    drop(group);
    if held.closed() > 0 {
        return Err(format!(
            "{}: {} of {count} idle connections were closed during the load",
            server.contender.label,
            held.closed()
        ));
    }
    let mut sample = sample(workload, slot.round, grown, None, point);
    sample.rss_bytes_per_idle = rss;
    sample.kernel_included = Some(before.group.is_some());
    Ok(sample)
}

/// A server's memory at one moment, in bytes: its cgroup's charge and its resident pages.
struct Memory {
    group: Option<u64>,
    rss: Option<u64>,
}

impl Memory {
    fn read(server: &Server, group: Option<&MemoryGroup>) -> Result<Memory, String> {
        Ok(Memory {
            group: group.map(MemoryGroup::bytes).transpose()?,
            rss: server.memory_kib().transpose()?.map(|kib| kib * 1024),
        })
    }
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
        p999_us: Some(point.latency_us.p999),
        hiccup_p99_us: None,
        syscalls_per_request: syscalls,
        wakeups_per_request: point
            .server_wakeups
            .map(|wakeups| wakeups as f64 / point.requests_in_window.max(1) as f64),
        bottleneck: point.bottleneck,
        client_busy: Some(point.client_busy),
        send_lateness_p50_us: point.send_lateness_us.map(|lateness| lateness.p50 as f64),
        offered_per_sec: None,
        rss_bytes_per_idle: None,
        kernel_included: None,
        io_workers: point.io_workers,
    }
}

#[cfg(test)]
#[path = "measure_tests.rs"]
mod tests;

//! `scripts/sweep.sh`: the sustained-load sweep over every contender. Writes
//! `results/sweep.json`, `results/sweep.md` and three SVG plots. Pinning and external
//! servers work as for `cargo bench` (`BENCH_SERVER_CPUS`, `BENCH_CLIENT_CPUS`,
//! `BENCH_*_URL`); `--server-cpus`, `--client-cpus` and `--server-threads` set them on
//! the command line. The floors (`benches::servers::FLOORS`) run at the detail points
//! only, beside the contenders.

use std::time::Duration;

use benches::affinity::CpuSet;
use benches::load::{self, Load, LoadKind, Point};
use benches::machine::Machine;
use benches::servers::{CONTENDERS, FLOORS, Lineup, Server};
use benches::settings::Pinning;
use benches::sweep::{
    self, CONNECTIONS, DETAIL_CONNECTIONS, OPEN_LOOP_CONNECTIONS, OPEN_LOOP_SHARES, PIPELINE_DEPTH,
    SweepReport,
};
use clap::Parser;

/// The sustained-load sweep: closed loops over a range of connections, pipelining, and
/// an open loop at fixed rates, for every contender, interleaved point by point; the
/// floors (bare hyper, bare tokio and bare io_uring loops) at the 256-connection closed
/// point and the pipelined point.
#[derive(Parser, Debug)]
#[command(version)]
struct Cli {
    /// Seconds per point.
    #[arg(long, env = "SWEEP_SECONDS", default_value_t = 5.0)]
    seconds: f64,
    /// CPUs the servers are pinned to, e.g. `0` or `0-3` (default: the first available).
    #[arg(long, env = "BENCH_SERVER_CPUS", value_parser = CpuSet::parse)]
    server_cpus: Option<CpuSet>,
    /// CPUs the client runs on (default: every available CPU the servers do not use).
    #[arg(long, env = "BENCH_CLIENT_CPUS", value_parser = CpuSet::parse)]
    client_cpus: Option<CpuSet>,
    /// Threads each server runs (default: one per server CPU); with more cores, run the
    /// sweep once per count to see how each server scales from 1 to N threads.
    #[arg(long)]
    server_threads: Option<std::num::NonZeroUsize>,
}

fn main() {
    benches::tool::main("sweep", run);
}

fn run(cli: Cli) -> Result<(), String> {
    let pinning = Pinning::choose(&CpuSet::current(), cli.server_cpus, cli.client_cpus);
    let everyone: Vec<_> = CONTENDERS.iter().chain(&FLOORS).copied().collect();
    let threads = cli.server_threads.map(std::num::NonZeroUsize::get);
    let lineup = Lineup::start_with(&everyone, pinning, threads)?;
    let contenders = &lineup.servers[..CONTENDERS.len()];
    let duration = Duration::from_secs_f64(cli.seconds);
    let load = |kind, connections, depth, rate| {
        Load::new(kind, (connections, depth), rate, duration, &lineup.pinning)
    };

    let mut points: Vec<Point> = Vec::new();
    for connections in CONNECTIONS {
        let closed = load(LoadKind::Closed, connections, 1, None);
        let detail = connections == DETAIL_CONNECTIONS;
        let servers = if detail { &lineup.servers[..] } else { contenders };
        run_all(servers, closed, &mut points, detail)?;
    }
    let pipelined = load(LoadKind::Pipelined, DETAIL_CONNECTIONS, PIPELINE_DEPTH, None);
    run_all(&lineup.servers, pipelined, &mut points, true)?;
    let slowest_peak = contenders
        .iter()
        .map(|s| {
            points
                .iter()
                .filter(|p| p.contender == s.contender.id && p.kind == LoadKind::Closed)
                .map(|p| p.requests_per_sec)
                .fold(0.0, f64::max)
        })
        .fold(f64::INFINITY, f64::min);
    for share in OPEN_LOOP_SHARES {
        let rate = Some((slowest_peak * share).round());
        let open = load(LoadKind::Open, OPEN_LOOP_CONNECTIONS, 1, rate);
        run_all(contenders, open, &mut points, false)?;
    }
    drop(lineup.servers);
    let report = SweepReport {
        machine: Machine::detect(),
        pinning: format!(
            "{}, {} server thread{}",
            lineup.pinning.describe(),
            lineup.server_threads,
            if lineup.server_threads == 1 { "" } else { "s" }
        ),
        seconds_per_point: cli.seconds,
        slowest_peak,
        points,
    };
    sweep::report::write_all(&lineup.workspace.join("results"), &report)?;
    println!("sweep written: results/sweep.md, results/sweep.json, results/sweep_*.svg");
    Ok(())
}

/// Runs `load` against every server in turn, with syscall counts if `syscalls`.
fn run_all(servers: &[Server], load: Load, points: &mut Vec<Point>, syscalls: bool) -> Result<(), String> {
    for server in servers {
        eprintln!(
            "sweep: {} {} c={} d={} rate={:?}",
            server.contender.label,
            load.kind.name(),
            load.connections,
            load.depth,
            load.rate
        );
        let mut point = load::run_point(server, load)?;
        if syscalls {
            point.syscalls_per_request = load::syscalls_per_request(server, load);
        }
        points.push(point);
    }
    Ok(())
}

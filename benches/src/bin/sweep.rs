//! `scripts/sweep.sh`: the sustained-load sweep over every contender. Writes
//! `results/sweep.json`, `results/sweep.md` and three SVG plots. nginx, when installed,
//! runs every point beside them as an outside anchor (not in the open loop's rates). Pinning and external
//! servers work as for `cargo bench` (`BENCH_SERVER_CPUS`, `BENCH_CLIENT_CPUS`,
//! `BENCH_*_URL`).

use std::time::Duration;

use benches::load::{self, Load, LoadKind, Point};
use benches::machine::Machine;
use benches::nginx::with_anchors;
use benches::servers::{CONTENDERS, Lineup, Server};
use benches::sweep::{
    self, CONNECTIONS, DETAIL_CONNECTIONS, OPEN_LOOP_CONNECTIONS, OPEN_LOOP_SHARES, PIPELINE_DEPTH,
    SweepReport,
};
use clap::Parser;

/// The sustained-load sweep: closed loops over a range of connections, pipelining, and
/// an open loop at fixed rates, for every contender, interleaved point by point.
#[derive(Parser, Debug)]
#[command(version)]
struct Cli {
    /// Seconds per point.
    #[arg(long, env = "SWEEP_SECONDS", default_value_t = 5.0)]
    seconds: f64,
}

fn main() {
    benches::tool::main("sweep", run);
}

fn run(cli: Cli) -> Result<(), String> {
    let lineup = Lineup::start(&with_anchors(&CONTENDERS))?;
    let duration = Duration::from_secs_f64(cli.seconds);
    let load = |kind, connections, depth, rate| {
        Load::new(kind, (connections, depth), rate, duration, &lineup.pinning)
    };

    let mut points: Vec<Point> = Vec::new();
    for connections in CONNECTIONS {
        let closed = load(LoadKind::Closed, connections, 1, None);
        run_all(
            &lineup.servers,
            closed,
            &mut points,
            connections == DETAIL_CONNECTIONS,
        )?;
    }
    let pipelined = load(LoadKind::Pipelined, DETAIL_CONNECTIONS, PIPELINE_DEPTH, None);
    run_all(&lineup.servers, pipelined, &mut points, true)?;
    let slowest_peak = lineup
        .servers
        .iter()
        .filter(|s| !s.contender.is_anchor())
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
        run_all(&lineup.servers, open, &mut points, false)?;
    }
    drop(lineup.servers);
    let report = SweepReport {
        machine: Machine::detect(),
        pinning: lineup.pinning.describe(),
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

//! `scripts/sweep.sh`: the sustained-load sweep over every contender. Writes
//! `results/sweep.json`, `results/sweep.md` (compared with the `sweep.json` it replaces)
//! and the SVG plots. nginx, when installed, runs every point beside them as an outside
//! anchor (not in the open loop's rates); the floors (`harness::servers::FLOORS`) run at
//! the detail points only. Where the servers and the client run, and servers of yours
//! beside ours (at every point but the floors', outside the open loop's rates):
//! [`lab::placement`]; `--server-threads` sets the threads apart from the server CPUs.

use std::num::NonZeroUsize;
use std::time::Duration;

use clap::Parser;
use harness::load::{self, Load, LoadKind, Point};
use harness::machine::Machine;
use harness::noise;
use harness::progress::Progress;
use harness::rounds::balanced;
use harness::servers::nginx::with_anchors;
use harness::servers::outside::OUTSIDE_PACKAGE;
use harness::servers::{CONTENDERS, FLOORS, Lineup, SCHEDULER, Server};
use harness::settings::Pinning;
use harness::steal::STEAL_LIMIT;
use lab::placement::Placement;
use lab::sweep::{
    self, CONNECTIONS, DETAIL_CONNECTIONS, OPEN_LOOP_CONNECTIONS, OPEN_LOOP_SHARES, PIPELINE_DEPTH,
    SweepReport, stability,
};

/// The sustained-load sweep: closed loops over a range of connections, pipelining, and
/// an open loop at fixed rates in rounds, for every contender, interleaved point by point,
/// with steal per point and a hiccup meter on each CPU during the open loop; the floors
/// (bare hyper, bare tokio and bare io_uring loops) at the 256-connection closed point and
/// the pipelined point.
#[derive(Parser, Debug)]
#[command(version)]
struct Cli {
    /// Seconds per point.
    #[arg(long, env = "SWEEP_SECONDS", default_value_t = 2.0)]
    seconds: f64,
    /// Rounds of the open loop at each rate; the contenders' order rotates each round.
    #[arg(long, env = "SWEEP_OPEN_ROUNDS", default_value_t = 3)]
    open_rounds: usize,
    /// Threads each server runs (default: one per server CPU); with more cores, run the
    /// sweep once per count to see how each server scales from 1 to N threads.
    #[arg(long)]
    server_threads: Option<NonZeroUsize>,
    #[command(flatten)]
    placement: Placement,
}

fn main() {
    harness::tool::main("sweep", run);
}

fn run(cli: Cli) -> Result<(), String> {
    cli.placement.clean_tree()?;
    if cli.open_rounds == 0 {
        return Err("--open-rounds must be at least 1".into());
    }
    let pinning = cli.placement.pinning();
    // tokio's default scheduler beside the current-thread engines: the scan shows both.
    let scanned: Vec<_> = CONTENDERS.iter().chain(&SCHEDULER).copied().collect();
    let main = cli.placement.with_yours(&with_anchors(&scanned))?;
    let everyone: Vec<_> = main.iter().chain(&FLOORS).copied().collect();
    let threads = cli.server_threads.map(NonZeroUsize::get);
    let lineup = Lineup::start_with(&everyone, pinning, threads)?;
    // The contenders and the anchor; the floors follow them in the lineup.
    let contenders = &lineup.servers[..main.len()];
    let duration = Duration::from_secs_f64(cli.seconds);
    let load = |kind, connections, depth, rate| {
        Load::new(kind, (connections, depth), rate, duration, &lineup.pinning)
    };

    let (main_count, all_count) = (contenders.len(), lineup.servers.len());
    let steps = CONNECTIONS.len() * main_count
        + (all_count - main_count)
        + all_count
        + cli.open_rounds * OPEN_LOOP_SHARES.len() * main_count;
    // A point, its start-up, and on average its share of warm-ups and syscall counts.
    let step = Duration::from_secs_f64(cli.seconds * 1.15 + 0.7);
    let mut progress = Progress::start("sweep", steps, step);
    let mut points: Vec<Point> = Vec::new();
    for connections in CONNECTIONS {
        let closed = load(LoadKind::Closed, connections, 1, None);
        let detail = connections == DETAIL_CONNECTIONS;
        let servers = if detail { &lineup.servers[..] } else { contenders };
        run_all(
            servers,
            &lineup.pinning,
            closed,
            &mut points,
            (detail, 0),
            &mut progress,
        )?;
    }
    let pipelined = load(LoadKind::Pipelined, DETAIL_CONNECTIONS, PIPELINE_DEPTH, None);
    run_all(
        &lineup.servers,
        &lineup.pinning,
        pipelined,
        &mut points,
        (true, 0),
        &mut progress,
    )?;
    let slowest_peak = contenders
        .iter()
        .filter(|s| !s.contender.is_anchor() && s.contender.package != OUTSIDE_PACKAGE)
        .map(|s| {
            points
                .iter()
                .filter(|p| p.contender == s.contender.id && p.kind == LoadKind::Closed)
                .map(|p| p.requests_per_sec)
                .fold(0.0, f64::max)
        })
        .fold(f64::INFINITY, f64::min);
    for round in 0..cli.open_rounds {
        for share in OPEN_LOOP_SHARES {
            let rate = Some((slowest_peak * share).round());
            let open = load(LoadKind::Open, OPEN_LOOP_CONNECTIONS, 1, rate);
            run_all(
                contenders,
                &lineup.pinning,
                open,
                &mut points,
                (false, round),
                &mut progress,
            )?;
        }
    }
    progress.finish();
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
        open_rounds: cli.open_rounds,
        points,
    };
    let results = cli.placement.root(&lineup.workspace, "sweep")?.join("results");
    let comparison = stability::read_previous(&results.join("sweep.json"))
        .and_then(|previous| stability::compare(&previous, &report));
    if let Err(why) = &comparison {
        eprintln!("sweep: no comparison with the previous sweep: {why}");
    }
    sweep::report::write_all(&results, &report, &comparison)?;
    println!(
        "sweep written under {}: sweep.md, sweep.json, sweep_*.svg",
        results.display()
    );
    Ok(())
}

/// Runs `load` against each of `servers` in turn, starting with the `round`th (so the
/// order rotates over rounds), with syscall counts if `syscalls`. A point whose steal
/// passes [`STEAL_LIMIT`] is measured once more, and the second measurement kept.
fn run_all(
    servers: &[Server],
    pinning: &Pinning,
    load: Load,
    points: &mut Vec<Point>,
    (syscalls, round): (bool, usize),
    progress: &mut Progress,
) -> Result<(), String> {
    for i in balanced(servers.len(), round) {
        let server = &servers[i];
        progress.step(&format!(
            "{} {} c={} d={} rate={:?}",
            server.contender.label,
            load.kind.name(),
            load.connections,
            load.depth,
            load.rate
        ));
        let mut point = measure(server, load, pinning)?;
        if let Some(noise) = point.noise.filter(|n| n.steal.too_high()) {
            progress.note(&format!(
                "sweep: {:.1}% of the point stolen (above {:.0}%): measuring it again",
                noise.steal.worst() * 100.0,
                STEAL_LIMIT * 100.0
            ));
            point = measure(server, load, pinning)?;
        }
        if syscalls {
            point.syscalls_per_request = load::syscalls_per_request(server, load);
        }
        points.push(point);
    }
    Ok(())
}

/// One point with the platform's noise beside it: steal always, and hiccups on both CPUs
/// for the open loop, whose latency is read against them.
fn measure(server: &Server, load: Load, pinning: &Pinning) -> Result<Point, String> {
    let hiccups = load.kind == LoadKind::Open;
    let (mut point, noise) = noise::measure(pinning, hiccups, || load::run_point(server, load))?;
    point.noise = Some(noise);
    Ok(point)
}

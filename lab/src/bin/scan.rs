//! `scripts/scan.sh`: the concurrency scan (`lab::scan`). Every contender,
//! io_uring_server with batched waits, an A/A control, the floors and nginx (when
//! installed) over a closed loop at 1 to 1024 connections, in rounds of freshly started servers whose order is balanced;
//! then loadgen calibrated against wrk (when installed) on tokio_server (codec). Writes
//! `results/scan.md`, `results/scan.json` and `results/scan_*.svg`. Pinning works as for
//! `cargo bench` (`BENCH_SERVER_CPUS`, `BENCH_CLIENT_CPUS`).

use std::time::Duration;

use clap::Parser;
use harness::load::{self, Load, LoadKind};
use harness::machine::Machine;
use harness::progress::Progress;
use harness::rounds::balanced;
use harness::servers::nginx::with_anchors;
use harness::servers::{Lineup, TOKIO_CODEC};
use harness::slices::interleave;
use lab::scan::{self, CONNECTIONS, ScanPoint, ScanReport, calibrate};

/// Seconds a point takes beyond its measurement (connecting, reading counters).
const STEP_OVERHEAD_S: f64 = 0.4;

/// The concurrency scan: closed loop at 1, 2, 4 ... 1024 connections for every server.
#[derive(Parser, Debug)]
#[command(version)]
struct Cli {
    /// Seconds per point.
    #[arg(long, env = "SCAN_SECONDS", default_value_t = 2.0)]
    seconds: f64,
    /// Rounds; each starts every server afresh, in a balanced order.
    #[arg(long, env = "SCAN_ROUNDS", default_value_t = 5)]
    rounds: usize,
    /// Slices each point is cut into, alternated with the round's other servers in passes
    /// that reverse ([`harness::slices`]); 1 measures each point in one go.
    #[arg(long, env = "SCAN_SLICES", default_value_t = 4)]
    slices: usize,
    /// Measure nothing: render results/scan.md and the plots again from this scan.json.
    #[arg(long, value_name = "JSON")]
    render: Option<std::path::PathBuf>,
}

fn main() {
    harness::tool::main("scan", run);
}

fn run(cli: Cli) -> Result<(), String> {
    if let Some(json) = &cli.render {
        let text = std::fs::read_to_string(json).map_err(|e| format!("{}: {e}", json.display()))?;
        let report: ScanReport =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", json.display()))?;
        let results = harness::servers::workspace_root().join("results");
        scan::report::write_all(&results, &report)?;
        println!(
            "scan rendered again from {}: results/scan.md, results/scan_*.svg",
            json.display()
        );
        return Ok(());
    }
    if cli.rounds == 0 || cli.seconds <= 0.0 {
        return Err("--rounds must be at least 1 and --seconds above 0".into());
    }
    let everyone = with_anchors(&scan::lineup());
    let mut lineup = Lineup::start(&everyone)?;
    let duration = Duration::from_secs_f64(cli.seconds);
    let total = cli.rounds * CONNECTIONS.len() * lineup.servers.len();
    let step = Duration::from_secs_f64(cli.seconds + STEP_OVERHEAD_S);
    let mut progress = Progress::start("scan", total + calibrate::CONNECTIONS.len(), step);
    let mut points = Vec::new();
    for round in 0..cli.rounds {
        if round > 0 {
            lineup.restart()?;
        }
        let servers = &lineup.servers;
        for (step, &connections) in CONNECTIONS.iter().enumerate() {
            let load = Load::new(
                LoadKind::Closed,
                (connections, 1),
                None,
                duration / cli.slices.max(1) as u32,
                &lineup.pinning,
            );
            let order: Vec<usize> = balanced(servers.len(), round * CONNECTIONS.len() + step).collect();
            let merged = interleave(&order, cli.slices, |i, number| {
                if number == 0 {
                    progress.step(&format!(
                        "round {}/{} {connections} connections: {}",
                        round + 1,
                        cli.rounds,
                        servers[i].contender.label
                    ));
                }
                load::run_point(&servers[i], load)
            })?;
            for (place, &i) in order.iter().enumerate() {
                points.push(ScanPoint {
                    round,
                    order: place,
                    point: merged[i].clone(),
                });
            }
        }
    }
    let calibration = match lineup.servers.iter().find(|s| s.contender.id == TOKIO_CODEC.id) {
        Some(codec) if calibrate::wrk_installed() => {
            calibrate::run(codec, &lineup.pinning, cli.seconds, &mut progress)?
        }
        _ => {
            progress.note("scan: wrk not installed (apt-get install wrk): no calibration");
            Vec::new()
        }
    };
    progress.finish();
    let report = ScanReport {
        machine: Machine::detect(),
        pinning: lineup.pinning.describe(),
        seconds_per_point: cli.seconds,
        rounds: cli.rounds,
        slices: cli.slices,
        contenders: everyone
            .iter()
            .map(|c| (c.id.to_string(), c.label.to_string()))
            .collect(),
        points,
        calibration,
    };
    drop(lineup.servers);
    scan::report::write_all(&lineup.workspace.join("results"), &report)?;
    println!("scan written: results/scan.md, results/scan.json, results/scan_*.svg");
    Ok(())
}

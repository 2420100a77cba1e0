//! `scripts/sweep.sh`: the sustained-load sweep over every contender. Writes
//! `results/sweep.json`, `results/sweep.md` and three SVG plots.
//!
//! `SWEEP_SECONDS` sets each point's length (default 5). Pinning and external servers
//! work as for `cargo bench` (`BENCH_SERVER_CPUS`, `BENCH_CLIENT_CPUS`, `BENCH_*_URL`).

use std::time::Duration;

use benches::machine::Machine;
use benches::servers::{start_contenders, workspace_root};
use benches::settings::Pinning;
use benches::sweep::{self, Load, Point};
use benches::sweep_report::{SweepReport, write_all};

fn main() {
    if let Err(message) = run() {
        eprintln!("sweep: error: {message}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let workspace = workspace_root();
    let seconds: f64 = std::env::var("SWEEP_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5.0);
    let pinning = Pinning::from_env()?;
    let servers = start_contenders(&workspace, &pinning)?;
    let duration = Duration::from_secs_f64(seconds);
    let load =
        |kind, connections, depth, rate| Load::new(kind, (connections, depth), rate, duration, &pinning);

    let mut points: Vec<Point> = Vec::new();
    let run_all = |load: Load, points: &mut Vec<Point>, syscalls: bool| -> Result<(), String> {
        for server in &servers {
            eprintln!(
                "sweep: {} {} c={} d={} rate={:?}",
                server.contender.label, load.kind, load.connections, load.depth, load.rate
            );
            let mut point = sweep::run_point(server, load)?;
            if syscalls {
                point.syscalls_per_request = sweep::syscalls_per_request(server, load);
            }
            points.push(point);
        }
        Ok(())
    };
    for connections in sweep::CONNECTIONS {
        run_all(
            load("closed", connections, 1, None),
            &mut points,
            connections == 1 || connections == 256,
        )?;
    }
    run_all(
        load(
            "pipelined",
            sweep::PIPELINE_CONNECTIONS,
            sweep::PIPELINE_DEPTH,
            None,
        ),
        &mut points,
        true,
    )?;
    let slowest_peak = servers
        .iter()
        .map(|s| {
            points
                .iter()
                .filter(|p| p.contender == s.contender.id && p.kind == "closed")
                .map(|p| p.requests_per_sec)
                .fold(0.0, f64::max)
        })
        .fold(f64::INFINITY, f64::min);
    for share in sweep::OPEN_LOOP_SHARES {
        run_all(
            load(
                "open",
                sweep::OPEN_LOOP_CONNECTIONS,
                1,
                Some((slowest_peak * share).round()),
            ),
            &mut points,
            false,
        )?;
    }
    drop(servers);
    let report = SweepReport {
        machine: Machine::detect(),
        pinning: pinning.describe(),
        seconds_per_point: seconds,
        slowest_peak,
        points,
    };
    write_all(&workspace.join("results"), &report)?;
    println!("sweep written: results/sweep.md, results/sweep.json, results/sweep_*.svg");
    Ok(())
}

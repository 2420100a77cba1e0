//! `scripts/workloads.sh`: the workloads study. Every contender runs every workload over
//! interleaved rounds; writes `results/workloads.{md,json}`, an SVG per workload under
//! `results/workloads/` and the verdict at the top of BENCHMARKS.md. With `--features`,
//! io_uring_server's feature rows at the workloads each feature is meant for instead:
//! `results/features.{md,json}` and their BENCHMARKS.md section. Pinning and external
//! servers work as for `cargo bench`. nginx, when installed, runs every workload it can
//! serve as an outside anchor: in the detail tables, never in the verdict.

use std::time::Duration;

use clap::Parser;
use harness::machine::Machine;
use harness::progress::Progress;
use harness::rounds::rotated;
use harness::servers::nginx::with_anchors;
use harness::servers::{Contender, Lineup};
use lab::workloads::measure::{self, Slot};
use lab::workloads::{IDLE_CONTENDERS, Sample, WORKLOADS, Workload, WorkloadsReport, features};

/// For which workload is io_uring worth it: every workload shape, every contender.
#[derive(Parser, Debug)]
#[command(version)]
struct Cli {
    /// Rounds; the contender order rotates each round.
    #[arg(long, default_value_t = 5)]
    rounds: usize,
    /// Seconds per point.
    #[arg(long, default_value_t = 4.0)]
    seconds: f64,
    /// Only the workloads whose name contains this (e.g. "churn").
    #[arg(long)]
    only: Option<String>,
    /// io_uring_server's feature rows at the workloads each is meant for, instead of the
    /// contenders.
    #[arg(long)]
    features: bool,
}

fn main() {
    harness::tool::main("workloads", run);
}

fn run(cli: Cli) -> Result<(), String> {
    let (plan, everyone) = if cli.features {
        (features::lineup(), features::contenders())
    } else {
        let plan = WORKLOADS.iter().map(|w| (*w, w.contenders())).collect();
        (plan, with_anchors(&IDLE_CONTENDERS))
    };
    let lineup = Lineup::start(&everyone)?;
    // Only what started: an anchor that is not installed sits out.
    let plan: Vec<_> = plan
        .into_iter()
        .filter(|(w, _)| {
            cli.only
                .as_ref()
                .is_none_or(|only| w.name.contains(only.as_str()))
        })
        .map(|(w, mut contenders)| {
            contenders.retain(|c| everyone.contains(c));
            (w, contenders)
        })
        .collect();
    let samples = measure_rounds(&lineup, &plan, &cli)?;
    drop(lineup.servers);
    let report = WorkloadsReport {
        machine: Machine::detect(),
        pinning: lineup.pinning.describe(),
        rounds: cli.rounds,
        seconds_per_point: cli.seconds,
        samples,
    };
    if cli.features {
        lab::workloads::report::write_features(&lineup.workspace, &report)?;
        println!("features written: results/features.md, results/features.json, BENCHMARKS.md");
    } else {
        lab::workloads::report::write_all(&lineup.workspace, &report)?;
        println!(
            "workloads written: results/workloads.md, results/workloads.json, results/workloads/*.svg, BENCHMARKS.md"
        );
    }
    Ok(())
}

/// Every workload of `plan` on each of its contenders, round after round, the order of the
/// contenders rotating each round.
fn measure_rounds(
    lineup: &Lineup,
    plan: &[(Workload, Vec<Contender>)],
    cli: &Cli,
) -> Result<Vec<Sample>, String> {
    let duration = Duration::from_secs_f64(cli.seconds);
    let steps = cli.rounds * plan.iter().map(|(_, c)| c.len()).sum::<usize>();
    // Each point also connects, and the idle workloads open thousands of connections.
    let per_step = Duration::from_secs_f64(cli.seconds * 1.25 + 0.5);
    let mut progress = Progress::start("workloads", steps, per_step);
    let mut samples = Vec::new();
    for round in 0..cli.rounds {
        for (workload, contenders) in plan {
            for turn in rotated(contenders.len(), round) {
                let contender = contenders[turn];
                let fresh = match workload.needs_fresh_server() {
                    true => Some(lineup.start_fresh(contender)?),
                    false => None,
                };
                let server = match &fresh {
                    Some(server) => server,
                    None => lineup
                        .servers
                        .iter()
                        .find(|s| s.contender == contender)
                        .ok_or_else(|| format!("{} was not started", contender.label))?,
                };
                progress.step(&format!(
                    "round {}/{} {}: {}",
                    round + 1,
                    cli.rounds,
                    workload.name,
                    server.contender.label
                ));
                let slot = Slot {
                    round,
                    duration,
                    count_syscalls: round == 0,
                };
                samples.push(measure::run(server, workload, slot, &lineup.pinning)?);
            }
        }
    }
    progress.finish();
    Ok(samples)
}

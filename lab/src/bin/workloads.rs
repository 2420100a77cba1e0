//! `scripts/workloads.sh`: the workloads study. Every contender runs every workload over
//! interleaved rounds, each point on a freshly started server; writes `results/workloads.{md,json}`, an SVG per workload under
//! `results/workloads/` and the verdict at the top of BENCHMARKS.md. With `--features`,
//! io_uring_server's feature rows at the workloads each feature is meant for instead:
//! `results/features.{md,json}` and their BENCHMARKS.md section. Pinning and external
//! servers work as for `cargo bench`. nginx, when installed, runs every workload it can
//! serve as an outside anchor: in the detail tables, never in the verdict.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use clap::Parser;
use harness::machine::Machine;
use harness::progress::Progress;
use harness::rounds::balanced;
use harness::servers::nginx::with_anchors;
use harness::servers::{Contender, Lineup};
use harness::settings::Pinning;
use lab::workloads::measure::{self, Slot};
use lab::workloads::{EVERYONE, Sample, WORKLOADS, Workload, WorkloadsReport, features};

/// For which workload is io_uring worth it: every workload shape, every contender.
#[derive(Parser, Debug)]
#[command(version)]
struct Cli {
    /// Rounds; each starts every server afresh for every point, in a balanced order.
    #[arg(long, default_value_t = 10)]
    rounds: usize,
    /// Seconds per point.
    #[arg(long, default_value_t = 2.0)]
    seconds: f64,
    /// The first rounds, in which the contenders shown only in the details
    /// (tokio_uring_server, the shared-buffer codec, nginx) run too.
    #[arg(long, default_value_t = 3)]
    detail_rounds: usize,
    /// Only the workloads whose name contains this (e.g. "churn").
    #[arg(long)]
    only: Option<String>,
    /// io_uring_server's feature rows at the workloads each is meant for, instead of the
    /// contenders.
    #[arg(long)]
    features: bool,
}

/// A workload, the contenders measured every round, and those measured in the first
/// `detail_rounds` only.
type Plan = Vec<(Workload, Vec<Contender>, Vec<Contender>)>;

fn main() {
    harness::tool::main("workloads", run);
}

fn run(cli: Cli) -> Result<(), String> {
    let (plan, everyone): (Plan, _) = if cli.features {
        let plan = features::lineup()
            .into_iter()
            .map(|(w, c)| (w, c, Vec::new()))
            .collect();
        (plan, features::contenders())
    } else {
        let plan = WORKLOADS
            .iter()
            .map(|w| (*w, w.verdict_contenders(), w.detail_contenders()))
            .collect();
        (plan, with_anchors(&EVERYONE))
    };
    let lineup = Lineup::prepare(&everyone, Pinning::from_env()?, None)?;
    // Only what can start: an anchor that is not installed sits out.
    let plan: Plan = plan
        .into_iter()
        .filter(|(w, _, _)| {
            cli.only
                .as_ref()
                .is_none_or(|only| w.name.contains(only.as_str()))
        })
        .map(|(w, mut every_round, mut detail)| {
            every_round.retain(|c| everyone.contains(c));
            detail.retain(|c| everyone.contains(c));
            (w, every_round, detail)
        })
        .collect();
    let samples = measure_rounds(&lineup, &plan, &cli)?;
    let report = WorkloadsReport {
        machine: Machine::detect(),
        pinning: lineup.pinning.describe(),
        rounds: cli.rounds,
        detail_rounds: cli.detail_rounds.min(cli.rounds),
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

/// Every workload of `plan` on each of its contenders, round after round, each point on a
/// freshly started server, the order within a round balanced over the rounds.
fn measure_rounds(lineup: &Lineup, plan: &Plan, cli: &Cli) -> Result<Vec<Sample>, String> {
    let duration = Duration::from_secs_f64(cli.seconds);
    let in_round = |round: usize, (every_round, detail): (&Vec<Contender>, &Vec<Contender>)| {
        let mut contenders = every_round.clone();
        if round < cli.detail_rounds {
            contenders.extend(detail);
        }
        contenders
    };
    let steps = (0..cli.rounds)
        .flat_map(|round| plan.iter().map(move |(_, e, d)| in_round(round, (e, d)).len()))
        .sum();
    // Each point starts a server and connects; the idle workloads open thousands.
    let per_step = Duration::from_secs_f64(cli.seconds * 1.25 + 0.6);
    let mut progress = Progress::start("workloads", steps, per_step);
    let mut samples = Vec::new();
    for round in 0..cli.rounds {
        for (workload, every_round, detail) in plan {
            let contenders = in_round(round, (every_round, detail));
            for (position, turn) in balanced(contenders.len(), round).enumerate() {
                let server = lineup.start_fresh(contenders[turn])?;
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
                let started_unix_s = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(0.0, |d| d.as_secs_f64());
                let sample = measure::run(&server, workload, slot, &lineup.pinning)?;
                samples.push(Sample {
                    position,
                    started_unix_s,
                    ..sample
                });
            }
        }
    }
    progress.finish();
    Ok(samples)
}

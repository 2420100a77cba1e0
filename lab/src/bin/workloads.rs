//! `scripts/workloads.sh`: the workloads study. Every contender runs every workload over
//! interleaved rounds, each point on a freshly started server; writes `results/workloads.{md,json}`, an SVG per workload under
//! `results/workloads/` and the verdict at the top of BENCHMARKS.md. With `--features`,
//! io_uring_server's feature rows at the workloads each feature is meant for instead:
//! `results/features.{md,json}` and their BENCHMARKS.md section. With `--runtimes`, the
//! io_uring engines (io_uring_server, tokio_uring, monoio, compio) and the tokio codec at
//! every judged workload: `results/runtimes.{md,json}` and the "which io_uring runtime"
//! section of BENCHMARKS.md. Pinning and external
//! servers work as for `cargo bench`. nginx, when installed, runs every workload it can
//! serve as an outside anchor: in the detail tables, never in the verdict.

use clap::Parser;
use harness::machine::Machine;
use harness::output::write_json;
use harness::servers::Contender;
use harness::servers::Lineup;
use harness::servers::nginx::with_anchors;
use harness::settings::Pinning;
use harness::workload::Workload;
use harness::workload::calibrate::calibrate_plan;
use harness::workload::run::{Entry, Rounds, measure_rounds};
use lab::workloads::{
    EVERYONE, WORKLOADS, WorkloadsReport, detail_contenders, features, judged_contenders, report, runtimes,
};
use std::path::Path;

/// For which workload is io_uring worth it: every workload shape, every contender.
#[derive(Parser, Debug)]
#[command(version)]
struct Cli {
    /// Rounds; each starts every server afresh for every point, in a balanced order.
    /// Default 8, two whole cycles of the balanced design for the four contenders judged
    /// (with `--features`, 12; with `--runtimes`, 6, one cycle for its six).
    #[arg(long)]
    rounds: Option<usize>,
    /// Seconds per point.
    #[arg(long, default_value_t = 2.0)]
    seconds: f64,
    /// Sequential stopping: after `--rounds`, a workload with a verdict cell still
    /// inconclusive (the A/A control's included) runs more rounds, up to this many in
    /// all (16: one more cycle of the balanced design). At most `--rounds` turns it off.
    #[arg(long, default_value_t = 16)]
    max_rounds: usize,
    /// The first rounds, in which the contenders shown only in the details
    /// (tokio_uring_server, the shared-buffer codec, nginx) run too.
    #[arg(long, default_value_t = 3)]
    detail_rounds: usize,
    /// Slices each contender's point is cut into, alternated with the round's other
    /// contenders in passes that reverse (A B C, C B A, ...), so every contender of a round
    /// meets the same drift of the machine's speed; 1 measures each point in one go.
    #[arg(long, default_value_t = 4)]
    slices: usize,
    /// Only the workloads whose name contains this (e.g. "churn").
    #[arg(long)]
    only: Option<String>,
    /// io_uring_server's feature rows at the workloads each is meant for, instead of the
    /// contenders.
    #[arg(long, conflicts_with = "runtimes")]
    features: bool,
    /// Which io_uring runtime: io_uring_server, tokio_uring_server, monoio_server and
    /// compio_server ÷ the codec engine at every judged workload, instead of the contenders
    /// (6 rounds, no sequential stopping: `results/runtimes.md`).
    #[arg(long)]
    runtimes: bool,
    /// Measure nothing: render the report again from its committed JSON (after a change
    /// to how it reads, not to what was measured).
    #[arg(long)]
    render: bool,
}

fn main() {
    harness::tool::main("workloads", run);
}

/// What a run measures: the contenders, or one of the passes with a lineup of its own.
#[derive(Clone, Copy, PartialEq)]
enum Pass {
    Workloads,
    Features,
    Runtimes,
}

impl Pass {
    fn of(cli: &Cli) -> Pass {
        match (cli.features, cli.runtimes) {
            (true, _) => Pass::Features,
            (_, true) => Pass::Runtimes,
            _ => Pass::Workloads,
        }
    }

    /// The results file's name.
    fn name(self) -> &'static str {
        match self {
            Pass::Workloads => "workloads",
            Pass::Features => "features",
            Pass::Runtimes => "runtimes",
        }
    }

    /// The plan and everyone in it.
    fn plan(self) -> (Vec<Entry>, Vec<Contender>) {
        let entry = |workload, every_round, detail| Entry {
            workload,
            every_round,
            detail,
            offered: None,
        };
        let passed = |lineup: Vec<(Workload, Vec<Contender>)>| {
            lineup.into_iter().map(|(w, c)| entry(w, c, Vec::new())).collect()
        };
        match self {
            Pass::Features => (passed(features::lineup()), features::contenders()),
            Pass::Runtimes => (passed(runtimes::lineup()), runtimes::contenders()),
            Pass::Workloads => {
                let plan = WORKLOADS
                    .iter()
                    .map(|w| entry(*w, judged_contenders(w), detail_contenders(w)))
                    .collect();
                (plan, with_anchors(&EVERYONE))
            }
        }
    }

    /// Rounds when `--rounds` is not given: whole cycles of the balanced order.
    fn default_rounds(self) -> usize {
        match self {
            Pass::Workloads => 8,
            Pass::Features => 12,
            Pass::Runtimes => 6,
        }
    }

    /// Writes the report's markdown and BENCHMARKS.md section (not its JSON).
    fn write(self, workspace: &Path, report: &WorkloadsReport) -> Result<(), String> {
        match self {
            Pass::Workloads => report::write_rendered(workspace, report),
            Pass::Features => report::write_features(workspace, report),
            Pass::Runtimes => report::write_runtimes(workspace, report),
        }
    }
}

fn run(cli: Cli) -> Result<(), String> {
    let pass = Pass::of(&cli);
    if cli.render {
        return render(pass);
    }
    let (plan, everyone) = pass.plan();
    let lineup = Lineup::prepare(&everyone, Pinning::from_env()?, None)?;
    // Only what can start: an anchor that is not installed sits out.
    let plan: Vec<Entry> = plan
        .into_iter()
        .filter(|e| {
            cli.only
                .as_ref()
                .is_none_or(|only| e.workload.name.contains(only.as_str()))
        })
        .map(|mut e| {
            e.every_round.retain(|c| everyone.contains(c));
            e.detail.retain(|c| everyone.contains(c));
            e
        })
        .collect();
    let planned = cli.rounds.unwrap_or(pass.default_rounds());
    let rounds = Rounds {
        rounds: planned,
        seconds: cli.seconds,
        detail_rounds: cli.detail_rounds.min(planned),
        // The runtime table's cells are not the verdict's: nothing to stop on.
        max_rounds: if pass == Pass::Runtimes {
            planned
        } else {
            cli.max_rounds
        },
        slices: cli.slices,
    };
    let (plan, calibrations) = calibrate_plan(&lineup, plan)?;
    let judged = plan
        .iter()
        .filter(|e| !e.every_round.is_empty())
        .map(|e| e.workload.name.to_string())
        .collect();
    let samples = measure_rounds(&lineup, &plan, rounds, "workloads")?;
    let report = WorkloadsReport {
        machine: Machine::detect(),
        pinning: lineup.pinning.describe(),
        rounds: harness::workload::run::rounds_in(&samples),
        base_rounds: Some(rounds.rounds),
        detail_rounds: if plan.iter().any(|e| !e.detail.is_empty()) {
            rounds.detail_rounds
        } else {
            0
        },
        seconds_per_point: rounds.seconds,
        slices: rounds.slices,
        judged: Some(judged),
        calibrations,
        samples,
    };
    let results = lineup.workspace.join("results");
    std::fs::create_dir_all(&results).map_err(|e| e.to_string())?;
    write_json(&results.join(format!("{}.json", pass.name())), &report)?;
    pass.write(&lineup.workspace, &report)?;
    let plots = if pass == Pass::Workloads {
        ", results/workloads/*.svg"
    } else {
        ""
    };
    println!(
        "{} written: results/{0}.md, results/{0}.json{plots}, BENCHMARKS.md",
        pass.name()
    );
    Ok(())
}

/// Writes the report again from its committed JSON (`results/workloads.json`, ...),
/// leaving the JSON as it is.
fn render(pass: Pass) -> Result<(), String> {
    let workspace = harness::servers::workspace_root();
    let path = workspace.join(format!("results/{}.json", pass.name()));
    let json = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let report: WorkloadsReport =
        serde_json::from_str(&json).map_err(|e| format!("{}: {e}", path.display()))?;
    pass.write(&workspace, &report)?;
    println!("{} rendered again from {}", pass.name(), path.display());
    Ok(())
}

//! `scripts/workloads.sh`: the workloads study. Every contender runs every workload over
//! interleaved rounds, each point on a freshly started server; writes
//! `results/workloads.{md,json}`, an SVG per workload under `results/workloads/` and the
//! verdict at the top of BENCHMARKS.md. The same rounds hold the ready io_uring runtimes
//! (tokio_uring, monoio, compio: `results/runtimes.md` and the "which io_uring runtime"
//! section) and io_uring_server's feature rows at the workloads each feature is meant for
//! (`results/features.md` and its section), then the rows beyond the verdict (the large-body
//! and file sections): one run, one results file, every view. Where
//! the servers and the client run: [`lab::placement`]. nginx, when installed, runs every workload it can
//! serve as an outside anchor: in the detail tables, never in the verdict. `--server
//! 'NAME=COMMAND {port}'` adds a server of yours to every round, judged against
//! io_uring_server; such a run, or one of some workloads (`--only`), writes
//! `results/partial/workloads.{md,json}` and leaves the committed report alone. With
//! `--server-host IP:PORT --token-file FILE` ([`lab::across`]) the servers run on another
//! host, started there by its agent; such a run writes a partial report too.

use clap::Parser;
use harness::corpus;
use harness::machine::Machine;
use harness::output::write_json;
use harness::remote::server::lock_agent;
use harness::servers::Lineup;
use harness::servers::nginx::with_anchors;
use harness::servers::{Contender, Launch, offered_name};
use harness::workload::calibrate::calibrate_plan;
use harness::workload::run::{Entry, Rounds, measure_rounds};
use lab::across::Across;
use lab::placement::Placement;
use lab::workloads::{
    WorkloadsReport, detail_only, every_round, everyone, further_rows, judged_contenders, measured_workloads,
    report, the_client,
};
use std::path::{Path, PathBuf};

/// For which workload is io_uring worth it: every workload shape, every contender, and in
/// the same rounds the ready io_uring runtimes and io_uring_server's feature rows.
#[derive(Parser, Debug)]
#[command(version)]
struct Cli {
    /// Rounds; each starts every server afresh for every point, in a balanced order.
    #[arg(long, default_value_t = 6)]
    rounds: usize,
    /// Seconds per point (cut into `--slices`).
    #[arg(long, default_value_t = 1.25)]
    seconds: f64,
    /// Sequential stopping: after `--rounds`, a workload with a verdict cell still
    /// inconclusive (the A/A control's included) runs more rounds, up to this many in
    /// all. At most `--rounds` turns it off.
    #[arg(long, default_value_t = 7)]
    max_rounds: usize,
    /// The first rounds, in which the contenders shown only in the details
    /// (nginx, and everyone at the capacities, pipelining and 4 and 16 connections) run
    /// too. One by default: the time goes to the rounds
    /// every tokio configuration of a judged row runs in, so that the whole reproduction
    /// stays within 100 minutes.
    #[arg(long, default_value_t = 1)]
    detail_rounds: usize,
    /// Slices each contender's point is cut into, alternated with the round's other
    /// contenders in passes that reverse (A B C, C B A, ...), so every contender of a round
    /// meets the same drift of the machine's speed; 1 measures each point in one go.
    #[arg(long, default_value_t = 4)]
    slices: usize,
    /// Only the workloads whose name contains this (e.g. "churn"; the names are in
    /// harness/src/workload/catalogue.rs); repeat for more. A part of the study: it
    /// writes `--out`.{md,json}, not the committed report; one that names no workload is
    /// refused.
    #[arg(long)]
    only: Vec<String>,
    /// Where a run with `--server` or `--only` writes its report, without the extension
    /// (with `--out-dir`: `DIR/results/workloads`). A server of yours is judged against
    /// io_uring_server in every round.
    #[arg(long, default_value = "results/partial/workloads")]
    out: PathBuf,
    /// Measure nothing: render every view again from the committed JSON (after a change
    /// to how it reads, not to what was measured).
    #[arg(long)]
    render: bool,
    #[command(flatten)]
    placement: Placement,
    #[command(flatten)]
    across: Across,
}

fn main() {
    harness::tool::main("workloads", run);
}

/// The plan: every workload, who runs it every round and who in the first rounds only.
fn plan() -> Vec<Entry> {
    measured_workloads()
        .map(|w| Entry {
            workload: *w,
            every_round: every_round(w),
            detail: detail_only(w),
            offered: None,
        })
        .collect()
}

/// Writes every view of the one report: the verdict and details, the runtime table and
/// the feature rows (not the JSON).
fn write(workspace: &Path, report: &WorkloadsReport) -> Result<(), String> {
    report::write_rendered(workspace, report)?;
    further_rows::write(workspace, report)?;
    the_client::write(workspace, report)?;
    report::write_runtimes(workspace, report)?;
    report::write_features(workspace, report)
}

fn run(cli: Cli) -> Result<(), String> {
    if cli.render {
        return render();
    }
    cli.placement.clean_tree()?;
    let yours = cli.placement.yours()?;
    let agent = cli.across.agent()?;
    let remote = agent.is_some();
    let (everyone, mut lineup) = match agent {
        Some(_) if !yours.is_empty() => return Err(YOURS_ACROSS.into()),
        Some(agent) => {
            // The agent starts the catalogue's servers and the A/A control: no anchor
            // (nginx listens on loopback only) and no feature row (flags it does not offer).
            let everyone: Vec<Contender> = everyone()
                .into_iter()
                .filter(|c| offered_name(c).is_some())
                .collect();
            let client = cli.placement.client_cpus.clone();
            let lineup = Lineup::prepare_remote(&everyone, agent, client)?;
            (everyone, lineup)
        }
        None => {
            let everyone = [with_anchors(&everyone()), yours.clone()].concat();
            let lineup = Lineup::prepare(&everyone, cli.placement.pinning(), None)?;
            (everyone, lineup)
        }
    };
    // Only what can start: an anchor that is not installed sits out; the file workloads
    // run on the servers started here with the corpus (`--files-dir`) alone.
    let plan: Vec<Entry> = plan()
        .into_iter()
        .filter(|e| cli.only.is_empty() || cli.only.iter().any(|o| e.workload.name.contains(o.as_str())))
        .map(|mut e| {
            let files = e.workload.serves_files();
            let can = |c: &Contender| everyone.contains(c) && (!files || serves_corpus(c));
            e.every_round.retain(can);
            e.detail.retain(can);
            if !files {
                with_yours(&mut e, &yours);
            }
            e
        })
        .collect();
    if plan.is_empty() {
        return Err(format!("--only {:?} names no workload", cli.only));
    }
    if plan.iter().any(|e| e.workload.serves_files()) {
        lineup.files_dir = Some(corpus::hot("workloads")?);
    }
    let rounds = Rounds {
        rounds: cli.rounds,
        seconds: cli.seconds,
        detail_rounds: cli.detail_rounds.min(cli.rounds),
        max_rounds: cli.max_rounds,
        slices: cli.slices,
    };
    let (plan, calibrations) = calibrate_plan(&lineup, plan)?;
    let judged = plan
        .iter()
        .filter(|e| !judged_contenders(&e.workload).is_empty())
        .map(|e| e.workload.name.to_string())
        .collect();
    let samples = measure_rounds(&lineup, &plan, rounds, "workloads")?;
    let report = WorkloadsReport {
        server_machine: lineup
            .remote
            .as_ref()
            .and_then(|agent| lock_agent(agent).hello().machine.clone()),
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
        outside: yours.iter().map(|c| c.id.to_string()).collect(),
        samples,
    };
    if cli.placement.is_partial() || !cli.only.is_empty() || remote {
        let out = match &cli.placement.out_dir {
            Some(dir) => dir.join("results").join("workloads"),
            None => lineup.workspace.join(&cli.out),
        };
        return write_partial(&out, &report);
    }
    let results = lineup.workspace.join("results");
    std::fs::create_dir_all(&results).map_err(|e| e.to_string())?;
    write_json(&results.join("workloads.json"), &report)?;
    write(&lineup.workspace, &report)?;
    println!(
        "workloads written: results/workloads.{{md,json}}, results/workloads/*.svg, \
         results/runtimes.md, results/features.md, BENCHMARKS.md"
    );
    Ok(())
}

/// Why a server of yours cannot join a run across hosts.
const YOURS_ACROSS: &str = "--server with --server-host: the agent starts only the servers \
     it offers; list yours on the agent's command line (--allow) and run it there by name";

/// Whether `contender` serves the file corpus: started here from its binary or as nginx
/// (given `--files-dir`), not a server of yours nor one named by `BENCH_*_URL`.
fn serves_corpus(contender: &Contender) -> bool {
    let elsewhere = contender.url_env.is_some_and(|name| std::env::var(name).is_ok());
    !elsewhere && (contender.launch.is_cargo() || contender.launch == Launch::Nginx)
}

/// Your servers run wherever the verdict's contenders do (not the file workloads, which
/// the caller leaves out, nor the TLS ones: they are started without a certificate):
/// every round where the verdict judges, the first rounds where the details alone show
/// the workload.
fn with_yours(entry: &mut Entry, yours: &[Contender]) {
    if entry.workload.tls().is_some() {
        return;
    }
    if entry.every_round.is_empty() {
        entry.detail.extend(yours);
    } else {
        entry.every_round.extend(yours);
    }
}

/// A part of the study (some workloads, or servers of yours beside ours): `out`.json and
/// `out`.md (the verdict of these rounds, your servers' table, the details, without
/// pictures), nothing else.
fn write_partial(out: &Path, report: &WorkloadsReport) -> Result<(), String> {
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    write_json(&out.with_extension("json"), report)?;
    let md = out.with_extension("md");
    // The committed report's pictures are not this run's: none is linked.
    let text: String = report::render(report)
        .lines()
        .filter(|line| !line.starts_with("!["))
        .map(|line| format!("{line}\n"))
        .collect();
    std::fs::write(&md, text).map_err(|e| format!("{}: {e}", md.display()))?;
    println!("written: {} and its .json", md.display());
    Ok(())
}

/// Writes every view again from the committed `results/workloads.json`, leaving the
/// JSON as it is.
fn render() -> Result<(), String> {
    let workspace = harness::servers::workspace_root();
    let path = workspace.join("results/workloads.json");
    let report: WorkloadsReport = harness::output::read_json(&path)?;
    write(&workspace, &report)?;
    println!("workloads rendered again from {}", path.display());
    Ok(())
}

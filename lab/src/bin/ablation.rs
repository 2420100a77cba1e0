//! `scripts/ablation.sh`: io_uring_server with its features added one at a time (and
//! tokio's engines for reference), all started pinned side by side and measured in
//! rounds of freshly started servers in a balanced order. Writes `results/ablation.md`, `results/ablation.json` and the
//! ablation section of BENCHMARKS.md. Pinning works as for `cargo bench`
//! (`BENCH_SERVER_CPUS`, `BENCH_CLIENT_CPUS`).

use std::path::Path;
use std::time::Duration;

use clap::Parser;
use harness::load::{self, Load, LoadKind};
use harness::machine::Machine;
use harness::output::{rewrite_benchmarks_section, write_json};
use harness::progress::Progress;
use harness::rounds::balanced;
use harness::servers::nginx::with_anchors;
use harness::servers::{Contender, Launch, Lineup, workspace_root};
use harness::slices::interleave;
use lab::ablation::render::render_markdown;
use lab::ablation::{AblationReport, STEPS, Sample, Step, StepResult};
use lab::sweep::{DETAIL_CONNECTIONS, OPEN_LOOP_CONNECTIONS, PIPELINE_DEPTH};

const BEGIN: &str = "<!-- BEGIN ABLATION: scripts/ablation.sh rewrites this section -->";
const END: &str = "<!-- END ABLATION -->";

/// The io_uring feature ablation: each feature's worth, measured round by round.
#[derive(Parser, Debug)]
#[command(version)]
struct Cli {
    /// Seconds per point.
    #[arg(long, env = "ABLATION_SECONDS", default_value_t = 5.0)]
    seconds: f64,
    /// Interleaved rounds.
    #[arg(long, env = "ABLATION_ROUNDS", default_value_t = 5)]
    rounds: usize,
    /// Slices each point is cut into, alternated with the round's other servers in passes
    /// that reverse ([`harness::slices`]); 1 measures each point in one go.
    #[arg(long, env = "ABLATION_SLICES", default_value_t = 4)]
    slices: usize,
    /// The open loop's fixed rate, requests/s.
    #[arg(long, env = "ABLATION_RATE", default_value_t = 40_000.0)]
    rate: f64,
    /// Only re-render the markdown from `results/ablation.json` (after a change to the
    /// rendering; the figures stay those of the recorded run).
    #[arg(long)]
    render: bool,
}

fn main() {
    harness::tool::main("ablation", run);
}

fn run(cli: Cli) -> Result<(), String> {
    if cli.render {
        let workspace = workspace_root();
        let path = workspace.join("results/ablation.json");
        let json = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let report: AblationReport =
            serde_json::from_str(&json).map_err(|e| format!("{}: {e}", path.display()))?;
        return write(&workspace, &report, false);
    }
    let (seconds, rounds, rate) = (cli.seconds, cli.rounds, cli.rate);
    // nginx's row only where nginx is installed (`with_anchors` says so when it is not).
    let anchors = with_anchors(&[]);
    let steps: Vec<&Step> = STEPS
        .iter()
        .filter(|step| step.contender.launch != Launch::Nginx || !anchors.is_empty())
        .collect();
    let contenders: Vec<Contender> = steps.iter().map(|step| step.contender).collect();
    let mut lineup = Lineup::start(&contenders)?;
    let duration = Duration::from_secs_f64(seconds) / cli.slices.max(1) as u32;
    let load = |kind, connections, depth, rate| {
        Load::new(kind, (connections, depth), rate, duration, &lineup.pinning)
    };
    let closed = load(LoadKind::Closed, DETAIL_CONNECTIONS, 1, None);
    let pipelined = load(LoadKind::Pipelined, DETAIL_CONNECTIONS, PIPELINE_DEPTH, None);
    let open = load(LoadKind::Open, OPEN_LOOP_CONNECTIONS, 1, Some(rate));

    let count = lineup.servers.len();
    // Per server and round: three points, the open loop's warm-ups (one per slice), a
    // syscall count and the pauses that let SQPOLL's thread go idle (one per slice).
    let slices = cli.slices.max(1) as f64;
    let per_server = 3.0 * seconds + slices * (open.warmup.as_secs_f64() + 3.0 * 0.25) + 2.0;
    let step = Duration::from_secs_f64(per_server / 3.0);
    let mut progress = Progress::start("ablation", 3 * rounds * count, step);
    let mut samples = vec![Vec::<Sample>::new(); count];
    for round in 0..rounds {
        if round > 0 {
            lineup.restart()?;
        }
        let servers = &lineup.servers;
        let mut this_round = vec![Sample::default(); count];
        let mut say = |what: &str, i: usize| {
            progress.step(&format!(
                "round {}/{rounds} {what}: {}",
                round + 1,
                servers[i].contender.label
            ));
        };
        let order: Vec<usize> = balanced(servers.len(), round).collect();
        let mut sliced = |what: &str, load: Load| {
            interleave(&order, cli.slices, |i, number| {
                if number == 0 {
                    say(what, i);
                }
                let point = load::run_point(&servers[i], load);
                settle();
                point
            })
        };
        let closed_points = sliced("closed", closed)?;
        let pipelined_points = sliced("pipelined", pipelined)?;
        let open_points = sliced("open loop", open)?;
        for &i in &order {
            let sample = &mut this_round[i];
            sample.closed_rps = closed_points[i].requests_per_sec;
            sample.closed_cpu_us = closed_points[i].server_cpu_us_per_request;
            sample.closed_machine_cpu_us = closed_points[i].machine_cpu_us_per_request;
            sample.syscalls_per_request = load::syscalls_per_request(&servers[i], closed);
            settle();
            sample.pipelined_rps = pipelined_points[i].requests_per_sec;
            sample.pipelined_cpu_us = pipelined_points[i].server_cpu_us_per_request;
            sample.p99_us = open_points[i].latency_us.p99 as f64;
        }
        for (all, sample) in samples.iter_mut().zip(this_round) {
            all.push(sample);
        }
    }
    progress.finish();
    drop(lineup.servers);

    let report = AblationReport {
        machine: Machine::detect(),
        pinning: lineup.pinning.describe(),
        seconds_per_point: seconds,
        slices: cli.slices,
        connections: DETAIL_CONNECTIONS,
        depth: PIPELINE_DEPTH,
        open_loop_connections: OPEN_LOOP_CONNECTIONS,
        open_loop_rate: rate,
        steps: steps
            .iter()
            .zip(samples)
            .map(|(step, samples)| StepResult {
                name: step.contender.label.into(),
                args: step.contender.args.iter().map(|a| a.to_string()).collect(),
                samples,
            })
            .collect(),
    };
    write(&lineup.workspace, &report, true)?;
    println!("ablation written: results/ablation.md, results/ablation.json, BENCHMARKS.md");
    Ok(())
}

/// Lets the SQPOLL row's kernel thread go idle (it polls for 100 ms after its last
/// submission) before the next server is measured on the same CPU.
fn settle() {
    std::thread::sleep(Duration::from_millis(250));
}

/// Writes the markdown, the BENCHMARKS.md section and (for a fresh run) the json.
fn write(workspace: &Path, report: &AblationReport, json: bool) -> Result<(), String> {
    let results = workspace.join("results");
    std::fs::create_dir_all(&results).map_err(|e| e.to_string())?;
    let markdown = render_markdown(report);
    std::fs::write(results.join("ablation.md"), &markdown).map_err(|e| e.to_string())?;
    if json {
        write_json(&results.join("ablation.json"), report)?;
    }
    let section = markdown
        .replacen("# io_uring feature ablation\n\n", "", 1)
        .replace("\n## ", "\n### ");
    rewrite_benchmarks_section(workspace, (BEGIN, END), &section)
}

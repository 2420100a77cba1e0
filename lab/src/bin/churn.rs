//! `scripts/churn.sh`: the churn study. Every contender (and nginx as an outside anchor,
//! when installed) runs every churn point (both who-closes patterns, closed loops at
//! several client counts, open loops at fixed connection rates) over rounds of freshly
//! started servers in a balanced order, with an A/A control (a second io_uring_server);
//! writes `results/churn.{md,json}`, `results/churn_cpu.svg` and the churn section of
//! BENCHMARKS.md. Where the servers and the client run, and servers of yours beside ours:
//! [`lab::placement`].

use std::time::Duration;

use clap::Parser;
use harness::load;
use harness::load::open_loop_warmup;
use harness::machine::Machine;
use harness::progress::Progress;
use harness::rounds::balanced;
use harness::servers::nginx::with_anchors;
use harness::servers::{AA_CONTROL, CONTENDERS, Lineup, Server};
use harness::slices::interleave;
use lab::churn::{ChurnPoint, ChurnReport, Sample, measure, plan};
use lab::placement::Placement;

/// Connection churn at several loads: a new connection per request, closed loops at
/// several client counts and open loops at fixed connection rates.
#[derive(Parser, Debug)]
#[command(version)]
struct Cli {
    /// Rounds; each starts every server afresh, in a balanced order (3 keep the whole
    /// report within its 100-minute budget; the verdict's churn rows run more).
    #[arg(long, default_value_t = 3)]
    rounds: usize,
    /// Seconds per point (the open loop's warm-up comes on top).
    #[arg(long, default_value_t = 1.2)]
    seconds: f64,
    /// Slices each point is cut into, alternated with the round's other servers in passes
    /// that reverse ([`harness::slices`]); 1 measures each point in one go.
    #[arg(long, default_value_t = 4)]
    slices: usize,
    /// Only the points whose name contains this (e.g. "client closes", "clients",
    /// "connections/s").
    #[arg(long)]
    only: Option<String>,
    /// Measure nothing: render every view again from the committed results/churn.json
    /// (after a change to how it reads, not to what was measured).
    #[arg(long)]
    render: bool,
    #[command(flatten)]
    placement: Placement,
}

fn main() {
    harness::tool::main("churn", run);
}

fn run(cli: Cli) -> Result<(), String> {
    if cli.render {
        let workspace = harness::servers::workspace_root();
        let path = workspace.join("results/churn.json");
        let report: ChurnReport = harness::output::read_json(&path)?;
        lab::churn::report::write_views(&workspace, &report)?;
        println!("churn rendered again from {}", path.display());
        return Ok(());
    }
    cli.placement.clean_tree()?;
    let plan: Vec<ChurnPoint> = plan()
        .into_iter()
        .filter(|p| {
            cli.only
                .as_ref()
                .is_none_or(|only| p.name().contains(only.as_str()))
        })
        .collect();
    if plan.is_empty() {
        return Err(format!("no point's name contains {:?}", cli.only));
    }
    let mut contenders = with_anchors(&CONTENDERS);
    contenders.push(AA_CONTROL);
    let contenders = cli.placement.with_yours(&contenders)?;
    let duration = Duration::from_secs_f64(cli.seconds);
    // An open-loop point warms up before each of its slices.
    let slices = cli.slices.max(1);
    let warmup = open_loop_warmup(duration / slices as u32);
    let open_points = plan.iter().filter(|p| p.rate().is_some()).count();
    // A point runs its seconds, an open-loop point its warm-ups too, and each starts up.
    let per_round =
        plan.len() as f64 * (cli.seconds + 0.5) + (open_points * slices) as f64 * warmup.as_secs_f64();
    let step = Duration::from_secs_f64(per_round / plan.len() as f64);
    let progress = Progress::start("churn", plan.len() * contenders.len() * cli.rounds, step);
    let mut lineup = Lineup::start_with(&contenders, cli.placement.pinning(), None)?;
    let source_addrs = lineup
        .servers
        .iter()
        .map(|server| Ok((server.contender.label.to_string(), sources_of(server)?)))
        .collect::<Result<_, String>>()?;
    let samples = measure_rounds(&mut lineup, &plan, (cli.rounds, duration, cli.slices), progress)?;
    drop(lineup.servers);
    let report = ChurnReport {
        machine: Machine::detect(),
        pinning: lineup.pinning.describe(),
        source_addrs,
        rounds: cli.rounds,
        slices: cli.slices,
        seconds_per_point: cli.seconds,
        open_loop_warmup_s: warmup.as_secs_f64(),
        samples,
    };
    let root = cli.placement.root(&lineup.workspace, "churn")?;
    lab::churn::report::write_all(&root, &report)?;
    println!(
        "churn written under {}: results/churn.md, results/churn.json, results/churn_cpu.svg, BENCHMARKS.md",
        root.display()
    );
    Ok(())
}

/// The addresses loadgen binds `server`'s churn connections to, in turn (it spreads them
/// by default).
fn sources_of(server: &Server) -> Result<Vec<std::net::IpAddr>, String> {
    let target = loadgen::target::parse(&format!("{}/", server.base_url))?;
    Ok(loadgen::churn::source_addrs(target.addr, true))
}

/// Every point of `plan` on every server, round after round, every server started afresh
/// for each round, their order balanced over the rounds, each point cut into `slices`
/// alternated between the servers.
fn measure_rounds(
    lineup: &mut Lineup,
    plan: &[ChurnPoint],
    (rounds, duration, slices): (usize, Duration, usize),
    mut progress: Progress,
) -> Result<Vec<Sample>, String> {
    let mut samples = Vec::new();
    for round in 0..rounds {
        if round > 0 {
            lineup.restart()?;
        }
        let servers = &lineup.servers;
        let order: Vec<usize> = balanced(servers.len(), round).collect();
        for &point in plan {
            let slice = duration / slices.max(1) as u32;
            let merged = interleave(&order, slices, |turn, number| {
                let server = &servers[turn];
                if number == 0 {
                    progress.step(&format!(
                        "round {}/{rounds} {}: {}",
                        round + 1,
                        point.name(),
                        server.contender.label
                    ));
                }
                load::run_point(server, measure::load_of(point, slice, &lineup.pinning))
            })?;
            samples.extend(
                order
                    .iter()
                    .map(|&turn| measure::sample(point, round, merged[turn].clone())),
            );
        }
    }
    progress.finish();
    Ok(samples)
}

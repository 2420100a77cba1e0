//! `scripts/scaling.sh`: the scaling study ([`lab::scaling`]). For each core count up to
//! the server CPUs given, every contender is started with one worker per core on the first
//! CPUs of the server set and driven flat out, over rounds in a balanced order, each point
//! cut into slices alternated between the servers. Writes `results/scaling.{md,json}`, the
//! picture from two core counts on, and the scaling section of BENCHMARKS.md. Where the
//! servers and the client run, and servers of yours beside ours: [`lab::placement`].

use std::time::Duration;

use clap::Parser;
use harness::load::{self, Load, LoadKind};
use harness::machine::Machine;
use harness::progress::Progress;
use harness::rounds::balanced;
use harness::servers::Lineup;
use harness::settings::Pinning;
use harness::slices::interleave;
use lab::placement::Placement;
use lab::scaling::{CONNECTIONS_PER_CORE, Sample, ScalingReport, contenders, core_counts, first_cpus};

/// Capacity and CPU per request against the cores each server is given.
#[derive(Parser, Debug)]
#[command(version)]
struct Cli {
    /// Rounds at each core count; each starts every server afresh, in a balanced order.
    #[arg(long, default_value_t = 3)]
    rounds: usize,
    /// Seconds per point.
    #[arg(long, default_value_t = 1.0)]
    seconds: f64,
    /// Slices each point is cut into, alternated with the round's other servers in passes
    /// that reverse ([`harness::slices`]); 1 measures each point in one go.
    #[arg(long, default_value_t = 2)]
    slices: usize,
    /// Measure nothing: render the views again from the committed results/scaling.json
    /// (after a change to how it reads, not to what was measured).
    #[arg(long)]
    render: bool,
    #[command(flatten)]
    placement: Placement,
}

fn main() {
    harness::tool::main("scaling", run);
}

fn run(cli: Cli) -> Result<(), String> {
    if cli.render {
        let workspace = harness::servers::workspace_root();
        let path = workspace.join("results/scaling.json");
        let report: ScalingReport = harness::output::read_json(&path)?;
        lab::scaling::report::write_rendered(&workspace, &report)?;
        println!("scaling rendered again from {}", path.display());
        return Ok(());
    }
    cli.placement.clean_tree()?;
    let whole = cli.placement.pinning();
    let server_cpus = whole.server_cpus();
    let counts = core_counts(server_cpus);
    let everyone = cli.placement.with_yours(&contenders())?;
    let step = Duration::from_secs_f64(cli.seconds + 0.3 * cli.slices as f64);
    let mut progress = Progress::start("scaling", counts.len() * cli.rounds * everyone.len(), step);
    let mut samples = Vec::new();
    for &cores in &counts {
        let pinning = Pinning {
            server: whole.server.as_ref().map(|set| first_cpus(set, cores)),
            ..whole.clone()
        };
        let mut lineup = Lineup::start_with(&everyone, pinning, Some(cores))?;
        let slice = Duration::from_secs_f64(cli.seconds) / cli.slices.max(1) as u32;
        let load = Load::new(
            LoadKind::Closed,
            (CONNECTIONS_PER_CORE * cores, 1),
            None,
            slice,
            &lineup.pinning,
        );
        for round in 0..cli.rounds {
            if round > 0 {
                lineup.restart()?;
            }
            let servers = &lineup.servers;
            let order: Vec<usize> = balanced(servers.len(), round).collect();
            let merged = interleave(&order, cli.slices, |turn, number| {
                if number == 0 {
                    progress.step(&format!(
                        "{cores} cores, round {}/{}: {}",
                        round + 1,
                        cli.rounds,
                        servers[turn].contender.label
                    ));
                }
                load::run_point(&servers[turn], load)
            })?;
            // In the lineup's order, which the report's rows keep.
            samples.extend(merged.iter().map(|point| Sample::of(cores, round, point)));
        }
    }
    progress.finish();
    let root = cli
        .placement
        .root(&harness::servers::workspace_root(), "scaling")?;
    let report = ScalingReport {
        machine: Machine::detect(),
        pinning: whole.describe(),
        server_cpus,
        client_cpus: whole.client_cpus(),
        rounds: cli.rounds,
        seconds_per_point: cli.seconds,
        slices: cli.slices,
        counts,
        samples,
    };
    lab::scaling::report::write_all(&root, &report)?;
    println!(
        "scaling written under {}: results/scaling.md, results/scaling.json, BENCHMARKS.md",
        root.display()
    );
    Ok(())
}

//! `scripts/bodies.sh`: the large-body study (64 KiB and 1 MiB echoes, with Content-Length
//! and chunked) over every contender and an A/A control, in rounds of freshly started
//! servers whose order is balanced, each point cut into slices alternated between them. Writes `results/bodies.md`,
//! `results/bodies.json` and the large-body section of BENCHMARKS.md. Where the servers and
//! the client run, and servers of yours beside ours: [`lab::placement`].

use std::time::Duration;

use clap::Parser;
use harness::load::{self, Ask, Load, LoadKind};
use harness::machine::Machine;
use harness::progress::Progress;
use harness::rounds::balanced;
use harness::servers::{AA_CONTROL, CONTENDERS, Lineup};
use harness::slices::interleave;
use lab::bodies::{BodiesReport, Sample, WORKLOADS};
use lab::placement::Placement;

/// The large-body study: server CPU per request for 64 KiB and 1 MiB echoes.
#[derive(Parser, Debug)]
#[command(version)]
struct Cli {
    /// Rounds; each starts every server afresh, in a balanced order (with seven servers a
    /// whole cycle of the balanced design is 14 rounds; 5 keep the whole report within
    /// its 100-minute budget, and each point's slices already run in passes that reverse).
    #[arg(long, default_value_t = 5)]
    rounds: usize,
    /// Seconds per point.
    #[arg(long, default_value_t = 1.5)]
    seconds: f64,
    /// Slices each point is cut into, alternated with the round's other servers in passes
    /// that reverse ([`harness::slices`]); 1 measures each point in one go.
    #[arg(long, default_value_t = 4)]
    slices: usize,
    #[command(flatten)]
    placement: Placement,
}

fn main() {
    harness::tool::main("bodies", run);
}

fn run(cli: Cli) -> Result<(), String> {
    cli.placement.clean_tree()?;
    let contenders = cli
        .placement
        .with_yours(&[&CONTENDERS[..], &[AA_CONTROL]].concat())?;
    let mut lineup = Lineup::start_with(&contenders, cli.placement.pinning(), None)?;
    let duration = Duration::from_secs_f64(cli.seconds);
    let steps = cli.rounds * WORKLOADS.len() * lineup.servers.len();
    let step = Duration::from_secs_f64(cli.seconds + 0.5);
    let mut progress = Progress::start("bodies", steps, step);
    let mut samples = Vec::new();
    for round in 0..cli.rounds {
        if round > 0 {
            lineup.restart()?;
        }
        let servers = &lineup.servers;
        let order: Vec<usize> = balanced(servers.len(), round).collect();
        for workload in WORKLOADS {
            let load = Load {
                ask: Ask::Echo(workload.post),
                ..Load::new(
                    LoadKind::Echo,
                    (workload.connections, 1),
                    None,
                    duration / cli.slices.max(1) as u32,
                    &lineup.pinning,
                )
            };
            let merged = interleave(&order, cli.slices, |turn, number| {
                if number == 0 {
                    progress.step(&format!(
                        "round {}/{} {}: {}",
                        round + 1,
                        cli.rounds,
                        workload.name,
                        servers[turn].contender.label
                    ));
                }
                load::run_point(&servers[turn], load)
            })?;
            for &turn in &order {
                let point = merged[turn].clone();
                samples.push(Sample {
                    workload: workload.name,
                    contender: point.contender,
                    label: point.label,
                    round,
                    requests_per_sec: point.requests_per_sec,
                    server_cpu_us_per_request: point.server_cpu_us_per_request,
                    machine_cpu_us_per_request: point.machine_cpu_us_per_request,
                    bottleneck: point.bottleneck,
                });
            }
        }
    }
    progress.finish();
    drop(lineup.servers);
    let report = BodiesReport {
        machine: Machine::detect(),
        pinning: lineup.pinning.describe(),
        rounds: cli.rounds,
        slices: cli.slices,
        seconds_per_point: cli.seconds,
        samples,
    };
    let root = cli.placement.root(&lineup.workspace, "bodies")?;
    lab::bodies::report::write_all(&root, &report)?;
    println!(
        "bodies written under {}: results/bodies.md, results/bodies.json, BENCHMARKS.md",
        root.display()
    );
    Ok(())
}

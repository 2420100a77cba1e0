//! `scripts/workloads.sh`: the workloads study. Every contender runs every workload over
//! interleaved rounds; writes `results/workloads.{md,json}`, an SVG per workload under
//! `results/workloads/` and the verdict at the top of BENCHMARKS.md. Pinning and external
//! servers work as for `cargo bench`.

use std::time::Duration;

use benches::machine::Machine;
use benches::servers::Lineup;
use benches::workloads::measure::{self, Slot};
use benches::workloads::{IDLE_CONTENDERS, WORKLOADS, WorkloadsReport};
use clap::Parser;

/// For which workload is io_uring worth it: every workload shape, every contender.
#[derive(Parser, Debug)]
#[command(version)]
struct Cli {
    /// Rounds; the contender order rotates each round.
    #[arg(long, default_value_t = 5)]
    rounds: usize,
    /// Seconds per point.
    #[arg(long, default_value_t = 2.5)]
    seconds: f64,
    /// Only the workloads whose name contains this (e.g. "churn").
    #[arg(long)]
    only: Option<String>,
}

fn main() {
    benches::tool::main("workloads", run);
}

fn run(cli: Cli) -> Result<(), String> {
    let lineup = Lineup::start(&IDLE_CONTENDERS)?;
    let duration = Duration::from_secs_f64(cli.seconds);
    let chosen: Vec<_> = WORKLOADS
        .iter()
        .filter(|w| {
            cli.only
                .as_ref()
                .is_none_or(|only| w.name.contains(only.as_str()))
        })
        .collect();
    let mut samples = Vec::new();
    for round in 0..cli.rounds {
        for workload in &chosen {
            let contenders = workload.contenders();
            for turn in 0..contenders.len() {
                let contender = contenders[(turn + round) % contenders.len()];
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
                eprintln!(
                    "workloads: round {}/{} {}: {}",
                    round + 1,
                    cli.rounds,
                    workload.name,
                    server.contender.label
                );
                let slot = Slot {
                    round,
                    duration,
                    count_syscalls: round == 0,
                };
                samples.push(measure::run(server, workload, slot, &lineup.pinning)?);
            }
        }
    }
    drop(lineup.servers);
    let report = WorkloadsReport {
        machine: Machine::detect(),
        pinning: lineup.pinning.describe(),
        rounds: cli.rounds,
        seconds_per_point: cli.seconds,
        samples,
    };
    benches::workloads::report::write_all(&lineup.workspace, &report)?;
    println!(
        "workloads written: results/workloads.md, results/workloads.json, results/workloads/*.svg, BENCHMARKS.md"
    );
    Ok(())
}

//! `scripts/client_drivers.sh`: the client's two drivers side by side
//! ([`lab::client_drivers`]). Reads the rates the workloads study offered
//! (`results/workloads.json`), then offers io_uring_server each fixed-rate row the ring
//! covers at that rate, once by loadgen's tokio driver and once by its ring in every round,
//! the server started afresh each round and each point cut into slices alternated between
//! the two drivers. Writes `results/client_drivers.{md,json}` and the client-drivers
//! section of BENCHMARKS.md's method.

use std::time::Duration;

use clap::Parser;
use harness::load::{self, Load};
use harness::machine::Machine;
use harness::progress::Progress;
use harness::rounds::balanced;
use harness::servers::Lineup;
use harness::slices::interleave;
use harness::workload::samples::WorkloadsReport;
use harness::workload::{SUBJECT, catalogue, measure};
use lab::client_drivers::{ClientDriversReport, DRIVERS, Sample, driven, driver_name, fixed_rate_rows};
use lab::placement::Placement;

/// What the client and io_uring_server spend per request with each of loadgen's drivers.
#[derive(Parser, Debug)]
#[command(version)]
struct Cli {
    /// Rounds; each starts the server afresh and runs both drivers, in a balanced order.
    #[arg(long, default_value_t = 3)]
    rounds: usize,
    /// Seconds per point.
    #[arg(long, default_value_t = 1.0)]
    seconds: f64,
    /// Slices each point is cut into, alternated between the two drivers.
    #[arg(long, default_value_t = 2)]
    slices: usize,
    /// Measure nothing: render the views again from the committed results/client_drivers.json.
    #[arg(long)]
    render: bool,
    #[command(flatten)]
    placement: Placement,
}

fn main() {
    harness::tool::main("client_drivers", run);
}

fn run(cli: Cli) -> Result<(), String> {
    let workspace = harness::servers::workspace_root();
    if cli.render {
        let path = workspace.join("results/client_drivers.json");
        let report: ClientDriversReport = harness::output::read_json(&path)?;
        lab::client_drivers::report::write_rendered(&workspace, &report)?;
        println!("client drivers rendered again from {}", path.display());
        return Ok(());
    }
    cli.placement.clean_tree()?;
    let workloads: WorkloadsReport = harness::output::read_json(&workspace.join("results/workloads.json"))?;
    let pinning = cli.placement.pinning();
    let slice = Duration::from_secs_f64(cli.seconds) / cli.slices.max(1) as u32;
    let load_of = |name: &str, rate: f64| -> Result<Load, String> {
        let workload = catalogue::by_name(name).ok_or_else(|| format!("{name}: not in the catalogue"))?;
        measure::fixed_rate_load(&workload, rate, slice, &pinning)
            .ok_or_else(|| format!("{name}: not at a fixed rate"))
    };
    let rows = fixed_rate_rows(&workloads, |name, rate| {
        load_of(name, rate).is_ok_and(|l| l.on_ring())
    });
    let measured: Vec<_> = rows.iter().filter(|r| r.on_ring).collect();
    if measured.is_empty() {
        return Err(
            "results/workloads.json has no fixed-rate row the ring drives: run scripts/workloads.sh first"
                .into(),
        );
    }
    let step = Duration::from_secs_f64(cli.seconds * 1.2 + 0.3 * cli.slices as f64);
    let mut progress = Progress::start(
        "client_drivers",
        measured.len() * cli.rounds * DRIVERS.len(),
        step,
    );
    let mut lineup = Lineup::start_with(&[SUBJECT], pinning.clone(), None)?;
    let mut samples = Vec::new();
    for row in &measured {
        let fixed = load_of(&row.workload, row.rate)?;
        for round in 0..cli.rounds {
            lineup.restart()?;
            let server = &lineup.servers[0];
            let order: Vec<usize> = balanced(DRIVERS.len(), round).collect();
            let merged = interleave(&order, cli.slices, |turn, number| {
                if number == 0 {
                    progress.step(&format!(
                        "round {}/{} {}: {} driver",
                        round + 1,
                        cli.rounds,
                        row.workload,
                        driver_name(DRIVERS[turn])
                    ));
                }
                load::run_point(server, driven(fixed, DRIVERS[turn]))
            })?;
            samples.extend(
                merged
                    .iter()
                    .zip(DRIVERS)
                    .map(|(point, driver)| Sample::of(&row.workload, driver, round, point, cli.seconds)),
            );
        }
    }
    progress.finish();
    let report = ClientDriversReport {
        machine: Machine::detect(),
        pinning: pinning.describe(),
        rounds: cli.rounds,
        seconds_per_point: cli.seconds,
        slices: cli.slices,
        rates_from: workloads.machine.git_commit.clone(),
        rows,
        samples,
    };
    let root = cli.placement.root(&workspace, "client_drivers")?;
    lab::client_drivers::report::write_all(&root, &report)?;
    println!(
        "client drivers written under {}: results/client_drivers.md, results/client_drivers.json, BENCHMARKS.md",
        root.display()
    );
    Ok(())
}

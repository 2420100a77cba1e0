//! `cargo bench`: starts every contender pinned to its own CPUs, runs each scenario
//! against each with criterion, measures CPU per request on both sides, then decides the
//! short verdict over rounds of fresh servers (`benches::verdict`), and writes the
//! report (`results/latest.md`, `results/latest.json`, the generated part of
//! BENCHMARKS.md). A filtered run (`cargo bench -- single`) or criterion's quick test
//! mode (`cargo bench -- --test`) runs the benchmarks but leaves the report alone.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use benches::report::{Report, Row, RunInfo, ScenarioReport};
use benches::scenario::{Clients, Scenario, time_iterations};
use benches::{estimates, output};
use criterion::{Criterion, Throughput};
use harness::cpu::{Spent, measure};
use harness::machine::Machine;
use harness::servers::{CONTENDERS, Lineup};
use harness::settings::{Pinning, Timing};
use harness::usage::Usage;

/// What was measured around one contender's run of one scenario.
struct Measured {
    scenario: Scenario,
    server: usize,
    usage: Usage,
}

fn main() {
    harness::tool::exit_on_error("cargo bench", run);
}

fn run() -> Result<(), String> {
    let timing = Timing::from_env();
    let mut lineup = Lineup::start(&CONTENDERS)?;
    let servers = std::mem::take(&mut lineup.servers);
    let (workspace, pinning) = (lineup.workspace.clone(), lineup.pinning.clone());
    let client_cpus = pinning.client_cpus();
    // On one client CPU a current-thread runtime runs the requests and their connection
    // tasks on one thread, without cross-thread wake-ups inside the client.
    let runtime = match client_cpus {
        0 | 1 => tokio::runtime::Builder::new_current_thread().enable_all().build(),
        n => tokio::runtime::Builder::new_multi_thread()
            .worker_threads(n)
            .enable_all()
            .build(),
    }
    .map_err(|e| e.to_string())?;
    let clients = servers
        .iter()
        .map(|server| {
            let clients = Clients::new(&server.base_url)?;
            runtime.block_on(clients.warm_up()).map_err(|e| {
                format!(
                    "{} at {} does not answer correctly: {e}",
                    server.contender.label, server.base_url
                )
            })?;
            Ok(clients)
        })
        .collect::<Result<Vec<_>, String>>()?;

    let criterion_dir = target_dir(&workspace).join("criterion");
    let mut criterion = Criterion::default()
        .warm_up_time(timing.warm_up)
        .measurement_time(timing.measurement)
        .sample_size(timing.sample_size)
        .nresamples(timing.resamples)
        .output_directory(&criterion_dir)
        .configure_from_args();
    let mut measured = Vec::new();
    for scenario in Scenario::ALL {
        let mut group = criterion.benchmark_group(scenario.name());
        group.throughput(Throughput::Elements(scenario.requests_per_iteration()));
        for (index, (server, clients)) in servers.iter().zip(&clients).enumerate() {
            runtime
                .block_on(clients.warm_up())
                .map_err(|e| format!("{}: warm-up failed: {e}", server.contender.label))?;
            let mut spent = Spent::default();
            group.bench_function(server.contender.id, |bencher| {
                bencher.iter_custom(|iterations| {
                    let (timed, cost) = measure(
                        || server.cpu_snapshot(),
                        || runtime.block_on(time_iterations(clients, scenario, iterations)),
                    );
                    spent.add(cost.unwrap_or_else(|error| panic!("benchmark aborted: {error}")));
                    timed.unwrap_or_else(|error| {
                        panic!(
                            "benchmark aborted: {} / {}: {error}",
                            server.contender.label,
                            scenario.name()
                        )
                    })
                })
            });
            let requests = clients.completed.load(Ordering::Relaxed);
            if requests == 0 {
                continue;
            }
            let usage = Usage {
                requests,
                wall_s: spent.wall.as_secs_f64(),
                server_cpu_s: spent.server.map(|d| d.as_secs_f64()),
                client_cpu_s: spent.client.as_secs_f64(),
                machine_cpu_s: harness::machine_cpu::net_of_idle(spent.machine, spent.wall),
                server_cpus: pinning.server_cpus(),
                client_cpus,
            };
            println!(
                "{}/{}: CPU per request: server {}, client {:.2} µs; bottleneck {}",
                scenario.name(),
                server.contender.id,
                harness::format::micros(usage.server_us_per_request()),
                usage.client_us_per_request(),
                usage.bottleneck()
            );
            measured.push(Measured {
                scenario,
                server: index,
                usage,
            });
        }
        group.finish();
    }
    criterion.final_summary();
    drop(servers);

    if let Some(reason) = report_skipped() {
        println!("report not rewritten: {reason}");
        return Ok(());
    }
    let verdict = benches::verdict::measure(&lineup, benches::verdict::rounds(timing))?;
    let mut report = build_report(&criterion_dir, &measured, timing, &pinning)?;
    report.verdict = Some(verdict);
    output::write_all(&workspace, &report)?;
    println!("report written: results/latest.md, results/latest.json and BENCHMARKS.md");
    println!("{}", benches::report::terminal_summary(&report));
    Ok(())
}

/// Only a complete, real run rewrites the report.
fn report_skipped() -> Option<&'static str> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args
        .iter()
        .any(|a| a == "--test" || a == "--list" || a == "--profile-time")
    {
        return Some("criterion test/list/profile mode");
    }
    if args.iter().any(|a| !a.starts_with('-')) {
        return Some("a filter or option value was given, so the run may be partial");
    }
    None
}

fn build_report(
    criterion_dir: &Path,
    measured: &[Measured],
    timing: Timing,
    pinning: &Pinning,
) -> Result<Report, String> {
    let scenarios = Scenario::ALL
        .iter()
        .map(|&scenario| {
            let rows = measured
                .iter()
                .filter(|m| m.scenario == scenario)
                .map(|m| {
                    let contender = CONTENDERS[m.server];
                    let estimates = estimates::read(criterion_dir, scenario.name(), contender.id)?;
                    Ok(Row {
                        contender: contender.id.into(),
                        label: contender.label.into(),
                        estimates,
                        usage: m.usage,
                    })
                })
                .collect::<Result<Vec<_>, String>>()?;
            Ok(ScenarioReport {
                name: scenario.name().into(),
                description: scenario.describe(),
                requests_per_iteration: scenario.requests_per_iteration(),
                throughput: scenario.reports_throughput(),
                rows,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(Report {
        machine: Machine::detect(),
        run: RunInfo {
            profile: timing.profile.into(),
            warm_up_s: timing.warm_up.as_secs_f64(),
            measurement_s: timing.measurement.as_secs_f64(),
            sample_size: timing.sample_size,
            resamples: timing.resamples,
            pinning: pinning.describe(),
            warning: pinning.warning.clone(),
        },
        verdict: None,
        scenarios,
    })
}

fn target_dir(workspace: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| workspace.join("target"), PathBuf::from)
}

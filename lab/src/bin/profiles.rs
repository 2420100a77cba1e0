//! `scripts/profiles.sh`: why the numbers differ. Every contender serves the load of each
//! workload, a verdict row's at that row's rate, while perf samples the server CPUs; sets
//! each total beside the verdict's (read from `results/workloads.json`); writes `results/profiles.md`,
//! `results/profiles.json`, a flame graph per workload and contender under
//! `results/profiles/`, and the "Why the numbers differ" section of BENCHMARKS.md. Without
//! perf, or without readable kernel symbols, it says so in one line and exits 1. Where the
//! servers and the client run, and servers of yours beside ours (the plain-HTTP workloads,
//! and the file ones where their command names the corpus with `{files_dir}`):
//! [`lab::placement`].

use std::time::Duration;

use clap::Parser;
use harness::corpus;
use harness::machine::Machine;
use harness::progress::Progress;
use harness::rounds::first_seen;
use harness::servers::{CONTENDERS, Lineup, Server, outside, workspace_root};
use harness::workload::samples::WorkloadsReport;
use http_core::files::CORPUS;
use lab::placement::Placement;
use lab::profiles::measure::{self, Dirs};
use lab::profiles::{
    KEPT_UP, LOWER_BY, ProfilesReport, RATE_SHARE, RETRIES, WORKLOADS, Workload, rate, record,
};

/// CPU profiles of every contender at the same offered load, by category.
#[derive(Parser, Debug)]
#[command(version)]
struct Cli {
    /// Seconds each profile records.
    #[arg(long, default_value_t = 2.5)]
    seconds: f64,
    /// Seconds of the flat-out run that calibrates each contender's peak at a file workload
    /// profiled at a rate
    /// (a verdict row's calibration runs as long as the verdict's).
    #[arg(long, default_value_t = 2.0)]
    calibration_seconds: f64,
    /// Only the workloads whose name contains this (e.g. "churn").
    #[arg(long)]
    only: Option<String>,
    /// Measure nothing: write the tables and BENCHMARKS.md's section again from the
    /// committed `results/profiles.json` (after a change to how they read, not to what
    /// was measured); the flame graphs stay as they are.
    #[arg(long)]
    render: bool,
    #[command(flatten)]
    placement: Placement,
}

fn main() {
    harness::tool::main("profiles", run);
}

fn run(cli: Cli) -> Result<(), String> {
    if cli.render {
        return render();
    }
    cli.placement.clean_tree()?;
    let scratch = workspace_root().join("target").join("profiles");
    std::fs::create_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    let pinning = cli.placement.pinning();
    record::check(pinning.server.as_ref(), &scratch)?;
    // The file workloads serve the file study's corpus, warmed before each.
    let corpus = corpus::default_dir(&workspace_root());
    if corpus::ensure(&corpus)? {
        eprintln!("profiles: corpus written to {}", corpus.display());
    }
    // The verdict rows' rates are calibrated on the verdict's contenders, as there.
    let everyone = first_seen(CONTENDERS.into_iter().chain(rate::everyone_calibrated()));
    let yours = cli.placement.yours()?;
    let profiled = [&CONTENDERS[..], &yours].concat();
    let mut lineup = Lineup::prepare(&[everyone, yours].concat(), pinning, None)?;
    lineup.files_dir = Some(corpus.clone());
    lineup.servers = profiled
        .iter()
        .map(|&contender| lineup.start_fresh(contender))
        .collect::<Result<_, _>>()?;
    // The TLS workloads' servers: the contenders with a rustls adapter, serving HTTPS.
    let https: Vec<Server> = CONTENDERS
        .iter()
        .filter(|c| c.speaks_tls())
        .map(|&contender| lineup.start_fresh_serving(contender, true))
        .collect::<Result<_, _>>()?;
    // A server of yours runs the plain-HTTP workloads, the file ones if told the corpus.
    let servers_of = |workload: &Workload| -> Vec<&Server> {
        match workload.tls() {
            true => https.iter().collect(),
            false => lineup
                .servers
                .iter()
                .filter(|s| workload.file_set().is_none() || outside::is_told_files_dir(&s.contender))
                .collect(),
        }
    };
    let root = cli.placement.root(&lineup.workspace, "profiles")?;
    let results = root.join("results");
    let dirs = Dirs {
        scratch: &scratch,
        results: &results,
    };
    let (seconds, calibration) = (
        Duration::from_secs_f64(cli.seconds),
        Duration::from_secs_f64(cli.calibration_seconds),
    );
    let mut report = ProfilesReport {
        machine: Machine::detect(),
        pinning: lineup.pinning.describe(),
        seconds_per_profile: cli.seconds,
        calibration: Vec::new(),
        profiles: Vec::new(),
        verdict: None,
    };
    let chosen: Vec<_> = WORKLOADS
        .iter()
        .filter(|w| {
            cli.only
                .as_ref()
                .is_none_or(|only| w.name.contains(only.as_str()))
        })
        .collect();
    // A file workload calibrates each server; a verdict row's calibration (the verdict's
    // contenders, each flat out) is one step.
    let calibrations = chosen
        .iter()
        .filter(|w| w.file_set().is_some() && w.is_open_loop())
        .map(|w| servers_of(w).len())
        .sum::<usize>()
        + chosen.iter().filter(|w| rate::offered_base(w).is_some()).count();
    let profiles: usize = chosen.iter().map(|w| servers_of(w).len()).sum();
    // A profile also waits for perf to start and write its samples.
    let step = (calibrations as f64 * cli.calibration_seconds + profiles as f64 * (cli.seconds + 2.0))
        / (calibrations + profiles).max(1) as f64;
    let mut progress = Progress::start("profiles", calibrations + profiles, Duration::from_secs_f64(step));
    for workload in chosen {
        let servers = servers_of(workload);
        if let Some(label) = workload.file_set() {
            let set = CORPUS
                .iter()
                .find(|set| set.label == label)
                .ok_or("no such corpus set")?;
            corpus::warm(&corpus, set)?;
        }
        if let Some((of, _)) = rate::offered_base(workload) {
            progress.step(&format!(
                "{}: calibrating {of} on the verdict's contenders",
                workload.name
            ));
        }
        let (mut rate, peaks) = match rate::of_row(&lineup, workload)? {
            Some((rate, calibration)) => (Some(rate), calibration.served),
            None if workload.is_open_loop() => {
                let mut peaks = Vec::new();
                for &server in &servers {
                    progress.step(&format!(
                        "{}: calibrating {}",
                        workload.name, server.contender.label
                    ));
                    let peak = measure::calibrate(server, workload, calibration, &lineup.pinning)?;
                    peaks.push((server.contender.id.to_string(), peak));
                }
                let slowest = peaks.iter().map(|p| p.1).reduce(f64::min);
                (slowest.map(|peak| (peak * RATE_SHARE).max(1.0)), peaks)
            }
            None => (None, Vec::new()),
        };
        for retry in 0..=RETRIES {
            let mut profiles = Vec::new();
            for &server in &servers {
                progress.step(&format!(
                    "{}: profiling {}",
                    workload.name, server.contender.label
                ));
                let mut profile = measure::profile(server, workload, rate, seconds, &lineup.pinning, &dirs)?;
                profile.counts = lab::profiles::counts::count(server, workload, rate, &lineup.pinning);
                profiles.push(profile);
            }
            let behind = rate.and_then(|offered| {
                profiles
                    .iter()
                    .find(|p| p.served_per_sec < offered * KEPT_UP)
                    .map(|p| (offered, p.label.clone(), p.served_per_sec))
            });
            match behind {
                Some((offered, label, served)) if retry < RETRIES => {
                    rate = Some(offered * LOWER_BY);
                    progress.extend(
                        servers.len(),
                        &format!(
                            "{}: {label} served {served:.0} of {offered:.0}/s: every contender again at {:.0}/s",
                            workload.name,
                            offered * LOWER_BY
                        ),
                    );
                }
                _ => {
                    report.profiles.extend(profiles);
                    break;
                }
            }
        }
        report.calibration.push((workload.name.to_string(), peaks));
    }
    progress.finish();
    drop(https);
    drop(lineup.servers);
    report.verdict = verdict_run(&lineup.workspace.join("results"));
    lab::profiles::report::write_all(&root, &report)?;
    println!(
        "profiles written under {}: results/profiles.md, results/profiles.json, results/profiles/*.svg, BENCHMARKS.md",
        root.display()
    );
    Ok(())
}

/// Writes the report and its BENCHMARKS.md section again from `results/profiles.json`,
/// set beside the verdict's rounds as they are now.
fn render() -> Result<(), String> {
    let workspace = workspace_root();
    let results = workspace.join("results");
    let path = results.join("profiles.json");
    let mut report: ProfilesReport = harness::output::read_json(&path)?;
    report.verdict = verdict_run(&results);
    lab::profiles::report::write_rendered(&workspace, &report)?;
    println!("profiles rendered again from {}", path.display());
    Ok(())
}

/// The verdict's rounds, `results/workloads.json`, whose rows the profiles are set beside;
/// `None` (and a line saying why) where there is none to read.
fn verdict_run(results: &std::path::Path) -> Option<WorkloadsReport> {
    let path = results.join("workloads.json");
    let read = std::fs::read_to_string(&path)
        .map_err(|e| e.to_string())
        .and_then(|json| serde_json::from_str(&json).map_err(|e| e.to_string()));
    match read {
        Ok(report) => Some(report),
        Err(error) => {
            eprintln!(
                "profiles: {}: {error}; the verdict column reads \"n/a (no verdict run)\"",
                path.display()
            );
            None
        }
    }
}

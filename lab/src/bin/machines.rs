//! `results/machines.md` ([`lab::machines`]): with `--add REPORT`, first keeps the core
//! rows of a workloads report (`results/workloads.json`, or a `--only` run's) as
//! `results/machines/<cpu-model-and-kernel>.json`, replacing that machine's earlier run;
//! then renders the page from every run kept there (`scripts/stale.sh` runs it too, so a
//! column is marked once the benchmarked code changes after it; `--check` only compares).
//! Measures nothing.

use std::path::PathBuf;

use clap::Parser;
use harness::output::{read_json, write, write_json};
use lab::machines::{extract, read_runs, render};
use lab::workloads::WorkloadsReport;

/// The core rows on every machine measured.
#[derive(Parser, Debug)]
#[command(version)]
struct Cli {
    /// A workloads report (JSON) whose core rows to keep as this machine's run first.
    #[arg(long)]
    add: Option<PathBuf>,
    /// The file name to keep it under (without `.json`); default the CPU model and kernel.
    #[arg(long, requires = "add")]
    name: Option<String>,
    /// Change nothing; exit 1 if the page differs from what the runs kept render (a
    /// column whose benchmarked code changed since is not yet marked): `scripts/stale.sh`.
    #[arg(long, conflicts_with = "add")]
    check: bool,
}

fn main() {
    harness::tool::main("machines", run);
}

fn run(cli: Cli) -> Result<(), String> {
    let workspace = harness::servers::workspace_root();
    let dir = workspace.join("results/machines");
    if let Some(path) = &cli.add {
        let report: WorkloadsReport = read_json(path)?;
        let run = extract(&report);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let file = dir.join(format!("{}.json", cli.name.unwrap_or_else(|| run.key())));
        write_json(&file, &run)?;
        println!("machines: kept {} as {}", path.display(), file.display());
    }
    let runs = read_runs(&dir)?;
    // A commit this clone cannot compare (a shallow clone) counts as older code.
    let changed =
        |commit: &str| harness::stale::changed_since(&workspace, commit).unwrap_or_else(|e| Some(vec![e]));
    let out = workspace.join("results/machines.md");
    let page = render(&runs, &changed);
    if cli.check {
        let now = std::fs::read_to_string(&out).unwrap_or_default();
        return match now == page {
            true => Ok(()),
            false => Err(format!("{} is out of date (run scripts/stale.sh)", out.display())),
        };
    }
    write(&out, &page)?;
    println!("machines written: {} ({} runs)", out.display(), runs.len());
    Ok(())
}

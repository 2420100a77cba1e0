//! Writes `results/two_hosts.md` from a run across two hosts (`scripts/two_hosts.sh`
//! runs the workloads study with `--server-host` and then this): each of its verdict rows
//! beside the same row over loopback, in the committed `results/workloads.json`
//! ([`lab::two_hosts`]). Measures nothing.

use std::path::PathBuf;

use clap::Parser;
use harness::output::{read_json, write};
use lab::two_hosts::render;
use lab::workloads::WorkloadsReport;

/// The rows across two hosts beside loopback's.
#[derive(Parser, Debug)]
#[command(version)]
struct Cli {
    /// The run across two hosts: a workloads report (JSON).
    #[arg(long)]
    across: PathBuf,
    /// The loopback run beside it; default the committed `results/workloads.json`.
    #[arg(long)]
    loopback: Option<PathBuf>,
    /// Where to write; default `results/two_hosts.md` of the workspace.
    #[arg(long)]
    out: Option<PathBuf>,
}

fn main() {
    harness::tool::main("two_hosts", run);
}

fn run(cli: Cli) -> Result<(), String> {
    let workspace = harness::servers::workspace_root();
    let loopback = cli
        .loopback
        .unwrap_or_else(|| workspace.join("results/workloads.json"));
    let out = cli.out.unwrap_or_else(|| workspace.join("results/two_hosts.md"));
    let across: WorkloadsReport = read_json(&cli.across)?;
    let loopback: WorkloadsReport = read_json(&loopback)?;
    write(&out, &render(&across, &loopback))?;
    println!("two_hosts written: {}", out.display());
    Ok(())
}

//! `cargo run -p benches --bin render`: writes `cargo bench`'s views again
//! (`results/latest.md` and its section of BENCHMARKS.md) from `results/latest.json`, with
//! no new measurement, so a change to how the report reads needs no new run. The figures
//! and the commit they were measured at are the JSON's.

use benches::output::write_views;
use benches::report::Report;
use harness::servers::workspace_root;

fn main() {
    harness::tool::exit_on_error("render", run);
}

fn run() -> Result<(), String> {
    let workspace = workspace_root();
    let path = workspace.join("results/latest.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let report: Report = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    write_views(&workspace, &report)?;
    println!(
        "render: results/latest.md and BENCHMARKS.md's cargo bench section written from {}",
        path.display()
    );
    Ok(())
}

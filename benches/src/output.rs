//! Writes `cargo bench`'s report where users read it: `results/latest.md` and
//! `results/latest.json` (everything), and the generated section of `BENCHMARKS.md` between
//! its markers (the short verdict and a link to the rest: [`headline`]).

use std::path::Path;

use harness::output::{replace_between, rewrite_benchmarks_section, write, write_json};

use crate::report::{Report, render_markdown};
use harness::rounds::short_line;
use harness::workload::samples::WorkloadsReport;

pub const BEGIN: &str = "<!-- BEGIN GENERATED: cargo bench rewrites this section -->";
pub const END: &str = "<!-- END GENERATED -->";

pub fn write_all(workspace: &Path, report: &Report) -> Result<(), String> {
    let results = workspace.join("results");
    std::fs::create_dir_all(&results).map_err(|e| format!("{}: {e}", results.display()))?;
    write_json(&results.join("latest.json"), report)?;
    write_views(workspace, report)
}

/// What [`write_all`] writes but the JSON: the views, rendered again from a run already
/// written (read back, a figure's last digit may differ, so the JSON is left as it was).
pub fn write_views(workspace: &Path, report: &Report) -> Result<(), String> {
    // The committed full verdict, so that a row this short run reads otherwise names it.
    let full: Option<WorkloadsReport> =
        harness::output::read_json(&workspace.join("results/workloads.json")).ok();
    let markdown = render_markdown(report, full.as_ref());
    write(&workspace.join("results/latest.md"), &markdown)?;
    rewrite_benchmarks_section(workspace, (BEGIN, END), &headline(report, full.as_ref()))
}

/// BENCHMARKS.md's part of the report: the short verdict under its provenance line (beside
/// `full`, the full verdict: [`crate::verdict::headline`]), and where the criterion tables
/// are.
pub fn headline(report: &Report, full: Option<&WorkloadsReport>) -> String {
    let verdict = match &report.verdict {
        Some(verdict) => crate::verdict::headline(verdict, full),
        None => {
            short_line(
                "cargo bench",
                &report.machine,
                "the short verdict did not run (one scenario, or `--test`)",
            ) + "\n"
        }
    };
    format!(
        "{verdict}\nThe criterion runs (single, 50 concurrent, 1000-request batches), the \
         machine and every table: [results/latest.md](results/latest.md).\n"
    )
}

/// Replaces what lies between the markers, keeping the markers.
pub fn replace_section(document: &str, section: &str) -> Result<String, String> {
    replace_between(document, BEGIN, END, section)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_generated_section_changes() {
        let document = format!("intro\n{BEGIN}\nold\n{END}\noutro\n");
        let updated = replace_section(&document, "new table\n").unwrap();
        assert_eq!(updated, format!("intro\n{BEGIN}\nnew table\n{END}\noutro\n"));
        assert_eq!(
            replace_section(&updated, "again").unwrap().matches(BEGIN).count(),
            1
        );
        assert!(replace_section("no markers", "x").is_err());
    }
}

//! Writes `cargo bench`'s report where users read it: `results/latest.md`, `results/latest.json`, and
//! the generated section of `BENCHMARKS.md` between its markers.

use std::path::Path;

use harness::output::{replace_between, rewrite_benchmarks_section, write, write_json};

use crate::report::{Report, render_markdown};

pub const BEGIN: &str = "<!-- BEGIN GENERATED: cargo bench rewrites this section -->";
pub const END: &str = "<!-- END GENERATED -->";

pub fn write_all(workspace: &Path, report: &Report) -> Result<(), String> {
    let results = workspace.join("results");
    std::fs::create_dir_all(&results).map_err(|e| format!("{}: {e}", results.display()))?;
    let markdown = render_markdown(report);
    write(&results.join("latest.md"), &markdown)?;
    write_json(&results.join("latest.json"), report)?;
    rewrite_benchmarks_section(workspace, (BEGIN, END), &demote_headings(&markdown))
}

/// Replaces what lies between the markers, keeping the markers.
pub fn replace_section(document: &str, section: &str) -> Result<String, String> {
    replace_between(document, BEGIN, END, section)
}

/// Inside BENCHMARKS.md the report sits under a level-2 heading.
fn demote_headings(markdown: &str) -> String {
    markdown
        .lines()
        .map(|line| {
            if line.starts_with('#') {
                format!("##{line}")
            } else {
                line.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
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

    #[test]
    fn headings_are_demoted() {
        assert_eq!(demote_headings("# A\ntext\n## B"), "### A\ntext\n#### B");
    }
}

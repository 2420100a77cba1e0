//! Writes a report where users read it: `results/latest.md`, `results/latest.json`, and
//! the generated section of `BENCHMARKS.md` between its markers.

use std::path::Path;

use crate::cargo_bench::report::{Report, render_markdown};

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

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Writes `report` to `path` as indented JSON ending in a newline.
pub fn write_json(path: &Path, report: &impl serde::Serialize) -> Result<(), String> {
    let json = serde_json::to_string_pretty(report).map_err(|e| e.to_string())?;
    write(path, &(json + "\n"))
}

/// Replaces what lies between `begin` and `end` in `workspace`'s BENCHMARKS.md with
/// `section`: how every study rewrites its own section.
pub fn rewrite_benchmarks_section(
    workspace: &Path,
    (begin, end): (&str, &str),
    section: &str,
) -> Result<(), String> {
    let path = workspace.join("BENCHMARKS.md");
    let document = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    write(&path, &replace_between(&document, begin, end, section)?)
}

/// Replaces what lies between the markers, keeping the markers.
pub fn replace_section(document: &str, section: &str) -> Result<String, String> {
    replace_between(document, BEGIN, END, section)
}

/// Replaces what lies between `begin` and `end` in `document`, keeping both markers.
pub fn replace_between(document: &str, begin: &str, end: &str, section: &str) -> Result<String, String> {
    let start = document
        .find(begin)
        .ok_or_else(|| format!("BENCHMARKS.md lacks the marker {begin}"))?
        + begin.len();
    let stop = document[start..]
        .find(end)
        .ok_or_else(|| format!("BENCHMARKS.md lacks the marker {end}"))?
        + start;
    Ok(format!(
        "{}\n{}\n{}",
        &document[..start],
        section.trim_end(),
        &document[stop..]
    ))
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

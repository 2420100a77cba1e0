//! Writing a study's results where users read them: its JSON under `results/`, and its
//! own section of `BENCHMARKS.md`, between that section's markers, which carries the
//! study's headline where `results/*.md` carry everything ([`Doc`]).

use std::path::Path;

/// Where a view goes: BENCHMARKS.md carries a study's headline under a one-line
/// provenance that links the method; `results/*.md` every table and the method in full.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Doc {
    Benchmarks,
    Results,
}

impl Doc {
    /// The path from the document to `results/`.
    pub fn prefix(self) -> &'static str {
        match self {
            Doc::Benchmarks => "results/",
            Doc::Results => "",
        }
    }
}

/// Writes `text` to `path`, naming the path in the error.
pub fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Reads a report written by [`write_json`], naming the path in the error.
pub fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, String> {
    let json = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&json).map_err(|e| format!("{}: {e}", path.display()))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_section_between_the_markers_changes() {
        let document = "intro\n<a>\nold\n<b>\noutro\n";
        let updated = replace_between(document, "<a>", "<b>", "new table\n").unwrap();
        assert_eq!(updated, "intro\n<a>\nnew table\n<b>\noutro\n");
        let again = replace_between(&updated, "<a>", "<b>", "again").unwrap();
        assert_eq!(again.matches("<a>").count(), 1);
        assert!(replace_between("no markers", "<a>", "<b>", "x").is_err());
    }

    #[test]
    fn benchmarks_links_into_results_and_results_link_their_neighbours() {
        assert_eq!(Doc::Benchmarks.prefix(), "results/");
        assert_eq!(Doc::Results.prefix(), "");
    }
}

//! Every relative link and image in README.md, BENCHMARKS.md, `docs/*.md`, loadgen's README
//! and `results/*.md` names a file that exists, and every `#anchor` link a heading of its
//! own file ([`harness::links`]); every `results/` file README.md and BENCHMARKS.md name
//! exists.

use std::path::{Path, PathBuf};

fn documents(workspace: &Path) -> Vec<PathBuf> {
    let mut results: Vec<PathBuf> = std::fs::read_dir(workspace.join("results"))
        .expect("results/")
        .filter_map(|entry| Some(entry.ok()?.path()))
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    results.sort();
    let mut docs: Vec<PathBuf> = std::fs::read_dir(workspace.join("docs"))
        .expect("docs/")
        .filter_map(|entry| Some(entry.ok()?.path()))
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    let mut all = vec![
        workspace.join("README.md"),
        workspace.join("BENCHMARKS.md"),
        workspace.join("loadgen/README.md"),
    ];
    all.extend(docs);
    all.extend(results);
    all
}

#[test]
fn every_link_names_a_file_or_heading_that_exists() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut problems = Vec::new();
    let mut checked = 0;
    for path in documents(workspace) {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        checked += harness::links::targets(&text).len();
        let dir = path.parent().unwrap();
        let name = path.strip_prefix(workspace).unwrap().display().to_string();
        for problem in harness::links::broken(&text, dir, &|p: &Path| p.exists()) {
            problems.push(format!("{name} {problem}"));
        }
    }
    assert!(checked > 20, "only {checked} links found: is the scanner blind?");
    assert!(problems.is_empty(), "broken links:\n{}", problems.join("\n"));
}

/// The `results/...` paths a document names in code spans (`results/sweep.md`,
/// `results/scaling.{md,json}`), each brace alternative expanded; globs and placeholders
/// (`*`, `<study>`) are not names of one file and are skipped.
fn named_results(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    for span in text.split('`').skip(1).step_by(2) {
        let Some(start) = span.find("results/") else {
            continue;
        };
        let path = span[start..].split_whitespace().next().unwrap_or_default();
        let path = path.trim_end_matches([',', ';', ':', ')', '.']);
        if path.contains(['*', '<', '{']) && !path.contains(".{") {
            continue;
        }
        match path.split_once(".{") {
            Some((stem, rest)) => {
                for ext in rest.trim_end_matches('}').split(',') {
                    names.push(format!("{stem}.{ext}"));
                }
            }
            None => names.push(path.to_string()),
        }
    }
    names
}

#[test]
fn every_results_file_readme_and_benchmarks_name_exists() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut missing = Vec::new();
    let mut checked = 0;
    for name in ["README.md", "BENCHMARKS.md"] {
        let text = std::fs::read_to_string(workspace.join(name)).unwrap();
        for path in named_results(&text) {
            // A partial run's output and a study's own folder are made by the run itself.
            if path.starts_with("results/partial") || path.ends_with('/') {
                continue;
            }
            checked += 1;
            if !workspace.join(&path).exists() {
                missing.push(format!("{name}: {path}"));
            }
        }
    }
    assert!(
        checked > 0,
        "only {checked} results files named: is the scanner blind?"
    );
    assert!(missing.is_empty(), "named but not there:\n{}", missing.join("\n"));
}

#[test]
fn named_results_expand_braces_and_skip_globs() {
    let text = "see `results/scaling.{md,json}` and `results/*.md`, `cargo x` and `results/a.md`";
    assert_eq!(
        named_results(text),
        ["results/scaling.md", "results/scaling.json", "results/a.md"]
    );
}

//! Every relative link and image in README.md, BENCHMARKS.md and `results/*.md` names a
//! file that exists, and every `#anchor` link a heading of its own file
//! ([`harness::links`]).

use std::path::{Path, PathBuf};

fn documents(workspace: &Path) -> Vec<PathBuf> {
    let mut results: Vec<PathBuf> = std::fs::read_dir(workspace.join("results"))
        .expect("results/")
        .filter_map(|entry| Some(entry.ok()?.path()))
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    results.sort();
    let mut all = vec![workspace.join("README.md"), workspace.join("BENCHMARKS.md")];
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

//! `cargo bench` ends on the answer: only the criterion benchmarks run under it, so every
//! other target of the workspace (each library, each binary) says `bench = false`, or
//! cargo would run it in bench mode and print "running 0 tests" after the verdict.

use std::path::Path;

#[test]
fn every_library_and_binary_of_the_workspace_opts_out_of_cargo_bench() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut missing = Vec::new();
    let mut checked = 0;
    for entry in std::fs::read_dir(root).unwrap() {
        let dir = entry.unwrap().path();
        let Ok(manifest) = std::fs::read_to_string(dir.join("Cargo.toml")) else {
            continue;
        };
        let opts_out = |header: &str, name: Option<&str>| {
            manifest.split("\n[").any(|table| {
                let table = table.trim_start_matches('[');
                table.starts_with(header)
                    && name.is_none_or(|n| table.contains(&format!("name = \"{n}\"")))
                    && table.contains("bench = false")
            })
        };
        if dir.join("src/lib.rs").exists() {
            checked += 1;
            if !opts_out("lib]", None) {
                missing.push(format!("{}: [lib]", dir.display()));
            }
        }
        let mut bins: Vec<String> = std::fs::read_dir(dir.join("src/bin"))
            .into_iter()
            .flatten()
            .map(|e| e.unwrap().path())
            .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
            .collect();
        if dir.join("src/main.rs").exists() {
            bins.push(dir.file_name().unwrap().to_string_lossy().into_owned());
        }
        for bin in bins {
            checked += 1;
            if !opts_out("bin]]", Some(&bin)) {
                missing.push(format!("{}: [[bin]] {bin}", dir.display()));
            }
        }
    }
    assert!(
        checked > 10,
        "found only {checked} targets under {}",
        root.display()
    );
    assert!(missing.is_empty(), "add `bench = false` to: {missing:?}");
}

//! DESIGN.md stays true to the code where a test can tell: its list of the files that
//! hold `unsafe` is exactly the files under `src/` whose code (not comments) says
//! `unsafe`, and the number it gives in words matches the list.

use std::path::{Path, PathBuf};

const DESIGN: &str = include_str!("../DESIGN.md");

/// The paths (relative to `src/`) DESIGN.md lists under "`unsafe` lives in ...": the
/// bullets that follow that sentence, each opening with its path in backticks.
fn listed() -> (String, Vec<String>) {
    let mut lines = DESIGN
        .lines()
        .skip_while(|line| !line.starts_with("`unsafe` lives in "));
    let intro = lines.next().expect("DESIGN.md says where `unsafe` lives");
    let count = intro.split_whitespace().nth(3).unwrap_or_default().to_string();
    let paths = lines
        .skip_while(|line| !line.starts_with("- `"))
        .take_while(|line| line.starts_with("- `"))
        .map(|line| line[3..].split('`').next().unwrap_or_default().to_string())
        .collect();
    (count, paths)
}

/// The `.rs` files under `dir`, recursively.
fn sources(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            sources(&path, found);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            found.push(path);
        }
    }
}

/// Whether `code` says `unsafe` outside `//` comments, as a whole word.
fn says_unsafe(code: &str) -> bool {
    code.lines().any(|line| {
        let code = line.split("//").next().unwrap_or_default();
        code.match_indices("unsafe").any(|(at, _)| {
            let word = |c: char| c.is_alphanumeric() || c == '_';
            let before = code[..at].chars().next_back().is_none_or(|c| !word(c));
            let after = code[at + 6..].chars().next().is_none_or(|c| !word(c));
            before && after
        })
    })
}

#[test]
fn design_lists_exactly_the_files_that_hold_unsafe() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut holding: Vec<String> = files
        .iter()
        .filter(|path| says_unsafe(&std::fs::read_to_string(path).expect("a readable source")))
        .map(|path| {
            path.strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect();
    holding.sort();
    let (count, mut paths) = listed();
    paths.sort();
    assert_eq!(
        paths, holding,
        "DESIGN.md's list of files with `unsafe` against src/"
    );
    let words = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    ];
    assert_eq!(
        words.iter().position(|word| *word == count),
        Some(paths.len()),
        "DESIGN.md says `unsafe` lives in {count} files and lists {}",
        paths.len()
    );
}

#[test]
fn the_check_tells_code_from_comments() {
    assert!(says_unsafe("    let x = unsafe { f() };"));
    assert!(says_unsafe("pub unsafe fn push(&mut self) {}"));
    assert!(!says_unsafe("//! no `unsafe` here"));
    assert!(!says_unsafe("    // SAFETY: nothing unsafe"));
    assert!(!says_unsafe("let unsafe_ish = 1;"));
}

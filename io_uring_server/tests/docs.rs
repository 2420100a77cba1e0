//! DESIGN.md stays true to the code where a test can tell: its list of the files that
//! hold `unsafe` is exactly the files under `src/` whose code (not comments) says
//! `unsafe`, and the number it gives in words matches the list. And the code stays
//! readable the way DESIGN.md's reading order assumes: no type name defined twice in
//! `src/`, no function outside tests over 60 lines.

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

/// Every `.rs` file under `src/`, with its path relative to `src/`.
fn source_texts() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files
        .iter()
        .map(|path| {
            let name = path
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (name, std::fs::read_to_string(path).expect("a readable source"))
        })
        .collect()
}

/// The name a line defines as a type (`struct`, `enum`, `type`, `trait`), if any.
fn type_defined(line: &str) -> Option<&str> {
    let mut words = line.split_whitespace();
    let mut word = words.next()?;
    if word.starts_with("pub") {
        word = words.next()?;
    }
    // An associated type (`type Item = ...;` in an impl) is indented: not a definition.
    let associated = word == "type" && line.starts_with(char::is_whitespace);
    if !["struct", "enum", "type", "trait"].contains(&word) || associated {
        return None;
    }
    let name = words.next()?;
    let end = name
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(name.len());
    Some(&name[..end])
}

#[test]
fn no_type_name_is_defined_twice() {
    let mut seen: std::collections::HashMap<String, String> = Default::default();
    let mut twice = Vec::new();
    for (file, text) in source_texts() {
        for (n, line) in text.lines().enumerate() {
            if let Some(name) = type_defined(line) {
                let at = format!("{file}:{}", n + 1);
                if let Some(first) = seen.insert(name.to_string(), at.clone()) {
                    twice.push(format!("{name} at {first} and {at}"));
                }
            }
        }
    }
    assert!(twice.is_empty(), "type names defined twice: {twice:?}");
}

/// The functions of `text` (formatted by rustfmt) longer than `max` lines, with the line
/// each starts on; a file's `#[cfg(test)] mod tests` at its end is left out.
fn long_functions(text: &str, max: usize) -> Vec<(usize, String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let end = (0..lines.len())
        .find(|&i| lines[i] == "#[cfg(test)]" && lines.get(i + 1).is_some_and(|l| l.starts_with("mod tests")))
        .unwrap_or(lines.len());
    let mut long = Vec::new();
    for i in 0..end {
        let line = lines[i];
        let code = line.trim_start();
        let indent = &line[..line.len() - code.len()];
        let code = code
            .trim_start_matches("pub(crate) ")
            .trim_start_matches("pub(super) ");
        let code = code.trim_start_matches("pub ").trim_start_matches("const ");
        let code = code.trim_start_matches("unsafe ");
        if !code.starts_with("fn ") || line.trim_end().ends_with(';') {
            continue;
        }
        let close = format!("{indent}}}");
        let last = (i + 1..end).find(|&j| lines[j] == close).unwrap_or(end);
        if last - i + 1 > max {
            let name = code[3..].split(['(', '<']).next().unwrap_or_default().to_string();
            long.push((i + 1, name, last - i + 1));
        }
    }
    long
}

#[test]
fn no_function_outside_tests_is_over_60_lines() {
    let mut long = Vec::new();
    for (file, text) in source_texts() {
        if file.contains("tests") {
            continue;
        }
        for (line, name, len) in long_functions(&text, 60) {
            long.push(format!("{file}:{line} {name} ({len} lines)"));
        }
    }
    assert!(long.is_empty(), "functions over 60 lines: {long:?}");
}

#[test]
fn the_checks_find_what_they_look_for() {
    assert_eq!(type_defined("pub struct Ring {"), Some("Ring"));
    assert_eq!(type_defined("    pub(crate) enum Step<'a> {"), Some("Step"));
    assert_eq!(type_defined("let struct_like = 1;"), None);
    let body = "    x();\n".repeat(61);
    let long = format!("impl A {{\n    pub fn long() {{\n{body}    }}\n\n    fn short() {{}}\n}}\n");
    assert_eq!(long_functions(&long, 60), [(2, "long".to_string(), 63)]);
}

#[test]
fn the_check_tells_code_from_comments() {
    assert!(says_unsafe("    let x = unsafe { f() };"));
    assert!(says_unsafe("pub unsafe fn push(&mut self) {}"));
    assert!(!says_unsafe("//! no `unsafe` here"));
    assert!(!says_unsafe("    // SAFETY: nothing unsafe"));
    assert!(!says_unsafe("let unsafe_ish = 1;"));
}

//! Links that work: the relative links and images of a markdown file (`[text](path)`,
//! `![alt](path)`, `[name]: path`, `<img src="path">`), each checked against the files next
//! to it, and `#anchor` links against the file's own headings, slugged as GitHub slugs them.
//! `harness/tests/links.rs` runs it over README.md, BENCHMARKS.md and `results/*.md`.

use std::collections::HashSet;
use std::path::Path;

/// A link target found on a (1-based) line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    pub line: usize,
    pub target: String,
}

/// The lines outside fenced code blocks, numbered from 1, with inline code spans blanked.
fn prose(markdown: &str) -> Vec<(usize, String)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (i, line) in markdown.lines().enumerate() {
        if line.trim_start().starts_with("```") || line.trim_start().starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.push((i + 1, without_code_spans(line)));
        }
    }
    out
}

/// `line` with the text between each pair of backticks dropped.
fn without_code_spans(line: &str) -> String {
    let parts: Vec<&str> = line.split('`').collect();
    if parts.len().is_multiple_of(2) {
        return line.to_string(); // an unpaired backtick: no code span to trust
    }
    parts.iter().step_by(2).copied().collect()
}

/// The target that opens `rest` (what follows `](`): `<...>` whole, else up to the
/// whitespace or the `)` that balances, so `(a_(b))` names `a_(b)`.
fn target_at(rest: &str) -> Option<&str> {
    if let Some(inner) = rest.strip_prefix('<') {
        return inner.find('>').map(|end| &inner[..end]);
    }
    let mut depth = 0usize;
    for (i, c) in rest.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => return Some(&rest[..i]),
            ')' => depth -= 1,
            c if c.is_whitespace() => return Some(&rest[..i]),
            _ => {}
        }
    }
    None
}

/// Every link and image target in `markdown`, in order.
pub fn targets(markdown: &str) -> Vec<Link> {
    let mut links = Vec::new();
    for (line, text) in prose(markdown) {
        let mut push = |target: &str| {
            links.push(Link {
                line,
                target: target.to_string(),
            })
        };
        let mut rest = text.as_str();
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            if let Some(target) = target_at(rest) {
                push(target);
            }
        }
        // A reference definition: `[name]: path`.
        let trimmed = text.trim_start();
        if let Some(close) = trimmed.strip_prefix('[').and_then(|t| t.find("]:")) {
            let definition = trimmed[close + 3..].trim_start();
            let target = match definition.strip_prefix('<') {
                Some(inner) => inner.find('>').map(|end| &inner[..end]),
                None => definition.split_whitespace().next(),
            };
            if let Some(target) = target {
                push(target);
            }
        }
        let mut rest = text.as_str();
        while let Some(at) = rest.find("<img") {
            rest = &rest[at + 4..];
            let tag = &rest[..rest.find('>').unwrap_or(rest.len())];
            if let Some(src) = tag.find("src=") {
                let value = &tag[src + 4..];
                let quote = value.chars().next().filter(|q| *q == '"' || *q == '\'');
                let value = quote.map_or(value, |q| &value[q.len_utf8()..]);
                let end = value
                    .find(|c: char| Some(c) == quote || (quote.is_none() && c.is_whitespace()))
                    .unwrap_or(value.len());
                push(&value[..end]);
            }
        }
    }
    links
}

/// GitHub's anchor for a heading's text: links reduced to their text, lower case, every
/// character but letters, digits, `-`, `_` and spaces dropped, spaces turned to `-`.
pub fn slug(heading: &str) -> String {
    let mut text = String::new();
    let mut rest = heading;
    // `[text](url)` -> `text`
    while let Some(open) = rest.find('[') {
        let Some(mid) = rest[open..].find("](").map(|m| open + m) else {
            break;
        };
        let Some(target) = target_at(&rest[mid + 2..]) else {
            break;
        };
        text.push_str(&rest[..open]);
        text.push_str(&rest[open + 1..mid]);
        rest = &rest[mid + 2 + target.len() + 1..];
    }
    text.push_str(rest);
    text.trim()
        .chars()
        .flat_map(char::to_lowercase)
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// Every anchor `markdown` defines: its headings' slugs (a repeated one as `slug-1`,
/// `slug-2`, ...) and any `id="..."` or `name="..."` of its HTML.
pub fn anchors(markdown: &str) -> HashSet<String> {
    let mut found = HashSet::new();
    for (_, text) in prose(markdown) {
        let hashes = text.chars().take_while(|c| *c == '#').count();
        if (1..=6).contains(&hashes) && text[hashes..].starts_with(' ') {
            let base = slug(text[hashes..].trim_end_matches('#'));
            let mut anchor = base.clone();
            let mut n = 0;
            while found.contains(&anchor) {
                n += 1;
                anchor = format!("{base}-{n}");
            }
            found.insert(anchor);
        }
        for attribute in ["id=\"", "name=\""] {
            let mut rest = text.as_str();
            while let Some(at) = rest.find(attribute) {
                rest = &rest[at + attribute.len()..];
                if let Some(end) = rest.find('"') {
                    found.insert(rest[..end].to_string());
                }
            }
        }
    }
    found
}

/// Whether `target` leaves the repository: a URL with a scheme, or mail.
fn external(target: &str) -> bool {
    target.starts_with("mailto:")
        || target.starts_with("//")
        || target
            .find("://")
            .is_some_and(|at| target[..at].chars().all(|c| c.is_ascii_alphanumeric()))
}

/// What is wrong with `markdown`'s links, one line each (`line N: ...`): a relative target
/// whose file `exists` denies (resolved against `dir`, its anchor ignored), or an
/// `#anchor` no heading of `markdown` makes.
pub fn broken(markdown: &str, dir: &Path, exists: &dyn Fn(&Path) -> bool) -> Vec<String> {
    let anchors = anchors(markdown);
    let mut problems = Vec::new();
    for Link { line, target } in targets(markdown) {
        if target.is_empty() || external(&target) {
            continue;
        }
        let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
        if file.is_empty() {
            if !anchors.contains(anchor) {
                problems.push(format!("line {line}: no heading makes anchor #{anchor}"));
            }
        } else if !exists(&dir.join(file.replace("%20", " "))) {
            problems.push(format!("line {line}: {file} does not exist"));
        }
    }
    problems
}

#[cfg(test)]
#[path = "links_tests.rs"]
mod tests;

//! The committed documents keep to their shape: README.md's first screen has no line over
//! 300 characters but its link lines, and one table of at most 12 rows; BENCHMARKS.md has
//! no paragraph over 1,000 characters (a bullet list without blank lines between its items
//! counting as one) and no table row over 250. Each generator is held
//! to it by its own tests; this catches a view written by an older generator or by hand.

use harness::servers::workspace_root;

fn read(name: &str) -> String {
    std::fs::read_to_string(workspace_root().join(name)).unwrap()
}

#[test]
fn readme_first_screen_is_a_shape_not_a_wall() {
    let readme = read("README.md");
    let screen = readme
        .split("<!-- BEGIN FIRST SCREEN")
        .nth(1)
        .and_then(|rest| rest.split("<!-- END FIRST SCREEN -->").next())
        .expect("README.md has its first screen");
    let mut rows = 0;
    for line in screen.lines().skip(1) {
        if line.starts_with('|') {
            rows += 1;
        }
        let link_line = line.contains("](") && !line.starts_with('|') && !line.starts_with("- ");
        assert!(
            link_line || line.chars().count() < 300,
            "{} characters: {line}",
            line.chars().count()
        );
    }
    assert!(rows <= 12 + 2, "{rows} table lines");
    let before: usize = readme
        .split("<!-- END FIRST SCREEN -->")
        .next()
        .unwrap()
        .lines()
        .count();
    assert!(before <= 40, "the first screen ends on line {before}");
}

/// The paragraphs of `text` with the line each starts on: runs of lines between blank
/// lines, so a bullet list written without blank lines between its items is one paragraph;
/// tables, code blocks and comment lines (the generated sections' markers) apart.
fn paragraphs(text: &str) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut open = false;
    let mut code = false;
    for (number, line) in text.lines().enumerate() {
        if line.starts_with("```") {
            code = !code;
        }
        let apart = line.trim().is_empty() || line.starts_with('|') || line.starts_with("<!--");
        if code || line.starts_with("```") || apart {
            open = false;
            continue;
        }
        match (open, out.last_mut()) {
            (true, Some((_, paragraph))) => {
                paragraph.push('\n');
                paragraph.push_str(line);
            }
            _ => out.push((number + 1, line.to_string())),
        }
        open = true;
    }
    out
}

#[test]
fn a_bullet_list_without_blank_lines_is_one_paragraph() {
    let text = "intro\n\n- one\n- two\n  wrapped\n\n| a |\n```\ncode\n```\n- three\n";
    let found: Vec<(usize, String)> = paragraphs(text);
    assert_eq!(
        found,
        [
            (1, "intro".to_string()),
            (3, "- one\n- two\n  wrapped".to_string()),
            (11, "- three".to_string())
        ]
    );
}

#[test]
fn benchmarks_has_no_wall_of_text() {
    let text = read("BENCHMARKS.md");
    for (number, line) in text.lines().enumerate() {
        let length = line.chars().count();
        if line.starts_with('|') {
            assert!(
                length <= 250,
                "BENCHMARKS.md:{}: a row of {length} characters",
                number + 1
            );
        }
    }
    for (number, paragraph) in paragraphs(&text) {
        let length = paragraph.chars().count();
        assert!(
            length <= 1000,
            "BENCHMARKS.md:{number}: a paragraph of {length} characters"
        );
    }
}

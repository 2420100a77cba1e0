//! The committed documents keep to their shape: README.md's first screen has no line over
//! 300 characters but its link lines, and one table of at most 12 rows; BENCHMARKS.md has
//! no paragraph over 1,000 characters and no table row over 250. Each generator is held
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

#[test]
fn benchmarks_has_no_wall_of_text() {
    for (number, line) in read("BENCHMARKS.md").lines().enumerate() {
        let length = line.chars().count();
        match line.starts_with('|') {
            true => assert!(
                length <= 250,
                "BENCHMARKS.md:{}: a row of {length} characters",
                number + 1
            ),
            false => assert!(
                length <= 1000,
                "BENCHMARKS.md:{}: {length} characters",
                number + 1
            ),
        }
    }
}

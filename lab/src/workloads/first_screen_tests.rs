//! README's first screen on a small synthetic report: the bottom line states each saving
//! with its unit, names the rows it does not win, fits the screen, and every table row
//! names its measure.

use super::*;
use crate::workloads::Sample;
use harness::servers::{AA_CONTROL, COMPIO, MONOIO, TOKIO_CODEC, TOKIO_HYPER};

const KEEP_ALIVE: &str = "keep-alive, small requests at 50% load";

/// io_uring_server 8 µs, the codec engine 10, hyper 20, the A/A control 8, monoio 9.5,
/// compio 12, every round (the p99 row ties: every figure's p99 is the same).
fn report() -> WorkloadsReport {
    let mut samples = Vec::new();
    for round in 0..4 {
        for (contender, value) in [
            (SUBJECT.id, 8.0),
            (TOKIO_CODEC.id, 10.0),
            (TOKIO_HYPER.id, 20.0),
            (AA_CONTROL.id, 8.0),
            (MONOIO.id, 9.5),
            (COMPIO.id, 12.0),
        ] {
            samples.push(Sample {
                label: contender.into(),
                ..Sample::example(KEEP_ALIVE, contender, round, value)
            });
        }
    }
    let mut report = WorkloadsReport::over(samples);
    report.machine.git_commit = "abc1234".into();
    report.machine.date = "2026-01-02 03:04 UTC".into();
    report
}

#[test]
fn the_bottom_line_states_each_saving_with_its_unit_and_names_the_rest() {
    let text = render(&report());
    assert!(
        text.starts_with("Measured by `scripts/workloads.sh` on 2026-01-02 03:04 UTC at commit `abc1234`"),
        "{text}"
    );
    assert!(
        text.contains(
            "spends less on 1 of 2 rows: *keep-alive, small requests*, 2.0 of 10.0 µs of server \
             CPU per request (−20%)."
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "- **Where it does not.** It costs the same within ±10% on *keep-alive, small \
             requests (p99 latency)*."
        ),
        "{text}"
    );
    assert!(text.contains("it wins on 1 of 2 rows, saving 20-20%"), "{text}");
    assert!(
        text.contains("monoio −2% on its median row, and it wins 1 of the 1 rows"),
        "{text}"
    );
    assert!(text.contains("compio +10% on its median row, and it wins 0 of the 1 rows"), "{text}");
}

#[test]
fn it_fits_one_screen_and_every_row_names_its_measure() {
    let text = render(&report());
    assert!(text.lines().count() <= 40, "{text}");
    assert!(
        text.contains(
            "| keep-alive, small requests | server CPU µs per request | codec: −2.0 of 10.0 µs \
             (−20%, *wins* by ≥10%) | −2.0 of 10.0 µs (−20%, *wins* by ≥10%) |"
        ),
        "{text}"
    );
    assert!(text.contains("](BENCHMARKS.md#glossary)"), "{text}");
    assert!(text.contains("![verdict](results/verdict.svg)"), "{text}");
}

#[test]
fn the_block_replaces_what_lies_between_its_markers_in_readme() {
    let dir = std::env::temp_dir().join(format!("first-screen-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("README.md"), format!("# x\n\n{BEGIN}\nold\n{END}\n\nafter\n")).unwrap();
    write_block(&dir, &report()).unwrap();
    let written = std::fs::read_to_string(dir.join("README.md")).unwrap();
    assert!(!written.contains("\nold\n") && written.ends_with("\nafter\n"), "{written}");
    assert!(written.contains("**Where it saves.**"), "{written}");
    std::fs::remove_dir_all(&dir).unwrap();
}

//! The two measures side by side: a row whose server CPU and whole-machine CPU point
//! opposite ways is marked, and shown in BENCHMARKS.md with the uploads row; a row where
//! they agree only in the results file.

use super::*;
use harness::servers::{TOKIO_CODEC, TOKIO_HYPER};
use harness::workload::samples::Sample;

const KEEP_ALIVE: &str = "keep-alive, small requests at a fixed rate";

/// io_uring_server and both tokio engines at `workload` over four rounds: server CPU
/// `(mine, codec)`, whole-machine CPU `(mine, codec)`; hyper costs more on both.
fn measured(workload: &str, server: (f64, f64), machine: (f64, f64)) -> Vec<Sample> {
    let mut samples = Vec::new();
    for round in 0..4 {
        for (id, s, m) in [
            (SUBJECT.id, server.0, machine.0),
            (TOKIO_CODEC.id, server.1, machine.1),
            (TOKIO_HYPER.id, server.1 * 2.0, machine.1 * 2.0),
        ] {
            let mut sample = Sample::example(workload, id, round, s);
            sample.machine_cpu_us = Some(m);
            samples.push(sample);
        }
    }
    samples
}

fn report() -> WorkloadsReport {
    // Uploads: 5% more server CPU, 3% less of the whole machine's (issue 72's run).
    let uploads = measured(UPLOADS, (3390.0, 3204.2), (7070.0, 7292.0));
    let keep_alive = measured(KEEP_ALIVE, (7.7, 10.0), (20.0, 24.0));
    WorkloadsReport::over([uploads, keep_alive].concat())
}

#[test]
fn opposite_measures_are_marked_and_agreeing_ones_are_not() {
    let rows = rows(&report());
    let find = |name: &str| {
        rows.iter()
            .find(|(w, _)| w.name == name)
            .map(|(_, r)| r.clone())
            .unwrap()
    };
    let uploads = find(UPLOADS);
    assert_eq!(
        uploads.against, TOKIO_CODEC.label,
        "the cheapest tokio configuration"
    );
    assert!(uploads.server.2 > 1.05 && uploads.machine.2 < 0.97, "{uploads:?}");
    assert!(uploads.opposite());
    assert!(
        !find(KEEP_ALIVE).opposite(),
        "both say io_uring_server costs less"
    );
}

#[test]
fn benchmarks_shows_the_uploads_row_and_the_sentence_on_loopback() {
    let report = report();
    let short = render(&report, Doc::Benchmarks);
    assert!(short.contains(LOOPBACK), "{short}");
    let shown: Vec<&str> = short
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| workload"))
        .collect();
    assert_eq!(shown.len(), 1, "only the uploads row: {short}");
    assert!(shown[0].starts_with("| 20 MiB uploads"), "{short}");
    assert!(
        shown[0].contains("3390.0, 3204.2, 1.06") && shown[0].contains("7070.0, 7292.0, 0.97"),
        "{short}"
    );
    assert!(
        shown[0].contains("**the two measures point opposite ways**"),
        "{short}"
    );
    let full = render(&report, Doc::Results);
    assert!(full.contains("| keep-alive, small requests"), "{full}");
    assert_eq!(full.matches("point opposite ways").count(), 1, "{full}");
}

#[test]
fn a_small_disagreement_is_not_opposite() {
    let row = TwoMeasures {
        label: String::new(),
        against: "",
        server: (1.0, 1.0, 1.005),
        machine: (1.0, 1.0, 0.98),
    };
    assert!(
        !row.opposite(),
        "within {OPPOSITE_MIN} of 1 a ratio points nowhere"
    );
}

#[test]
fn a_report_without_both_measures_renders_nothing() {
    assert_eq!(render(&WorkloadsReport::over(Vec::new()), Doc::Benchmarks), "");
}

#[test]
fn the_ratio_is_the_geometric_mean_of_the_per_round_ratios_as_the_verdicts() {
    // io_uring_server at 5, 5, 5, 20 µs against the codec engine's 10: per-round ratios
    // 0.5, 0.5, 0.5, 2.0, whose median is 0.5 and geometric mean 0.71.
    let mut samples = measured(KEEP_ALIVE, (5.0, 10.0), (20.0, 24.0));
    for sample in &mut samples {
        if sample.contender == SUBJECT.id && sample.round == 3 {
            sample.value = Some(20.0);
        }
    }
    let report = WorkloadsReport::over(samples);
    let (_, row) = rows(&report).into_iter().next().unwrap();
    assert!(
        (row.server.2 - (0.5f64.powi(3) * 2.0).powf(0.25)).abs() < 1e-9,
        "{row:?}"
    );
    let text = render(&report, Doc::Results);
    assert!(text.contains("| 5.0, 10.0, 0.71 |"), "{text}");
    assert!(
        text.contains(
            "÷ is the geometric mean of the per-round ratios (io_uring_server ÷ it), as in the verdict"
        ),
        "{text}"
    );
}

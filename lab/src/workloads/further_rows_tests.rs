//! The sections beyond the verdict on fixed samples: each row judged by the verdict's rule
//! with its A/A control, chunked framing's cost per server, tokio's io_uring file path per
//! file row, and a run without these rows saying so rather than failing.

use super::*;
use crate::workloads::Sample;
use harness::servers::{AA_CONTROL, IO_URING, TOKIO_HYPER};

const CHUNKED: &str = "64 KiB echo, chunked at a fixed rate";
const PLAIN: &str = "64 KiB echo at a fixed rate";
const COLD: &str = "1 MiB files, cold, 16 connections at a fixed rate";
const HOT: &str = "4 KiB files, 256 connections at a fixed rate";

/// Three rounds of `workload`: io_uring_server at `subject`, the A/A control 2% either
/// side of it, then each of `others` at its figure.
fn rounds(workload: &str, subject: f64, others: &[(&str, f64)]) -> Vec<Sample> {
    let mut samples = Vec::new();
    for round in 0..3 {
        let wobble = [1.0, 1.02, 0.98][round];
        samples.push(Sample::example(
            workload,
            IO_URING.id,
            round,
            subject + round as f64,
        ));
        samples.push(Sample::example(
            workload,
            AA_CONTROL.id,
            round,
            (subject + round as f64) * wobble,
        ));
        for (contender, value) in others {
            samples.push(Sample::example(workload, contender, round, value + round as f64));
        }
    }
    samples
}

fn report(samples: Vec<Sample>) -> WorkloadsReport {
    WorkloadsReport {
        judged: Some(Vec::new()),
        ..WorkloadsReport::over(samples)
    }
}

#[test]
fn a_run_from_before_these_rows_says_they_are_not_measured_yet() {
    let old = report(rounds(PLAIN, 10.0, &[(TOKIO_CODEC.id, 12.0)]));
    for section in [bodies(&old), files(&old)] {
        assert!(section.starts_with("Not measured yet: *"), "{section}");
        assert!(
            section.contains("`scripts/workloads.sh` measures them"),
            "{section}"
        );
    }
    assert!(bodies(&old).contains(&format!("*{CHUNKED}*")));
    assert!(files(&old).contains(&format!("*{COLD}*")));
}

#[test]
fn the_echo_rows_are_judged_and_framing_costed_per_server() {
    let hyper = TOKIO_HYPER.id;
    let samples = [
        rounds(CHUNKED, 20.0, &[(TOKIO_CODEC.id, 17.0), (hyper, 80.0)]),
        rounds(PLAIN, 16.0, &[(TOKIO_CODEC.id, 16.0), (hyper, 16.0)]),
        // Idle connections at two counts: the verdict's fit, no row of this table.
        rounds("1k idle connections", 1000.0, &[(TOKIO_CODEC.id, 2000.0)]),
        rounds("5k idle connections", 5000.0, &[(TOKIO_CODEC.id, 10000.0)]),
    ]
    .concat();
    let section = bodies(&report(samples));
    let row = section
        .lines()
        .find(|l| l.starts_with(&format!("| {CHUNKED}")))
        .unwrap_or_else(|| panic!("no row: {section}"));
    // 20/80, 21/81, 22/82: about a quarter of hyper's, every round.
    assert!(row.contains("| 0.26 **wins** by ≥10% |"), "{row}");
    assert!(row.contains("**loses**"), "against the codec engine: {row}");
    assert!(row.contains("**ties**"), "the A/A control: {row}");
    assert!(
        !section.contains(&format!("| {PLAIN} |")),
        "the verdict's row stays in the verdict"
    );
    assert!(section.contains("the A/A control read"), "{section}");
    assert!(!section.contains("| idle connections"), "{section}");
    // hyper: 80/16, 81/17, 82/18; the median ratio 4.76 and its range.
    assert!(
        section.contains("| tokio_hyper | 4.76 (4.56-5.00) | not measured |"),
        "{section}"
    );
    assert!(section.contains("| io_uring | 1.24 (1.22-1.25) |"), "{section}");
    assert!(
        section.contains("[results/workloads.md](results/workloads.md)"),
        "{section}"
    );
}

#[test]
fn a_server_without_a_framing_ratio_says_it_fell_behind_rather_than_not_measured() {
    let hyper = TOKIO_HYPER.id;
    let mut samples = [
        rounds(CHUNKED, 20.0, &[(TOKIO_CODEC.id, 17.0), (hyper, 80.0)]),
        rounds(PLAIN, 16.0, &[(TOKIO_CODEC.id, 16.0), (hyper, 16.0)]),
    ]
    .concat();
    // hyper fell behind the plain row's rate in every round: no value, no ratio.
    for sample in &mut samples {
        if sample.contender == hyper && sample.workload == PLAIN {
            sample.value = None;
        }
    }
    let report = report(samples);
    let section = bodies(&report);
    assert!(
        section.contains("| tokio_hyper | fell behind in every round (Content-Length) | not measured |"),
        "{section}"
    );
    assert_eq!(
        no_ratio(&report, hyper, CHUNKED, PLAIN),
        "fell behind in every round (Content-Length)"
    );
    assert_eq!(no_ratio(&report, "absent", CHUNKED, PLAIN), "not measured");
}

#[test]
fn the_file_rows_are_judged_and_tokio_io_uring_path_read_on_every_file_row() {
    let fs = TOKIO_CODEC_IO_URING_FS.id;
    let samples = [
        rounds(COLD, 250.0, &[(TOKIO_CODEC.id, 650.0), (fs, 600.0)]),
        rounds(HOT, 12.0, &[(TOKIO_CODEC.id, 40.0), (fs, 24.0)]),
    ]
    .concat();
    let section = files(&report(samples));
    let (table, tokio_part) = section
        .split_once("### How far tokio's own io_uring file path moves tokio")
        .unwrap();
    assert!(table.contains(&format!("| {COLD}")), "{table}");
    assert!(
        !table.contains(&format!("| {HOT}")),
        "the verdict's row stays in the verdict"
    );
    let hot = tokio_part
        .lines()
        .find(|l| l.starts_with(&format!("| {HOT} |")))
        .unwrap();
    assert!(hot.contains("**wins**"), "24/40 and on: {hot}");
    let cold = tokio_part
        .lines()
        .find(|l| l.starts_with(&format!("| {COLD} |")))
        .unwrap();
    assert!(cold.contains("0.92 ("), "600/650 and on: {cold}");
}

#[test]
fn the_committed_benchmarks_has_both_sections_for_the_run_to_rewrite() {
    let text = std::fs::read_to_string(harness::servers::workspace_root().join("BENCHMARKS.md")).unwrap();
    for (begin, end) in [BODIES, FILES] {
        let at = text.find(begin).unwrap_or_else(|| panic!("no {begin}"));
        assert!(text[at..].contains(end), "{end}");
    }
}

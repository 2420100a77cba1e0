//! The workloads report on fixed samples: the verdict judges every baseline, requests/s
//! is inverted, one connection has a CPU row, anchors stay out of the verdict, and the
//! detail lists every round.

use super::*;
use crate::workloads::Sample;
use harness::machine::Machine;
use harness::servers::AA_CONTROL;

fn sample(workload: &str, contender: &str, round: usize, value: f64) -> Sample {
    Sample::example(workload, contender, round, value)
}

fn report() -> WorkloadsReport {
    let mut samples = Vec::new();
    for round in 0..3 {
        let r = round as f64;
        samples.push(sample("64 KiB echo", "io_uring", round, 8.0 + r));
        samples.push(sample("64 KiB echo", "tokio_codec", round, 10.0 + r));
        samples.push(sample("64 KiB echo", "tokio_hyper", round, 20.0));
        // The A/A control: 2% either side of the subject, alternately.
        let wobble = [1.0, 1.02, 0.98][round];
        samples.push(sample("64 KiB echo", AA_CONTROL.id, round, (8.0 + r) * wobble));
        samples.push(sample("one connection", "io_uring", round, 25.0));
        samples.push(sample("one connection", "nginx", round, 24.0));
        samples.push(Sample {
            server_cpu_us: Some(30.0),
            ..sample("one connection", "tokio_codec", round, 25.0)
        });
        samples.push(sample("4 connections", "io_uring", round, 120.0 + r));
        samples.push(sample("4 connections", "tokio_codec", round, 100.0));
    }
    WorkloadsReport {
        machine: Machine::detect(),
        pinning: "server CPU 0, client CPU 1".into(),
        rounds: 3,
        base_rounds: None,
        detail_rounds: 3,
        seconds_per_point: 1.0,
        slices: 4,
        judged: None,
        calibrations: Vec::new(),
        samples,
    }
}

#[test]
fn the_verdict_judges_every_baseline_from_the_rounds() {
    let text = verdict(&report(), "results/");
    // 8/10, 9/11, 10/12 are 0.80, 0.82, 0.83: the interval lies below 0.90.
    assert!(
        text.contains(
            "| 64 KiB echo | server CPU µs per request, saturated closed loop | 0.82 (0.78-0.86, 3 rounds) **wins** by ≥10% \
             | 0.45 (0.34-0.59, 3 rounds) **wins** by ≥10% | 1.00 (0.95-1.05, 3 rounds) **ties** |"
        ),
        "{text}"
    );
    assert!(
        text.contains("The rule decided 5 of 8 cells (*wins*, *loses* or *ties*); the A/A control read *ties* in 1 of 1 rows."),
        "{text}"
    );
    assert!(text.contains("[results/workloads.md](results/workloads.md)"));
}

/// Requests/s is inverted (codec's 100 ÷ io_uring's 120-122), and one connection gets
/// a CPU row beside its round trip (25 ÷ 30 in every round).
#[test]
fn requests_per_second_are_inverted_and_one_connection_has_a_cpu_row() {
    let text = verdict(&report(), "");
    assert!(
        text.contains("| 4 connections | requests/s (the cell is the baseline's ÷ io_uring_server's) | 0.83 (0.81-0.84, 3 rounds) **wins** by ≥10% |"),
        "{text}"
    );
    assert!(
        text.contains("| one connection | median round trip, µs | 1.00 (1.00-1.00, 3 rounds) **ties** |"),
        "{text}"
    );
    assert!(
        text.contains(
            "| one connection | server CPU µs per request | 0.83 (0.83-0.83, 3 rounds) **wins** by ≥10% |"
        ),
        "{text}"
    );
}

#[test]
fn an_anchor_has_detail_rows_but_no_verdict_column_and_reads_not_measured_where_absent() {
    let text = render(&report());
    assert!(text.contains("| nginx | 24.0 24.0 24.0 | 24.0 |"), "{text}");
    assert!(
        text.contains("| nginx (outside anchor) | not measured: "),
        "{text}"
    );
    assert!(text.contains(ANCHOR_NOTE), "{text}");
    let verdict = verdict(&report(), "");
    let table = verdict.lines().filter(|line| line.starts_with('|'));
    assert!(table.clone().all(|line| !line.contains("nginx")), "{verdict}");
}

#[test]
fn the_detail_lists_every_round_and_the_syscalls_counted_once() {
    let text = render(&report());
    assert!(text.contains("## 64 KiB echo"), "{text}");
    assert!(
        text.contains(
            "extra modules) |  |  |  |  |  |  |\n\nWhat bounds it: the kernel copies each body twice"
        ),
        "the echo's detail says what bounds it: {text}"
    );
    assert!(
        text.contains("| io_uring | 8.0 9.0 10.0 | 9.0 | 27.0 | 1000 | 50 | 0.50 | client |"),
        "{text}"
    );
}

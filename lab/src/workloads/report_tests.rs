//! The workloads report on fixed samples: the verdict judges every baseline, requests/s
//! is inverted, one connection has a CPU row, anchors stay out of the verdict, the
//! detail lists every round, and the uploads' row is judged and explained like the others.

use super::*;
use crate::workloads::Sample;
use harness::machine::Machine;
use harness::servers::AA_CONTROL;

/// The echo at its fixed rate: a verdict row (its saturated closed loop is a capacity).
const ECHO: &str = "64 KiB echo at a fixed rate";

fn sample(workload: &str, contender: &str, round: usize, value: f64) -> Sample {
    Sample::example(workload, contender, round, value)
}

fn report() -> WorkloadsReport {
    let mut samples = Vec::new();
    for round in 0..3 {
        let r = round as f64;
        samples.push(sample(ECHO, "io_uring", round, 8.0 + r));
        samples.push(sample(ECHO, "tokio_codec", round, 10.0 + r));
        samples.push(sample(ECHO, "tokio_hyper", round, 20.0));
        // The A/A control: 2% either side of the subject, alternately.
        let wobble = [1.0, 1.02, 0.98][round];
        samples.push(sample(ECHO, AA_CONTROL.id, round, (8.0 + r) * wobble));
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
        server_machine: None,
        machine: Machine::detect(),
        pinning: "server CPU 0, client CPU 1".into(),
        rounds: 3,
        base_rounds: None,
        detail_rounds: 3,
        seconds_per_point: 1.0,
        slices: 4,
        judged: None,
        calibrations: Vec::new(),
        outside: Vec::new(),
        samples,
    }
}

#[test]
fn the_verdict_judges_every_baseline_from_the_rounds() {
    let text = verdict(&report(), Doc::Results);
    // 8/10, 9/11, 10/12 are 0.80, 0.82, 0.83: the interval lies below 0.90.
    assert!(
        text.contains(
            "| 64 KiB echo at a fixed rate | server CPU µs per request, fixed open-loop rate | 0.82 (0.78-0.86, 3 rounds) **wins** by ≥10% \
             against tokio_server (codec) | 0.82 (0.78-0.86, 3 rounds) **wins** by ≥10% \
             | 0.45 (0.34-0.59, 3 rounds) **wins** by ≥10% | 1.00 (0.95-1.05, 3 rounds) **ties** |"
        ),
        "{text}"
    );
    // BENCHMARKS.md states each row in a line: the ratio and the word.
    let text = verdict(&report(), Doc::Benchmarks);
    assert!(
        text.contains(
            "| 64 KiB echo at a fixed rate | server CPU µs per request | 0.82 **wins** by ≥10% \
             against tokio_server (codec) | 0.82 **wins** by ≥10% | 0.45 **wins** by ≥10% | 1.00 \
             **ties** |"
        ),
        "{text}"
    );
    assert!(
        text.contains("The rule decided 7 of 9 cells (*wins*, *loses* or *ties*); the A/A control read *ties* in 1 of 1 cells judged, *wins* or *loses* in 0, *inconclusive* in 0."),
        "{text}"
    );
    assert!(text.contains("[results/workloads.md](results/workloads.md)"));
    assert!(text.lines().all(|line| line.chars().count() <= 1000), "{text}");
}

/// Requests/s on a few connections is in the details, not the verdict (the client bounds
/// it here), and one connection gets a CPU row beside its round trip (25 ÷ 30 in every
/// round).
#[test]
fn requests_per_second_are_no_verdict_row_and_one_connection_has_a_cpu_row() {
    let text = verdict(&report(), Doc::Results);
    assert!(!text.contains("| 4 connections |"), "{text}");
    assert!(text.contains("## 4 connections") || render(&report()).contains("## 4 connections"));
    assert!(
        text.contains("| one connection | median round trip, µs | 1.00 (1.00-1.00, 3 rounds) **ties** against tokio_server (codec) |"),
        "{text}"
    );
    assert!(
        text.contains(
            "| one connection | server CPU µs per request | 0.83 (0.83-0.83, 3 rounds) **wins** by ≥10% against tokio_server (codec) |"
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
    let verdict = verdict(&report(), Doc::Results);
    let table = verdict.lines().filter(|line| line.starts_with('|'));
    assert!(table.clone().all(|line| !line.contains("nginx")), "{verdict}");
}

#[test]
fn the_detail_lists_every_round_and_the_syscalls_counted_once() {
    // The echo's saturated closed loop: a capacity, in the details only.
    let mut saturated = report();
    for sample in &mut saturated.samples {
        if sample.workload == ECHO {
            sample.workload = "64 KiB echo".into();
        }
    }
    let text = render(&saturated);
    assert!(text.contains("## 64 KiB echo"), "{text}");
    assert!(
        text.contains(
            "extra modules) |  |  |  |  |  |  |\n\nWhat bounds it: the kernel copies each body twice"
        ),
        "the echo's detail says what bounds it: {text}"
    );
    assert!(
        text.contains("| io_uring | 8.0 9.0 10.0 | 9.0 | 27.0 | 1,000 | 50 | 0.50 | client |"),
        "{text}"
    );
}

#[test]
fn benchmarks_gets_the_verdict_under_one_provenance_line() {
    let short = verdict(&report(), Doc::Benchmarks);
    let first = short.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("Generated by `scripts/workloads.sh` on "),
        "{short}"
    );
    assert!(first.ends_with("; method: [Method](#method)."), "{first}");
    assert!(harness::stale::commit_of(first).is_some(), "{first}");
    assert!(!short.contains(harness::judge::METHOD) && !short.contains("Williams"));
    assert!(short.contains("| 64 KiB echo at a fixed rate |"), "{short}");
    let full = verdict(&report(), Doc::Results);
    assert!(
        full.contains(harness::judge::METHOD) && full.contains("Williams"),
        "{full}"
    );
}

/// The uploads' fixed-rate row: judged like every cost row, its details say what bounds it
/// and why nginx, measured elsewhere, has no figure there.
#[test]
fn the_upload_row_is_judged_at_its_fixed_rate_and_its_details_say_why_nginx_is_absent() {
    const UPLOADS: &str = "20 MiB uploads at a fixed rate";
    let mut samples = Vec::new();
    for round in 0..3 {
        let r = round as f64;
        for (contender, value) in [
            ("io_uring", 4000.0 + 10.0 * r),
            ("tokio_codec", 5000.0 + 10.0 * r),
            ("tokio_hyper", 5200.0),
            (AA_CONTROL.id, 4000.0 + 10.0 * r),
        ] {
            samples.push(Sample {
                offered_per_sec: Some(80.0),
                ..sample(UPLOADS, contender, round, value)
            });
        }
        samples.push(sample("one connection", "nginx", round, 24.0));
    }
    let report = WorkloadsReport {
        judged: Some(vec![UPLOADS.into(), "one connection".into()]),
        samples,
        ..report()
    };
    let table = verdict(&report, Doc::Results);
    assert!(
        table.contains(
            "| 20 MiB uploads at 80.0 req/s | server CPU µs per request, fixed open-loop rate \
             | 0.80 (0.80-0.80, 3 rounds) **wins** by ≥10% \
             against tokio_server (codec) | 0.80 (0.80-0.80, 3 rounds) **wins** by ≥10% |"
        ),
        "{table}"
    );
    let text = render(&report);
    assert!(text.contains(&format!("## {UPLOADS}")), "{text}");
    assert!(
        text.contains(
            "| nginx (outside anchor) | not measured: it cannot serve this workload (nginx: no receipt \
             of an upload's length and CRC32C without extra modules) |"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "What bounds it: a request here is one whole upload. Every server reads each upload as it arrives"
        ),
        "{text}"
    );
}

/// A round a server fell behind the offered rate in counts for nothing in the details'
/// per-request medians (its p99, its whole-machine CPU), as in the tail table.
#[test]
fn the_details_medians_leave_out_the_rounds_a_server_fell_behind_in() {
    let mut samples = Vec::new();
    for round in 0..3 {
        for contender in ["io_uring", "tokio_codec", "tokio_hyper"] {
            let behind = contender == "io_uring" && round == 2;
            samples.push(Sample {
                offered_per_sec: Some(1000.0),
                p99_us: [40, 60, 9000][round],
                value: (!behind).then_some(8.0),
                ..sample(ECHO, contender, round, 8.0)
            });
        }
    }
    let report = WorkloadsReport {
        judged: Some(vec![ECHO.into()]),
        samples,
        ..report()
    };
    let text = render(&report);
    assert!(
        text.contains("| io_uring | 8.0 8.0 fell behind | 8.0 | 24.0 | 1,000 | 50 | 0.50 | client |"),
        "the p99's median over the two rounds it kept up in (40 and 60): {text}"
    );
    assert!(
        text.contains("| tokio_codec | 8.0 8.0 8.0 | 8.0 | 24.0 | 1,000 | 60 |"),
        "{text}"
    );
}

/// A workload of the verdict's kind is one catalogue entry: from its samples alone, the one
/// renderer gives every entry the verdict judges a row in the verdict and a section in the
/// details, with no code of its own (the study's plan runs every entry).
#[test]
fn every_judged_catalogue_entry_gets_a_verdict_row_and_a_section_from_its_samples_alone() {
    let judged: Vec<_> = WORKLOADS
        .iter()
        .filter(|w| harness::workload::scope::in_verdict(w))
        .collect();
    assert!(judged.len() >= 10, "{}", judged.len());
    let mut samples = Vec::new();
    for workload in &judged {
        for round in 0..3 {
            samples.push(sample(workload.name, "io_uring", round, 8.0));
            samples.push(sample(workload.name, "tokio_codec", round, 10.0));
        }
    }
    let report = WorkloadsReport {
        samples,
        judged: Some(judged.iter().map(|w| w.name.to_string()).collect()),
        ..report()
    };
    let (table, details) = (verdict(&report, Doc::Benchmarks), render(&report));
    for workload in judged {
        // The idle workloads are one row: the slope of memory over their counts.
        let row = match workload.shape {
            harness::workload::Shape::Idle { .. } => "idle connections",
            _ => workload.name,
        };
        assert!(
            table.contains(&format!("\n| {row} |")),
            "{}: {table}",
            workload.name
        );
        assert!(
            details.contains(&format!("\n## {}\n", workload.name)),
            "{}",
            workload.name
        );
    }
}

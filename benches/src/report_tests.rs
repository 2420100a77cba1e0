//! The markdown rendering on fixed input, against a golden file.

use super::*;
use harness::workload::offered::{Calibration, FlatOut};
use harness::workload::samples::Sample;

fn usage(server_cpu_s: Option<f64>, client_cpu_s: f64) -> Usage {
    Usage {
        requests: 100_000,
        wall_s: 10.0,
        server_cpu_s,
        client_cpu_s,
        machine_cpu_s: server_cpu_s.map(|s| s + client_cpu_s + 1.0),
        server_cpus: 1,
        client_cpus: 1,
    }
}

fn row(contender: &str, label: &str, mean_ns: f64, usage: Usage) -> Row {
    let estimates = Estimates {
        mean_ns,
        mean_low_ns: mean_ns * 0.98,
        mean_high_ns: mean_ns * 1.02,
        median_ns: mean_ns * 0.99,
    };
    Row {
        contender: contender.into(),
        label: label.into(),
        estimates,
        usage,
    }
}

/// Three rounds of the 64 KiB echo at a fixed rate: io_uring_server at 8 µs per request, the
/// codec at 10 and hyper at 10 ± 2%, so the first ratio wins and the second does not
/// decide; its rate calibrated on the three, hyper's capacity the smallest.
fn verdict() -> WorkloadsReport {
    let mut samples = Vec::new();
    for round in 0..3 {
        for (contender, value) in [
            ("io_uring", 8.0),
            ("tokio_codec", 10.0),
            ("tokio_hyper", [10.0, 7.0, 9.0][round]),
        ] {
            samples.push(Sample::example(
                "64 KiB echo at a fixed rate",
                contender,
                round,
                value,
            ));
        }
    }
    WorkloadsReport {
        server_machine: None,
        machine: Machine::example(),
        pinning: "server on CPU 0, client on CPU 1".into(),
        rounds: 3,
        base_rounds: None,
        detail_rounds: 0,
        seconds_per_point: 1.0,
        slices: 4,
        judged: None,
        calibrations: vec![Calibration::new(
            "64 KiB echo",
            vec![
                flat_out("io_uring_server", 30_000.0, 25.0),
                flat_out("tokio_server (codec)", 29_000.0, 30.0),
                flat_out("tokio_server (hyper)", 27_000.0, 32.0),
            ],
        )],
        outside: Vec::new(),
        samples,
    }
}

fn flat_out(label: &str, requests_per_sec: f64, server_cpu_us: f64) -> FlatOut {
    FlatOut {
        label: label.into(),
        requests_per_sec,
        server_cpu_us: Some(server_cpu_us),
        client_busy: 0.97,
        cpus: 1,
    }
}

fn fixture() -> Report {
    Report {
        machine: Machine {
            wake_up: Some(Box::new(harness::wake_up::WakeUp::example())),
            ..Machine::example()
        },
        run: RunInfo {
            profile: "quick".into(),
            warm_up_s: 1.0,
            measurement_s: 3.0,
            sample_size: 20,
            resamples: 10_000,
            pinning: "server on CPU 0, client on CPU 1".into(),
            warning: None,
        },
        verdict: Some(verdict()),
        scenarios: vec![
            ScenarioReport {
                name: "single".into(),
                description: "one request".into(),
                requests_per_iteration: 1,
                throughput: false,
                rows: vec![
                    row(
                        "tokio_hyper",
                        "tokio_server (hyper)",
                        40_000.0,
                        usage(Some(0.9), 3.0),
                    ),
                    row("io_uring", "io_uring_server", 30_000.0, usage(Some(0.6), 3.0)),
                ],
            },
            ScenarioReport {
                name: "throughput_1000".into(),
                description: "a thousand requests".into(),
                requests_per_iteration: 1000,
                throughput: true,
                rows: vec![
                    row(
                        "tokio_hyper",
                        "tokio_server (hyper)",
                        9_500_000.0,
                        usage(Some(9.5), 9.0),
                    ),
                    row("io_uring", "io_uring_server", 8_000_000.0, usage(None, 9.9)),
                ],
            },
        ],
    }
}

#[test]
fn markdown_matches_the_golden_file() {
    let rendered = render_markdown(&fixture(), None);
    let golden_path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/report.md");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(golden_path, &rendered).unwrap();
    }
    let golden = std::fs::read_to_string(golden_path).expect("golden file (UPDATE_GOLDEN=1 writes it)");
    assert_eq!(rendered, golden);
    assert!(
        rendered.contains("| 64 KiB echo | 13,500 | ")
            && rendered.contains("capped at 50% of the lowest flat-out requests/s among them")
            && rendered.contains("| 34% |"),
        "the rates table under the verdict"
    );
}

#[test]
fn bottleneck_names_the_saturated_side() {
    assert!(
        usage(Some(9.5), 3.0)
            .bottleneck()
            .starts_with("server (server 95%")
    );
    assert!(
        usage(Some(3.0), 9.0)
            .bottleneck()
            .starts_with("client (server 30%, client 90%")
    );
    assert!(usage(Some(1.0), 2.0).bottleneck().starts_with("neither"));
    assert!(usage(None, 2.0).bottleneck().starts_with("unknown"));
}

#[test]
fn the_terminal_ends_with_cpu_per_request_and_where_to_read_on() {
    let text = terminal_summary(&fixture());
    let single = text
        .lines()
        .find(|l| l.starts_with("single"))
        .expect("a single row");
    // 0.9 s of server CPU over the 100,000 requests `usage` counts: 9.0 µs each.
    let hyper = usage(Some(0.9), 3.0).server_us_per_request().unwrap();
    assert!(single.contains(&format!("{hyper:.1}")), "{single}");
    let throughput = text.lines().find(|l| l.starts_with("throughput_1000")).unwrap();
    assert!(
        throughput.trim_end().ends_with("n/a"),
        "an external server has no CPU: {throughput}"
    );
    assert!(
        text.trim_end().ends_with("results/sweep.md (scripts/sweep.sh)"),
        "{text}"
    );
    assert!(text.contains("io_uring_server") && text.contains("tokio_server (hyper)"));
}

#[test]
fn the_benchmarks_section_is_the_short_verdict_and_matches_its_golden_file() {
    let rendered = crate::output::headline(&fixture(), None);
    let golden_path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/benchmarks_section.md");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(golden_path, &rendered).unwrap();
    }
    let golden = std::fs::read_to_string(golden_path).expect("golden file (UPDATE_GOLDEN=1 writes it)");
    assert_eq!(rendered, golden);
    let first = rendered.lines().next().unwrap_or_default();
    assert!(harness::stale::commit_of(first).is_some(), "{first}");
    assert!(first.ends_with("; method: [Method](#method)."), "{first}");
    assert!(rendered.contains("| 64 KiB echo at a fixed rate |"), "{rendered}");
    assert!(
        !rendered.contains("## single") && !rendered.contains("Williams"),
        "{rendered}"
    );
    assert!(
        rendered.contains("[results/latest.md](results/latest.md)"),
        "{rendered}"
    );
    let full = render_markdown(&fixture(), None);
    assert!(full.contains("## single") && full.contains("Williams"), "{full}");
}

//! The scan's report on fixed points: every check judged by the one rule, a default behind batched waits is named with its count, a client-bound
//! point is marked, and the files are written.

use super::*;
use crate::scan::report::render;
use harness::load::{LoadKind, blank_point};

/// Three rounds at every count: the default at 100k req/s and 8 µs, its A/A control
/// within ±12%, batched waits alike except 40% fewer requests/s at 4 connections, the
/// codec 20% dearer; the client saturated at 16 connections for the codec only.
fn report() -> ScanReport {
    let mut points = Vec::new();
    for round in 0..3 {
        let wobble = [1.0, 1.12, 0.95][round];
        // One stray A/A round at 1024 connections, beyond the nine in ten.
        let wobble = |c: usize| if c == 1024 && round == 1 { 1.6 } else { wobble };
        for c in CONNECTIONS {
            let mut add = |id: &str, rps: f64, cpu: f64, busy: f64| {
                points.push(ScanPoint {
                    round,
                    order: 0,
                    point: Point {
                        connections: c,
                        requests_per_sec: rps,
                        server_cpu_us_per_request: Some(cpu),
                        client_busy: busy,
                        ..blank_point(id, LoadKind::Closed)
                    },
                });
            };
            add(IO_URING.id, 100_000.0, 8.0, 0.5);
            add(CONTROL.id, 100_000.0 / wobble(c), 8.0 * wobble(c), 0.5);
            let batched = if c == 4 { 60_000.0 } else { 100_000.0 };
            add(BATCHED.id, batched, 8.0, 0.5);
            add(TOKIO_CODEC.id, 90_000.0, 9.6, if c == 16 { 0.97 } else { 0.5 });
        }
    }
    ScanReport {
        machine: Machine::example(),
        pinning: "server on CPU 0, client on CPU 1".into(),
        seconds_per_point: 3.0,
        rounds: 3,
        slices: 4,
        contenders: [IO_URING, BATCHED, CONTROL, TOKIO_CODEC]
            .iter()
            .map(|c| (c.id.to_string(), c.label.to_string()))
            .collect(),
        points,
        calibration: Vec::new(),
    }
}

#[test]
fn every_check_is_judged_by_the_one_rule() {
    let report = report();
    // The A/A control's stray round at 1024 connections leaves that count undecided.
    assert_eq!(
        report.judge((CONTROL.id, IO_URING.id), 1024, CPU),
        Word::Inconclusive
    );
    // Batched waits serve 40% fewer requests/s at 4 connections: the default wins there
    // on requests/s, and ties elsewhere.
    assert_eq!(report.judge((IO_URING.id, BATCHED.id), 4, RPS), Word::Wins);
    assert_eq!(report.judge((IO_URING.id, BATCHED.id), 8, RPS), Word::Ties);
    assert_eq!(report.judge(VERSUS_CODEC, 64, CPU), Word::Wins);
    assert!(report.default_behind_batching().is_empty());
}

#[test]
fn a_default_behind_batching_is_named_with_its_count() {
    let mut report = report();
    for p in report.points.iter_mut() {
        let io_uring = [IO_URING.id, CONTROL.id].contains(&p.point.contender.as_str());
        if io_uring && p.point.connections == 256 {
            p.point.server_cpu_us_per_request = p.point.server_cpu_us_per_request.map(|v| v * 1.25);
        }
    }
    assert_eq!(report.default_behind_batching(), [256]);
    assert!(render(&report).contains(
        "the rule finds the default io_uring_server behind itself with batched waits on at 256 connections"
    ));
}

#[test]
fn client_bound_points_are_marked_and_every_table_is_there() {
    let text = render(&report());
    let row_16 = text
        .lines()
        .find(|l| l.starts_with("| 16 |") && l.contains("90,000"))
        .expect("the requests/s row at 16");
    assert!(row_16.contains("90,000 ‡"), "{row_16}");
    assert!(!row_16.contains("100,000 ‡"), "{row_16}");
    for heading in [
        "## Requests/s",
        "## Server CPU per request",
        "## Latency p50 / p99",
        "## Client CPU busy",
        "## Checks",
        "## Calibration",
    ] {
        assert!(text.contains(heading), "{heading}");
    }
    assert!(text.contains("at no count does the rule find the default io_uring_server"));
}

#[test]
fn wrk_summaries_are_read_and_errors_refused() {
    let good = "Running 3s test\n  120000 requests in 3.00s, 10.00MB read\nRequests/sec:  40000.00\n";
    assert_eq!(calibrate::parse_wrk(good), Ok((120_000, 40_000.0)));
    let bad = format!("{good}  Non-2xx or 3xx responses: 12\n");
    assert!(calibrate::parse_wrk(&bad).unwrap_err().contains("Non-2xx"));
    assert!(calibrate::parse_wrk("nothing").is_err());
}

#[test]
fn the_report_and_plots_are_written() {
    let dir = std::env::temp_dir().join(format!("scan-report-{}", std::process::id()));
    report::write_all(&dir, &report()).unwrap();
    for file in ["scan.md", "scan.json", "scan_rps.svg", "scan_cpu.svg"] {
        assert!(dir.join(file).exists(), "{file}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

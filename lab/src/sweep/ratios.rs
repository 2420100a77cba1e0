//! The sweep's bottom line: io_uring_server's figures divided by tokio_server's engines
//! (server CPU per request and syscalls in the closed loop and pipelined requests/s at
//! [`DETAIL_CONNECTIONS`], and open-loop p99 at [`COMPARED_SHARE`] of the slowest peak,
//! the median of its rounds), all from one interleaved run.

use crate::sweep::{DETAIL_CONNECTIONS, PIPELINE_DEPTH, SweepReport};
use harness::format::group_thousands;
use harness::load::{LoadKind, Point};
use harness::rounds::median;
use harness::servers::{Contender, IO_URING, TOKIO_CODEC, TOKIO_HYPER};

const SUBJECT: Contender = IO_URING;
const REFERENCES: [Contender; 2] = [TOKIO_CODEC, TOKIO_HYPER];

/// The open-loop rate compared, as a share of the slowest contender's peak (one of
/// [`crate::sweep::OPEN_LOOP_SHARES`]).
pub const COMPARED_SHARE: f64 = 0.5;

/// One measure: how to pick its point, read its value, and show it.
struct Measure {
    name: String,
    kind: LoadKind,
    value: fn(&Point) -> Option<f64>,
    show: fn(f64) -> String,
}

/// The markdown section, or nothing if the run lacks io_uring_server or a reference.
pub fn ratios_section(report: &SweepReport) -> String {
    let compared_rate = (report.slowest_peak * COMPARED_SHARE).round();
    let percent = COMPARED_SHARE * 100.0;
    let measures = [
        Measure {
            name: format!("server CPU per request, {DETAIL_CONNECTIONS} connections (lower is better)"),
            kind: LoadKind::Closed,
            value: |p| p.server_cpu_us_per_request,
            show: |v| format!("{v:.2} µs"),
        },
        Measure {
            name: format!(
                "whole-machine CPU per request, {DETAIL_CONNECTIONS} connections (lower is better)"
            ),
            kind: LoadKind::Closed,
            value: |p| p.machine_cpu_us_per_request,
            show: |v| format!("{v:.2} µs"),
        },
        Measure {
            name: format!("syscalls per request, {DETAIL_CONNECTIONS} connections (lower is better)"),
            kind: LoadKind::Closed,
            value: |p| p.syscalls_per_request,
            show: |v| format!("{v:.2}"),
        },
        Measure {
            name: format!(
                "{PIPELINE_DEPTH}-deep pipelined requests/s, {DETAIL_CONNECTIONS} connections (higher is better)"
            ),
            kind: LoadKind::Pipelined,
            value: |p| Some(p.requests_per_sec),
            show: group_thousands,
        },
        Measure {
            name: format!("open-loop p99 at {percent:.0}% of the slowest peak (lower is better)"),
            kind: LoadKind::Open,
            value: |p| Some(p.latency_us.p99 as f64),
            show: |v| format!("{} µs", group_thousands(v)),
        },
    ];
    // The median over the open loop's rounds; the other loads run once.
    let find = |contender: &Contender, m: &Measure| -> Option<f64> {
        let values: Vec<f64> = report
            .points_of(contender.id, m.kind)
            .filter(|p| match m.kind {
                LoadKind::Open => p.rate == Some(compared_rate),
                _ => p.connections == DETAIL_CONNECTIONS,
            })
            .filter_map(m.value)
            .collect();
        median(&values)
    };
    let columns: Vec<String> = REFERENCES.iter().map(|r| format!("÷ {}", r.label)).collect();
    let mut out = format!(
        "\n## {subject} relative to tokio_server\n\n| measure | {subject} | {} |\n|---|---|{}\n",
        columns.join(" | "),
        "---|".repeat(REFERENCES.len()),
        subject = SUBJECT.label,
    );
    for m in &measures {
        let Some(subject) = find(&SUBJECT, m) else {
            continue;
        };
        let ratios: Vec<String> = REFERENCES
            .iter()
            .map(|r| find(r, m).map_or_else(|| "n/a".into(), |v| format!("{:.2}", subject / v)))
            .collect();
        out += &format!(
            "| {} | {} | {} |\n",
            m.name,
            (m.show)(subject),
            ratios.join(" | ")
        );
    }
    out + "\nOne sweep (the open loop's median round): a ratio near 1 is inside this VM's drift \
           between runs.\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use harness::load::blank_point;
    use loadgen::run::Percentiles;

    fn point(contender: &str, kind: LoadKind, rate: Option<f64>, value: f64) -> Point {
        Point {
            rate,
            requests_per_sec: value * 1000.0,
            latency_us: Percentiles {
                p99: value as u64 * 100,
                ..Percentiles::default()
            },
            server_cpu_us_per_request: Some(value),
            syscalls_per_request: Some(value / 10.0),
            ..blank_point(contender, kind)
        }
    }

    #[test]
    fn ratios_divide_io_uring_by_each_engine_at_the_right_points() {
        let mut points = Vec::new();
        for (contender, value) in [("io_uring", 8.0), ("tokio_codec", 10.0), ("tokio_hyper", 16.0)] {
            points.push(point(contender, LoadKind::Closed, None, value));
            points.push(point(contender, LoadKind::Pipelined, None, value));
            points.push(point(contender, LoadKind::Open, Some(25.0), 1.0));
            // Three rounds at 50%: the median is `value`.
            points.push(point(contender, LoadKind::Open, Some(50.0), value * 3.0));
            points.push(point(contender, LoadKind::Open, Some(50.0), value));
            points.push(point(contender, LoadKind::Open, Some(50.0), value / 2.0));
        }
        let report = SweepReport {
            machine: harness::machine::blank(""),
            pinning: String::new(),
            seconds_per_point: 1.0,
            slowest_peak: 100.0,
            open_rounds: 3,
            points,
        };
        let section = ratios_section(&report);
        assert!(
            section.contains(
                "| server CPU per request, 256 connections (lower is better) | 8.00 µs | 0.80 | 0.50 |"
            ),
            "{section}"
        );
        assert!(
            section.contains(
                "| 16-deep pipelined requests/s, 256 connections (higher is better) | 8,000 | 0.80 | 0.50 |"
            ),
            "{section}"
        );
        assert!(
            section.contains(
                "| open-loop p99 at 50% of the slowest peak (lower is better) | 800 µs | 0.80 | 0.50 |"
            ),
            "{section}"
        );
    }
}

//! `results/scaling.{md,json}`, `results/scaling.svg` (from two core counts on) and the
//! scaling section of BENCHMARKS.md, rendered from the study's samples.

use std::fmt::Write as _;
use std::path::Path;

use harness::chart::{Axis, Line, chart_with, colour_of, svg};
use harness::format::group_thousands;
use harness::output::{rewrite_benchmarks_section, write_json};
use harness::rounds::{self, median};
use harness::usage::CLIENT_SATURATED;
use harness::workload::client_bound::busiest;
use plotters::prelude::*;

use super::{CONNECTIONS_PER_CORE, ScalingReport};

pub const BEGIN: &str = "<!-- BEGIN SCALING: scripts/scaling.sh rewrites this section -->";
pub const END: &str = "<!-- END SCALING -->";

/// The picture, beside `results/scaling.md`.
pub const PICTURE: &str = "scaling.svg";

/// Writes `results/scaling.{md,json}`, the picture (two core counts or more) and the
/// BENCHMARKS.md section, under `root`.
pub fn write_all(root: &Path, report: &ScalingReport) -> Result<(), String> {
    let results = root.join("results");
    std::fs::create_dir_all(&results).map_err(|e| format!("{}: {e}", results.display()))?;
    write_json(&results.join("scaling.json"), report)?;
    write_rendered(root, report)
}

/// Every view of `report` but its JSON: what `scripts/scaling.sh --render` writes again.
pub fn write_rendered(root: &Path, report: &ScalingReport) -> Result<(), String> {
    let results = root.join("results");
    if report.counts.len() > 1 {
        draw(&results.join(PICTURE), report)?;
    }
    harness::output::write(&results.join("scaling.md"), &render(report))?;
    rewrite_benchmarks_section(root, (BEGIN, END), &section(report))
}

pub fn render(report: &ScalingReport) -> String {
    let mut out = String::from("# Scaling with cores\n\n");
    let _ = writeln!(
        out,
        "{} At each core count every server runs one worker per core on the first CPUs of the \
         server set: io_uring_server, tokio-uring, monoio and compio one ring or runtime per \
         core, each with its own `SO_REUSEPORT` listener; tokio_server the current-thread \
         scheduler on one core and the multi-thread one with that many workers from two on, \
         while tokio_server (hyper, multi-thread) runs the multi-thread one throughout, so the \
         step from one core to two is not a change of scheduler for it. Each is driven flat out \
         by {CONNECTIONS_PER_CORE} kept-alive connections per core asking `GET /`, from every \
         client CPU. Each figure is the median over the rounds. These are flat-out figures: \
         requests/s is what the server and the client reached together, and the CPU per \
         request is taken at that pace, not at a fixed rate (the verdict's costs are). \
         *client-bound*: the client was at least {:.0}% busy in some round, so the figure is the \
         client's pace more than the server's. nginx (one worker) is not in this study.\n",
        rounds::provenance(
            "scripts/scaling.sh",
            &report.machine,
            &report.pinning,
            (report.rounds, report.seconds_per_point)
        ),
        CLIENT_SATURATED * 100.0
    );
    out += &tables(report);
    out
}

/// BENCHMARKS.md's section: the provenance line, what the run could show, the tables.
fn section(report: &ScalingReport) -> String {
    format!(
        "{}\n\nEvery round and the method: [results/scaling.md](results/scaling.md).\n\n{}",
        rounds::short_provenance(
            "scripts/scaling.sh",
            &report.machine,
            (report.rounds, report.seconds_per_point)
        ),
        tables(report)
    )
}

/// What the counts can show, then requests/s and CPU per request by core count.
fn tables(report: &ScalingReport) -> String {
    let mut out = String::new();
    if report.counts.len() == 1 {
        let _ = writeln!(
            out,
            "This run gave the servers {} CPU{} and the client {}, so it has one core count and no \
             curve. On a machine with more CPUs, give each side its share (README: *On a bigger \
             machine*) to draw one.\n",
            report.server_cpus,
            if report.server_cpus == 1 { "" } else { "s" },
            report.client_cpus
        );
    } else {
        let _ = writeln!(out, "![Scaling with cores](results/{PICTURE})\n");
    }
    let columns: Vec<String> = report
        .counts
        .iter()
        .map(|&n| format!("{n} core{}", if n == 1 { "" } else { "s" }))
        .collect();
    for (title, figure) in [
        ("Requests/s, flat out", Figure::RequestsPerSec),
        ("Server CPU µs per request", Figure::CpuPerRequest),
    ] {
        let _ = writeln!(out, "### {title}\n");
        let _ = writeln!(out, "| server | {} |", columns.join(" | "));
        let _ = writeln!(out, "|---|{}", "---|".repeat(columns.len()));
        for (id, label) in report.contenders() {
            let cells: Vec<String> = report
                .counts
                .iter()
                .map(|&n| cell(report, &id, n, figure))
                .collect();
            let _ = writeln!(out, "| {label} | {} |", cells.join(" | "));
        }
        out.push('\n');
    }
    out
}

#[derive(Clone, Copy)]
enum Figure {
    RequestsPerSec,
    CpuPerRequest,
}

/// `contender`'s median `figure` at `cores`, marked when the client set the pace.
fn cell(report: &ScalingReport, contender: &str, cores: usize, figure: Figure) -> String {
    let value = median_of(report, contender, cores, figure);
    let busy = busiest(report.at(contender, cores).map(|s| s.client_busy));
    let text = match (value, figure) {
        (None, _) => return "n/a".into(),
        (Some(v), Figure::RequestsPerSec) => group_thousands(v),
        (Some(v), Figure::CpuPerRequest) => format!("{v:.1}"),
    };
    match busy {
        Some(share) => format!("{text} *client-bound* ({:.0}%)", share * 100.0),
        None => text,
    }
}

fn median_of(report: &ScalingReport, contender: &str, cores: usize, figure: Figure) -> Option<f64> {
    let values: Vec<f64> = report
        .at(contender, cores)
        .filter_map(|s| match figure {
            Figure::RequestsPerSec => Some(s.requests_per_sec),
            Figure::CpuPerRequest => s.server_cpu_us_per_request,
        })
        .collect();
    median(&values)
}

/// Two panels against cores: requests/s, and server CPU per request.
fn draw(path: &Path, report: &ScalingReport) -> Result<(), String> {
    let top_cores = *report.counts.iter().max().unwrap_or(&1) as f64;
    let root = svg(path, (1100, 460))?;
    let areas = root.split_evenly((1, 2));
    let panels = [
        ("Requests/s, flat out", Figure::RequestsPerSec),
        ("Server CPU µs per request", Figure::CpuPerRequest),
    ];
    for ((title, figure), area) in panels.into_iter().zip(&areas) {
        let lines: Vec<Line> = report
            .contenders()
            .into_iter()
            .map(|(id, label)| Line {
                colour: colour_of(&id),
                points: report
                    .counts
                    .iter()
                    .filter_map(|&n| median_of(report, &id, n, figure).map(|v| (n as f64, v)))
                    .collect(),
                name: label,
                dots_only: false,
            })
            .collect();
        let top = lines
            .iter()
            .flat_map(|l| l.points.iter().map(|p| p.1))
            .fold(1e-9, f64::max);
        let y_label: fn(&f64) -> String = match figure {
            Figure::RequestsPerSec => |v| group_thousands(*v),
            Figure::CpuPerRequest => |v| format!("{v:.1}"),
        };
        let axes = (
            Axis::new(0.5f64..top_cores + 0.5, "server cores", |x| format!("{x:.0}")),
            Axis::new(0f64..top * 1.15, title, y_label),
        );
        chart_with(area, title, axes, &lines, Some(SeriesLabelPosition::UpperLeft))?;
    }
    root.present().map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scaling::Sample;

    fn report(counts: Vec<usize>) -> ScalingReport {
        let samples = counts
            .iter()
            .flat_map(|&cores| {
                [
                    ("io_uring", "io_uring_server", 0.5),
                    ("tokio_codec", "tokio_server (codec)", 0.95),
                ]
                .map(|(id, label, busy)| Sample {
                    cores,
                    contender: id.into(),
                    label: label.into(),
                    round: 0,
                    requests_per_sec: 100_000.0 * cores as f64,
                    server_cpu_us_per_request: Some(5.0),
                    client_busy: busy,
                })
            })
            .collect();
        ScalingReport {
            machine: Machine::detect(),
            pinning: "server on CPU 0, client on CPU 1".into(),
            server_cpus: *counts.last().unwrap(),
            client_cpus: 1,
            rounds: 1,
            seconds_per_point: 1.0,
            slices: 2,
            counts,
            samples,
        }
    }

    use harness::machine::Machine;

    #[test]
    fn one_core_count_says_why_there_is_no_curve() {
        let text = render(&report(vec![1]));
        assert!(text.contains("one core count and no curve"), "{text}");
        assert!(!text.contains(PICTURE));
        assert!(text.contains("| io_uring_server | 100,000 |"), "{text}");
        assert!(
            text.contains("| tokio_server (codec) | 100,000 *client-bound* (95%) |"),
            "{text}"
        );
    }

    #[test]
    fn more_core_counts_get_a_column_each_and_the_picture() {
        let report = report(vec![1, 2, 4]);
        let text = render(&report);
        assert!(text.contains("| server | 1 core | 2 cores | 4 cores |"), "{text}");
        assert!(
            text.contains("| io_uring_server | 100,000 | 200,000 | 400,000 |"),
            "{text}"
        );
        assert!(text.contains(&format!("results/{PICTURE}")));
        let path = std::env::temp_dir().join(format!("scaling-{}.svg", std::process::id()));
        draw(&path, &report).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.contains("io_uring_server") && svg.contains("server cores"));
        std::fs::remove_file(&path).unwrap();
    }
}

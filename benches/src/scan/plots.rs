//! The scan's SVG plots: `scan_rps.svg` and `scan_cpu.svg`, requests/s and server CPU per
//! request (medians over rounds) against connections on a log axis, one line per
//! contender that users run, io_uring_server with batched waits and nginx (the floors
//! and the A/A control stay in the tables).

use std::path::Path;

use plotters::prelude::*;

use crate::format::group_thousands;
use crate::scan::{CONNECTIONS, CONTROL, CPU, Metric, RPS, ScanReport};
use crate::servers::FLOORS;
use crate::sweep::chart::{Axis, COLOURS, Line, chart, connections_axis, svg};

/// Okabe-Ito's reddish purple: a sixth line beside the sweep's five colours.
const SIXTH: RGBColor = RGBColor(204, 121, 167);

/// Writes both plots into `results`.
pub fn draw_all(results: &Path, report: &ScanReport) -> Result<(), String> {
    let connections = || connections_axis(&CONNECTIONS);
    let rps_lines = lines(report, RPS);
    let y = Axis::new(0f64..top(&rps_lines) * 1.2, "requests/s", |y| group_thousands(*y));
    let path = results.join("scan_rps.svg");
    chart(
        &svg(&path, (820, 500))?,
        "Closed loop: requests/s by connections",
        (connections(), y),
        &rps_lines,
        SeriesLabelPosition::LowerRight,
    )?;
    let cpu_lines = lines(report, CPU);
    let y = Axis::new(0f64..top(&cpu_lines) * 1.2, "server CPU per request (µs)", |y| {
        format!("{y:.0}")
    });
    let path = results.join("scan_cpu.svg");
    chart(
        &svg(&path, (820, 500))?,
        "Closed loop: server CPU per request by connections",
        (connections(), y),
        &cpu_lines,
        SeriesLabelPosition::UpperRight,
    )
}

/// One line per plotted contender: its medians at every count it was measured at.
fn lines(report: &ScanReport, metric: Metric) -> Vec<Line> {
    let plotted = report
        .contenders
        .iter()
        .filter(|(id, _)| id != CONTROL.id && !FLOORS.iter().any(|f| f.id == id));
    plotted
        .zip(COLOURS.iter().chain([&SIXTH]).cycle())
        .map(|((id, label), &colour)| Line {
            name: label.clone(),
            colour,
            points: CONNECTIONS
                .iter()
                .filter_map(|&c| Some((c as f64, report.median(id, c, metric)?)))
                .collect(),
            dots_only: false,
        })
        .filter(|line| !line.points.is_empty())
        .collect()
}

fn top(lines: &[Line]) -> f64 {
    lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.1))
        .fold(1.0, f64::max)
}

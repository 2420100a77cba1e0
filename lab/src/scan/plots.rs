//! The scan's SVG plots: `scan_rps.svg` and `scan_cpu.svg`, requests/s and server CPU per
//! request (medians over rounds) against connections on a log axis, one line per
//! contender that users run, io_uring_server with batched waits and nginx (the floors
//! and the A/A control stay in the tables).

use std::path::Path;

use plotters::prelude::*;

use crate::scan::{CONNECTIONS, CONTROL, CPU, Metric, RPS, ScanReport};
use harness::chart::{Axis, COLOURS, Line, chart, connections_axis, svg};
use harness::format::group_thousands;
use harness::servers::FLOORS;

/// A plot: its figure, file name part, axis title, tick label and legend place.
type Plot = (
    Metric,
    &'static str,
    &'static str,
    fn(&f64) -> String,
    SeriesLabelPosition,
);

/// Writes both plots into `results`.
pub fn draw_all(results: &Path, report: &ScanReport) -> Result<(), String> {
    let plots: [Plot; 2] = [
        (
            RPS,
            "rps",
            "requests/s",
            |y| group_thousands(*y),
            SeriesLabelPosition::LowerRight,
        ),
        (
            CPU,
            "cpu",
            "server CPU per request (µs)",
            |y| format!("{y:.0}"),
            SeriesLabelPosition::UpperRight,
        ),
    ];
    for (metric, file, what, label, legend) in plots {
        let lines = lines(report, metric);
        let y = Axis::new(0f64..top(&lines) * 1.2, what, label);
        chart(
            &svg(&results.join(format!("scan_{file}.svg")), (820, 500))?,
            &format!("Closed loop: {what} by connections"),
            (connections_axis(&CONNECTIONS), y),
            &lines,
            legend,
        )?;
    }
    Ok(())
}

/// One line per plotted contender: its medians at every count it was measured at.
fn lines(report: &ScanReport, metric: Metric) -> Vec<Line> {
    let plotted = report
        .contenders
        .iter()
        .filter(|(id, _)| id != CONTROL.id && !FLOORS.iter().any(|f| f.id == id));
    plotted
        .zip(COLOURS.iter().cycle())
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

//! `results/churn_cpu.svg`: server CPU per connection against the load, one panel per
//! pattern and loop (closed: by clients, on a log axis; open: by offered connections/s),
//! one line per contender through the median round and every round as a dot, on one
//! shared CPU axis so the panels compare; the first panel holds the legend.

use std::path::Path;

use plotters::coord::combinators::{BindKeyPoints, IntoLogRange};
use plotters::prelude::*;

use crate::churn::{CLIENT_COUNTS, ChurnPoint, ChurnReport, Drive, OPEN_LOOP_CLIENTS, PATTERNS, RATES};
use harness::chart::{Axis, Line, chart_with, contender_lines, svg};
use harness::format::group_thousands;
use harness::rounds::median;

pub const FILE: &str = "churn_cpu.svg";

/// Draws the plot of `report` to `path`.
pub fn draw(path: &Path, report: &ChurnReport) -> Result<(), String> {
    let panels: Vec<(String, bool, Vec<Line>)> = PATTERNS
        .iter()
        .flat_map(|&closes| [(closes, false), (closes, true)])
        .map(|(closes, open)| {
            let points: Vec<ChurnPoint> = report
                .points()
                .into_iter()
                .filter(|p| p.closes == closes && matches!(p.drive, Drive::Open { .. }) == open)
                .collect();
            let title = match open {
                false => format!("{}, closed loop", super::pattern_name(closes)),
                true => format!(
                    "{}, open loop ({OPEN_LOOP_CLIENTS} clients)",
                    super::pattern_name(closes)
                ),
            };
            (title, open, lines(report, &points))
        })
        .collect();
    let top = panels
        .iter()
        .flat_map(|(_, _, lines)| lines.iter().flat_map(|l| l.points.iter().map(|&(_, y)| y)))
        .fold(1e-9, f64::max);
    let root = svg(path, (1100, 820))?;
    let root = root
        .titled("Churn: server CPU per connection", ("sans-serif", 20))
        .map_err(|e| e.to_string())?;
    let areas = root.split_evenly((2, 2));
    for (index, ((title, open, lines), area)) in panels.iter().zip(areas).enumerate() {
        let cpu = || {
            Axis::new(0f64..top * 1.25, "server CPU per connection (µs)", |y| {
                format!("{y:.0}")
            })
        };
        // One legend serves all four panels: the colours are the same in each.
        let legend = (index == 0).then_some(SeriesLabelPosition::UpperRight);
        if *open {
            let widest = RATES.iter().copied().max().unwrap_or(1) as f64;
            let rate = Axis::new(0f64..widest * 1.15, "offered connections/s", |x| {
                group_thousands(*x)
            });
            chart_with(&area, title, (rate, cpu()), lines, legend)?;
        } else {
            let counts = CLIENT_COUNTS.map(|c| c as f64).to_vec();
            let widest = CLIENT_COUNTS.iter().copied().max().unwrap_or(1) as f64;
            let range = (0.7f64..widest * 1.5).log_scale().with_key_points(counts);
            let clients = Axis::new(range, "clients (log scale)", |x| format!("{x:.0}"));
            chart_with(&area, title, (clients, cpu()), lines, legend)?;
        }
    }
    root.present().map_err(|e| e.to_string())
}

/// Per contender, the median server CPU per connection at each of `points` (x: clients or
/// offered rate) as a line, and every round as dots.
fn lines(report: &ChurnReport, points: &[ChurnPoint]) -> Vec<Line> {
    let rounds_at = |id: &str| -> Vec<(f64, Vec<f64>)> {
        points
            .iter()
            .map(|point| {
                let x = match point.drive {
                    Drive::Closed { clients } => clients as f64,
                    Drive::Open { rate } => rate.into(),
                };
                let cpu = report
                    .of(point, id)
                    .filter_map(|s| s.server_cpu_us_per_connection);
                (x, cpu.collect())
            })
            .collect()
    };
    let medians = contender_lines(|c| {
        let at = rounds_at(c.id).into_iter();
        at.filter_map(|(x, cpu)| Some((x, median(&cpu)?))).collect()
    });
    let rounds = contender_lines(|c| {
        let at = rounds_at(c.id).into_iter();
        at.flat_map(|(x, cpu)| cpu.into_iter().map(move |y| (x, y)))
            .collect()
    });
    let dots = rounds.into_iter().map(|l| Line { dots_only: true, ..l });
    medians.into_iter().chain(dots).collect()
}

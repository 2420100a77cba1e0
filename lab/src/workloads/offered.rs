//! A saturated workload's CPU per request at its fixed offered rates (the verdict's 50% of
//! the capacity the calibration sets them from, [`harness::workload::offered`]; a curve per
//! contender where the catalogue offers several shares, as it did 25% and 75% before the
//! sweep study took over how a cost moves with the load): a table shown in the saturated
//! workload's section, so its capacity figure and its cost at a given load sit side by side.

use std::fmt::Write as _;
use std::path::Path;

use plotters::prelude::SeriesLabelPosition;

use crate::workloads::{Sample, Shape, WORKLOADS, Workload, WorkloadsReport};
use harness::chart::{Axis, chart, contender_lines, svg};
use harness::rounds::median;

/// The offered workloads measured at `base`, by rate, with their rate.
fn measured_at<'a>(report: &'a WorkloadsReport, base: &'a str) -> Vec<(&'static Workload, f64)> {
    WORKLOADS
        .iter()
        .filter(|w| matches!(w.shape, Shape::Offered { of, .. } if of == base))
        .filter_map(|w| {
            let rate = report
                .samples
                .iter()
                .find(|s| s.workload == w.name)?
                .offered_per_sec?;
            Some((w, rate))
        })
        .collect()
}

/// `keep-alive, small requests` -> `keep_alive_small_requests_offered.svg`.
pub fn file_name(base: &str) -> String {
    super::plot::file_name(base).replace(".svg", "_offered.svg")
}

/// Whether `base` was measured at several offered rates, so that its curve is drawn (one
/// rate is a point, which the table gives).
pub fn has_curve(report: &WorkloadsReport, base: &str) -> bool {
    measured_at(report, base).len() > 1
}

/// The table of `base`'s offered rates (under its curve where it has one), `None` where
/// none was measured.
pub fn table(report: &WorkloadsReport, base: &str) -> Option<String> {
    let rates = measured_at(report, base);
    if rates.is_empty() {
        return None;
    }
    let unit = rates[0].0.unit().describe();
    let picture = match has_curve(report, base) {
        true => format!(
            "![{base} at fixed rates]({})\n\n",
            super::plot::link(&file_name(base))
        ),
        false => String::new(),
    };
    let mut out = format!(
        "### At fixed offered rates\n\n{picture}\
         The same open-loop rate offered to every server, a share of the capacity the \
         calibration sets it from (10^6 ÷ a server CPU µs per request flat out, times its server \
         CPUs; the verdict's line under its table says whose, and gives each server's); each \
         cell is the median over the rounds in which the server kept up \
         (its answers in the measured windows, with the requests still in flight as each \
         window closed and one request a window for rounding, came to 99% of the rate or \
         more), {unit}, then the whole machine's. Rounds in which \
         it fell behind are named and left out.\n\n| server |"
    );
    for (workload, rate) in &rates {
        let _ = write!(
            out,
            " {} ({} req/s) |",
            share(workload),
            harness::format::rate(*rate)
        );
    }
    let _ = writeln!(out, "\n|---|{}", "---|".repeat(rates.len()));
    for (id, label) in report.contenders(base) {
        let cells: Vec<String> = rates
            .iter()
            .map(|(workload, _)| cell(&report.of(workload.name, &id).collect::<Vec<_>>()))
            .collect();
        let _ = writeln!(out, "| {label} | {} |", cells.join(" | "));
    }
    Some(out)
}

fn share(workload: &Workload) -> String {
    match workload.shape {
        Shape::Offered { percent, .. } => format!("{percent}%"),
        _ => String::new(),
    }
}

/// One contender at one rate: its median where it kept up, and how often it did not.
fn cell(samples: &[&Sample]) -> String {
    if samples.is_empty() {
        return "not measured".into();
    }
    let kept: Vec<&&Sample> = samples.iter().filter(|s| s.value.is_some()).collect();
    // A round without a figure for want of a CPU reading (an external server) is not behind.
    let behind = samples
        .iter()
        .filter(|s| s.value.is_none() && s.server_cpu_us.is_some())
        .count();
    let values: Vec<f64> = kept.iter().filter_map(|s| s.value).collect();
    let machine: Vec<f64> = kept.iter().filter_map(|s| s.machine_cpu_us).collect();
    let mut text = match median(&values) {
        Some(v) => format!(
            "{v:.2} ({})",
            median(&machine).map_or("n/a".into(), |m| format!("{m:.1}"))
        ),
        None => String::new(),
    };
    if behind > 0 {
        let served: Vec<f64> = samples
            .iter()
            .filter(|s| s.value.is_none() && s.server_cpu_us.is_some())
            .map(|s| s.requests_per_sec)
            .collect();
        let _ = write!(
            text,
            "{}fell behind in {behind} of {} rounds (served {} req/s)",
            if text.is_empty() { "" } else { "; " },
            samples.len(),
            median(&served).map_or("?".into(), harness::format::rate)
        );
    }
    text
}

/// The curve: CPU per request against the offered rate, a line per contender.
pub fn draw(path: &Path, report: &WorkloadsReport, base: &str) -> Result<(), String> {
    let rates = measured_at(report, base);
    let lines = contender_lines(|c| {
        rates
            .iter()
            .filter_map(|(workload, rate)| {
                let values: Vec<f64> = report.of(workload.name, c.id).filter_map(|s| s.value).collect();
                Some((*rate / 1000.0, median(&values)?))
            })
            .collect()
    });
    let points = lines.iter().flat_map(|l| &l.points);
    let x_top = points.clone().map(|p| p.0).fold(0.0, f64::max) * 1.1 + 1e-9;
    let y_top = points.map(|p| p.1).fold(0.0, f64::max) * 1.2 + 1e-9;
    let unit = rates.first().map_or("", |(w, _)| w.unit().describe());
    let root = svg(path, (800, 420))?;
    let axes = (
        Axis::new(0.0..x_top, "offered, thousand requests/s", |x| format!("{x:.0}")),
        Axis::new(0.0..y_top, unit, |y| format!("{y:.1}")),
    );
    let title = format!("{base}: server CPU at fixed offered rates (medians)");
    chart(&root, &title, axes, &lines, SeriesLabelPosition::UpperRight)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `contender` at keep-alive's 50% rate (40,000 req/s) in two rounds; `None`: it fell
    /// behind, serving 38,000.
    fn at_half(contender: &str, values: [Option<f64>; 2]) -> Vec<Sample> {
        values
            .iter()
            .enumerate()
            .map(|(round, value)| Sample {
                value: *value,
                offered_per_sec: Some(40_000.0),
                requests_per_sec: if value.is_some() { 40_000.0 } else { 38_000.0 },
                ..Sample::example(
                    "keep-alive, small requests at a fixed rate",
                    contender,
                    round,
                    0.0,
                )
            })
            .collect()
    }

    #[test]
    fn a_round_that_fell_behind_is_named_and_left_out_of_the_median() {
        let mut samples = vec![Sample::example("keep-alive, small requests", "io_uring", 0, 7.0)];
        samples.extend(at_half("io_uring", [Some(8.0), None]));
        let report = WorkloadsReport::over(samples);
        let text = table(&report, "keep-alive, small requests").unwrap();
        assert!(text.contains("| server | 50% (40,000 req/s) |"), "{text}");
        assert!(!text.contains(".svg"), "one rate is a point, not a curve: {text}");
        assert!(
            text.contains("| io_uring | 8.00 (0.0); fell behind in 1 of 2 rounds (served 38,000 req/s) |"),
            "{text}"
        );
        assert_eq!(table(&report, "64 KiB echo"), None);
    }
}

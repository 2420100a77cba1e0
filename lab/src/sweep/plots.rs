//! The sweep's SVG plots, each with axis titles and units and one colour per contender
//! (the same in every plot, all dark enough to read on white):
//! - `sweep_rps.svg`, `sweep_cpu.svg`: requests/s and server CPU per request against
//!   connections (closed loop), connections on a log axis;
//! - `sweep_latency.svg`: open-loop p99 against the offered load, latency on a log axis;
//!   with several rounds per rate, the line joins the median round and every round is a dot;
//! - `sweep_spectrum.svg`: the open loop's latency as a percentile spectrum (x: the
//!   "nines", 50% to 99.99%; y: latency, log), one panel per offered load on one shared
//!   latency axis. All three loads, not only the middle one: one run's p99 at one load is
//!   the cell that flips order between runs, so the reader should see whether an ordering
//!   holds across the whole spectrum and across loads before believing it.

use std::path::Path;

use plotters::coord::combinators::{BindKeyPoints, IntoLogRange, LogCoord};
use plotters::prelude::*;

use crate::sweep::{CONNECTIONS, OPEN_LOOP_CONNECTIONS, SweepReport};
use harness::chart::{Axis, Line, chart, chart_with, connections_axis, contender_lines, svg};
use harness::format::group_thousands;
use harness::load::{LoadKind, Point};
use harness::rounds::median;

/// The spectrum's ticks as `1 / (1 - q)`, on a log axis (so each tick is one more "nine"):
/// 50%, 90%, 99%, 99.9%, 99.99%.
const NINES: [f64; 5] = [2.0, 10.0, 100.0, 1_000.0, 10_000.0];

/// Writes `sweep_rps.svg`, `sweep_cpu.svg`, `sweep_latency.svg` and `sweep_spectrum.svg`
/// into `results`.
pub fn draw_all(results: &Path, report: &SweepReport) -> Result<(), String> {
    let connections = || connections_axis(&CONNECTIONS);
    let closed = |metric: fn(&Point) -> Option<f64>| -> Vec<Line> {
        lines(report, |points| {
            let closed = points.filter(|p| p.kind == LoadKind::Closed);
            closed
                .filter_map(|p| Some((p.connections as f64, metric(p)?)))
                .collect()
        })
    };
    let rps = closed(|p| Some(p.requests_per_sec));
    let y = Axis::new(0f64..top(&rps) * 1.2, "requests/s", |y| group_thousands(*y));
    let path = results.join("sweep_rps.svg");
    let area = svg(&path, (820, 500))?;
    let title = "Closed loop: requests/s by connections";
    chart(
        &area,
        title,
        (connections(), y),
        &rps,
        SeriesLabelPosition::UpperLeft,
    )?;
    let cpu = closed(|p| p.server_cpu_us_per_request);
    let y = Axis::new(0f64..top(&cpu) * 1.2, "server CPU per request (µs)", |y| {
        format!("{y:.0}")
    });
    let path = results.join("sweep_cpu.svg");
    let area = svg(&path, (820, 500))?;
    let title = "Closed loop: server CPU per request by connections";
    chart(
        &area,
        title,
        (connections(), y),
        &cpu,
        SeriesLabelPosition::UpperRight,
    )?;
    latency_by_load(&results.join("sweep_latency.svg"), report)?;
    spectrum(&results.join("sweep_spectrum.svg"), report)
}

/// Reads a sweep's `sweep.json` and draws its plots into `out`: to look at the plots of
/// a committed run without running the sweep.
pub fn draw_from_json(json: &Path, out: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(json).map_err(|e| format!("{}: {e}", json.display()))?;
    let report: SweepReport = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", json.display()))?;
    draw_all(out, &report)
}

/// p99 (corrected) against the offered load.
fn latency_by_load(path: &Path, report: &SweepReport) -> Result<(), String> {
    let medians = lines(report, |points| {
        let open: Vec<&Point> = points.filter(|p| p.kind == LoadKind::Open).collect();
        by_rate(open.iter().copied())
            .into_iter()
            .filter_map(|(rate, _)| {
                let at_rate = open.iter().filter(|p| p.rate == Some(rate));
                let p99: Vec<f64> = at_rate.map(|p| p.latency_us.p99 as f64).collect();
                Some((rate, median(&p99)?))
            })
            .collect()
    });
    let rounds = lines(report, |points| {
        let open = points.filter(|p| p.kind == LoadKind::Open);
        open.filter_map(|p| Some((p.rate?, p.latency_us.p99 as f64)))
            .collect()
    });
    let rates: Vec<f64> = medians
        .iter()
        .flat_map(|l| l.points.iter().map(|&(x, _)| x))
        .collect();
    let widest = rates.iter().copied().fold(1.0, f64::max);
    let x = Axis::new(
        0f64..widest * 1.15,
        "offered load (requests/s; the dots at 25/50/75% of the slowest contender's peak)",
        |x| group_thousands(*x),
    );
    let y = latency_axis(&rounds, 4.0);
    let area = svg(path, (820, 500))?;
    let title = format!("Open loop, {OPEN_LOOP_CONNECTIONS} connections: p99 latency by offered load");
    let mut all = medians;
    all.extend(rounds.into_iter().map(|l| Line { dots_only: true, ..l }));
    chart(&area, &title, (x, y), &all, SeriesLabelPosition::UpperLeft)
}

/// The open loop's percentile spectrum, one panel per offered load.
fn spectrum(path: &Path, report: &SweepReport) -> Result<(), String> {
    let rates: Vec<f64> = {
        let mut rates: Vec<f64> = report
            .points
            .iter()
            .filter(|p| p.kind == LoadKind::Open)
            .filter_map(|p| p.rate)
            .collect();
        rates.sort_by(f64::total_cmp);
        rates.dedup();
        rates
    };
    let panels: Vec<(f64, Vec<Line>)> = rates
        .iter()
        .map(|&rate| {
            let lines = lines(report, |points| {
                let at_rate = by_rate(points).into_iter().find(|(r, _)| *r == rate);
                at_rate.map_or_else(Vec::new, |(_, p)| {
                    let quantiles = p.latency_us.spectrum_or_named().into_iter();
                    let inner = quantiles.filter(|&(q, _)| q > 0.0 && q < 1.0);
                    inner.map(|(q, us)| (1.0 / (1.0 - q), us as f64)).collect()
                })
            });
            (rate, lines)
        })
        .collect();
    let every: Vec<Line> = panels.iter().flat_map(|(_, l)| l.iter().cloned()).collect();
    let root = svg(path, (1350, 480))?;
    let title = format!("Open loop, {OPEN_LOOP_CONNECTIONS} connections: latency by percentile (corrected)");
    let root = root
        .titled(&title, ("sans-serif", 20))
        .map_err(|e| e.to_string())?;
    for (index, ((rate, lines), area)) in panels
        .iter()
        .zip(root.split_evenly((1, rates.len().max(1))))
        .enumerate()
    {
        let share = rate / report.slowest_peak * 100.0;
        let caption = format!(
            "{} requests/s ({share:.0}% of the slowest peak)",
            group_thousands(*rate)
        );
        let nines = (1.6f64..17_000.0).log_scale().with_key_points(NINES.to_vec());
        let x = Axis::new(nines, "percentile (\"nines\", log scale)", |x| nines_label(*x));
        let legend = if index == 0 {
            Some(SeriesLabelPosition::UpperLeft)
        } else {
            None
        };
        chart_with(&area, &caption, (x, latency_axis(&every, 3.0)), lines, legend)?;
    }
    root.present().map_err(|e| e.to_string())
}

/// `50%`, `99.9%` for a position `1 / (1 - q)` on the nines axis.
fn nines_label(position: f64) -> String {
    let percent = format!("{:.2}", 100.0 * (1.0 - 1.0 / position));
    format!("{}%", percent.trim_end_matches('0').trim_end_matches('.'))
}

/// Each (rate, point) of the open loop in rate order; with several rounds at a rate, the
/// round whose p99 is the median, or for an even count the lower of the middle two: a
/// spectrum is one round's own, so it cannot be the mean of two.
fn by_rate<'a>(points: impl Iterator<Item = &'a Point>) -> Vec<(f64, &'a Point)> {
    let mut open: Vec<&Point> = points
        .filter(|p| p.kind == LoadKind::Open && p.rate.is_some())
        .collect();
    open.sort_by(|a, b| {
        a.rate
            .partial_cmp(&b.rate)
            .unwrap()
            .then(a.latency_us.p99.cmp(&b.latency_us.p99))
    });
    let mut out = Vec::new();
    for chunk in open.chunk_by(|a, b| a.rate == b.rate) {
        out.push((chunk[0].rate.unwrap_or_default(), chunk[(chunk.len() - 1) / 2]));
    }
    out
}

/// One line per contender that has points, from `points_of` over its points.
fn lines<'a>(
    report: &'a SweepReport,
    points_of: impl Fn(&mut dyn Iterator<Item = &'a Point>) -> Vec<(f64, f64)>,
) -> Vec<Line> {
    contender_lines(|c| points_of(&mut report.points.iter().filter(|p| p.contender == c.id)))
}

fn top(lines: &[Line]) -> f64 {
    lines
        .iter()
        .flat_map(|l| l.points.iter().map(|&(_, y)| y))
        .fold(1e-9, f64::max)
}

/// A log latency axis over `lines`, with `headroom` times the top for the legend.
fn latency_axis(lines: &[Line], headroom: f64) -> Axis<LogCoord<f64>> {
    let bottom = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|&(_, y)| y))
        .fold(f64::MAX, f64::min);
    let range = (bottom.min(top(lines)) / 1.5).max(1.0)..top(lines) * headroom;
    Axis::new(range.log_scale().into(), "latency (µs, log scale)", |y| {
        group_thousands(*y)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nines_axis_reads_as_percentiles() {
        let labels: Vec<String> = NINES.into_iter().map(nines_label).collect();
        assert_eq!(labels, ["50%", "90%", "99%", "99.9%", "99.99%"]);
    }

    #[test]
    fn the_committed_sweep_draws_with_titles_and_whole_labels() {
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let out = std::env::temp_dir().join(format!("sweep-plots-{}", std::process::id()));
        std::fs::create_dir_all(&out).unwrap();
        draw_from_json(&workspace.join("results/sweep.json"), &out).unwrap();
        let read = |name: &str| std::fs::read_to_string(out.join(name)).unwrap();
        let has = |svg: &str, text: &str| svg.contains(&format!("\n{text}\n</text>"));
        let (rps, cpu) = (read("sweep_rps.svg"), read("sweep_cpu.svg"));
        let (latency, spectrum) = (read("sweep_latency.svg"), read("sweep_spectrum.svg"));
        assert!(has(&rps, "connections (log scale)") && has(&rps, "requests/s"));
        for connections in ["1", "16", "64", "256", "1024"] {
            assert!(
                has(&rps, connections) && has(&cpu, connections),
                "no {connections} tick"
            );
        }
        assert!(has(&cpu, "server CPU per request (µs)"));
        assert!(has(&latency, "latency (µs, log scale)") && latency.contains("offered load ("));
        for label in ["50%", "90%", "99%", "99.9%", "99.99%"] {
            assert!(has(&spectrum, label), "no {label} tick");
        }
        for svg in [&rps, &cpu, &latency, &spectrum] {
            assert!(has(svg, "tokio_server (codec)") && has(svg, "io_uring_server"));
        }
        if std::env::var_os("KEEP_SWEEP_PLOTS").is_none() {
            std::fs::remove_dir_all(out).unwrap();
        }
    }
}

//! The sweep's SVG plots: requests/s and server CPU per request against connections
//! (closed loop), and open-loop p99 against the offered rate.

use std::path::Path;

use plotters::prelude::*;

use crate::format::group_thousands;
use crate::load::{LoadKind, Point};
use crate::servers::{ANCHORS, CONTENDERS};
use crate::sweep::{CONNECTIONS, OPEN_LOOP_SHARES, SweepReport};

/// Writes `sweep_rps.svg`, `sweep_cpu.svg` and `sweep_latency.svg` into `results`.
pub fn draw_all(results: &Path, report: &SweepReport) -> Result<(), String> {
    let x: Vec<String> = CONNECTIONS.iter().map(usize::to_string).collect();
    let closed = |metric: fn(&Point) -> Option<f64>| series(report, LoadKind::Closed, metric);
    line_chart(
        &results.join("sweep_rps.svg"),
        "requests/s by connections (closed loop)",
        &x,
        &closed(|p| Some(p.requests_per_sec)),
    )?;
    line_chart(
        &results.join("sweep_cpu.svg"),
        "server CPU µs per request by connections",
        &x,
        &closed(|p| p.server_cpu_us_per_request),
    )?;
    let shares: Vec<String> = OPEN_LOOP_SHARES
        .iter()
        .map(|s| format!("{:.0}% of peak", s * 100.0))
        .collect();
    let p99 = series(report, LoadKind::Open, |p| Some(p.latency_us.p99 as f64));
    line_chart(
        &results.join("sweep_latency.svg"),
        "open-loop p99 latency (µs) by offered rate",
        &shares,
        &p99,
    )
}

/// One line per contender: `metric` over the points of `kind`, in sweep order.
fn series(
    report: &SweepReport,
    kind: LoadKind,
    metric: fn(&Point) -> Option<f64>,
) -> Vec<(String, Vec<f64>)> {
    CONTENDERS
        .iter()
        .chain(&ANCHORS)
        .map(|c| {
            let values = report
                .points_of(c.id, kind)
                .map(|p| metric(p).unwrap_or(0.0))
                .collect();
            (c.label.to_string(), values)
        })
        .filter(|(_, values): &(String, Vec<f64>)| !values.is_empty())
        .collect()
}

fn line_chart(
    path: &Path,
    title: &str,
    x_labels: &[String],
    lines: &[(String, Vec<f64>)],
) -> Result<(), String> {
    let root = SVGBackend::new(path, (800, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let top = lines
        .iter()
        .flat_map(|(_, v)| v.iter().copied())
        .fold(0.0, f64::max)
        * 1.15
        + 1e-9;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(35)
        .y_label_area_size(70)
        .build_cartesian_2d(0f64..(x_labels.len().max(2) - 1) as f64, 0f64..top)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_labels(x_labels.len())
        .x_label_formatter(&|x| x_labels.get(x.round() as usize).cloned().unwrap_or_default())
        .y_label_formatter(&|y| group_thousands(*y))
        .draw()
        .map_err(|e| e.to_string())?;
    for (index, (name, values)) in lines.iter().enumerate() {
        let color = Palette99::pick(index).to_rgba();
        let points = values.iter().enumerate().map(|(i, v)| (i as f64, *v));
        chart
            .draw_series(LineSeries::new(points, color.stroke_width(2)))
            .map_err(|e| e.to_string())?
            .label(name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())
}

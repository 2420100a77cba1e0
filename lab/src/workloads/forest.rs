//! `results/verdict.svg`: the verdict as one forest plot. One row per verdict row, a
//! panel per baseline, the first against each row's cheapest tokio configuration (named
//! beside its dot), the second against the codec engine (the I/O model alone), and the A/A
//! control's where it ran: each ratio a dot, its 95% interval a whisker, a line at 1 ("no
//! difference") and the ±10% tie band shaded, so a reader sees which rows clear the band.
//! The codec panel also shows each ready io_uring runtime ÷ the codec engine where the
//! report measured them; every contender keeps its colour ([`harness::chart::colour_of`]).
//! A cell the client bound is not drawn (the rule does not decide it), and its row's label
//! says so.

use std::path::Path;

use plotters::coord::Shift;
use plotters::coord::combinators::{BindKeyPoints, IntoLogRange};
use plotters::prelude::*;

use crate::workloads::judged::{self, Row, short};
use crate::workloads::runtimes::READY;
use crate::workloads::{BASELINES, SUBJECT, WorkloadsReport};
use harness::chart::colour_of;
use harness::judge::{CLAIM_FLOOR, Estimate};
use harness::servers::{AA_CONTROL, Contender};

/// The file, under `results/`.
pub const FILE: &str = "verdict.svg";

/// Pixels: the row labels' column, each panel's width, each row's height.
/// The row labels' column: at least this wide, wider for long labels (about 7 px per
/// character at the labels' 12 px).
const LABELS: u32 = 330;
const PANEL: u32 = 300;
const ROW: u32 = 30;

/// One panel: its title and, per contender shown, its estimate on each row.
struct Panel {
    title: String,
    series: Vec<(Contender, Vec<Option<Estimate>>)>,
}

/// A row's label: "64 KiB echo at 12,122 req/s · server CPU".
pub fn label(row: &Row) -> String {
    format!("{} · {}", row.label, row.short_measure())
}

/// A row's label as the plot shows it, with the cheapest tokio configuration the first
/// panel divides by: "64 KiB echo at 12,122 req/s · server CPU · vs hyper".
fn label_with_best(row: &Row) -> String {
    match row.best.contender {
        Some(chosen) => format!("{} · vs {}", label(row), short(&chosen)),
        None => label(row),
    }
}

/// The panels `rows` fill: io_uring_server ÷ each row's cheapest tokio configuration,
/// then ÷ each baseline (the ready runtimes beside it against the codec engine), then the
/// A/A control where it ran; a client-bound cell has no estimate, and a series without
/// any is left out.
fn panels(report: &WorkloadsReport, rows: &[Row]) -> Vec<Panel> {
    let estimates = |ratios: &dyn Fn(&Row) -> Vec<f64>| -> Vec<Option<Estimate>> {
        rows.iter()
            .map(|row| match row.client_bound(report) {
                Some(_) => None,
                None => Estimate::of(&ratios(row)),
            })
            .collect()
    };
    let best: Vec<Option<Estimate>> = rows
        .iter()
        .map(|row| match row.best_bound(report) {
            Some(_) => None,
            None => Estimate::of(&row.best.ratios),
        })
        .collect();
    let mut panels = vec![Panel {
        title: "÷ each row's cheapest tokio configuration (\"vs\" in its label)".into(),
        series: vec![(SUBJECT, best)],
    }];
    panels.extend(BASELINES.iter().enumerate().map(|(index, baseline)| {
        let against = |row: &Row| row.against[index].clone();
        let mut series = vec![(SUBJECT, estimates(&against))];
        if index == 0 {
            for runtime in READY {
                let pair = (runtime.id, baseline.id);
                series.push((runtime, estimates(&|row| row.ratios(report, pair))));
            }
        }
        Panel {
            title: match index {
                0 => format!("÷ {}: the same code on epoll", baseline.label),
                _ => format!("÷ {}", baseline.label),
            },
            series,
        }
    }));
    panels.push(Panel {
        title: "A/A control ÷ io_uring_server".into(),
        series: vec![(AA_CONTROL, estimates(&|row| row.aa.clone()))],
    });
    for panel in &mut panels {
        panel.series.retain(|(_, e)| e.iter().any(Option::is_some));
    }
    panels.retain(|panel| !panel.series.is_empty());
    panels
}

/// Draws the plot to `path`; returns how many rows it has.
pub fn draw(path: &Path, report: &WorkloadsReport) -> Result<usize, String> {
    let rows = judged::rows(report);
    let panels = panels(report, &rows);
    let labels: Vec<String> = rows
        .iter()
        .map(|row| match row.client_bound(report).is_some() {
            true => format!("{} (client-bound: not drawn)", label_with_best(row)),
            false => label_with_best(row),
        })
        .collect();
    let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0) as u32;
    let label_width = LABELS.max(7 * longest + 20);
    let width = label_width + PANEL * panels.len().max(1) as u32;
    let height = ROW * rows.len().max(1) as u32 + 150;
    let root = SVGBackend::new(path, (width, height)).into_drawing_area();
    let fail = |e: &dyn std::fmt::Display| e.to_string();
    root.fill(&WHITE).map_err(|e| fail(&e))?;
    let root = root
        .titled(
            "The verdict: each server ÷ its panel's baseline, the dot the ratio, the whisker its 95% interval; left of 1: cheaper or faster",
            ("sans-serif", 16),
        )
        .map_err(|e| fail(&e))?;
    let (_, titled_height) = root.dim_in_pixel();
    let (plots, legend_area) = root.split_vertically(titled_height - 36);
    let (_, plots_height) = plots.dim_in_pixel();
    let mut x = 0;
    for (index, panel) in panels.iter().enumerate() {
        let panel_width = if index == 0 { label_width + PANEL } else { PANEL };
        let area = plots.clone().shrink((x, 0), (panel_width, plots_height));
        let names = if index == 0 { labels.as_slice() } else { &[] };
        let labelled = (index == 0).then_some(label_width);
        draw_panel(&area, panel, names, rows.len(), labelled)?;
        x += panel_width;
    }
    legend(&legend_area, &panels)?;
    root.present().map_err(|e| fail(&e))?;
    Ok(rows.len())
}

/// One panel in `area`; row labels on its left, in a column `labelled` wide, if given.
fn draw_panel(
    area: &DrawingArea<SVGBackend, Shift>,
    panel: &Panel,
    labels: &[String],
    rows: usize,
    labelled: Option<u32>,
) -> Result<(), String> {
    let fail = |e: &dyn std::fmt::Display| e.to_string();
    let estimates = panel.series.iter().flat_map(|(_, e)| e.iter().flatten());
    let (low, high) = estimates.fold((1.0 - CLAIM_FLOOR, 1.0 / (1.0 - CLAIM_FLOOR)), |(l, h), e| {
        (e.low.min(l), e.high.max(h))
    });
    let (low, high) = ((low * 0.85).max(0.01), (high * 1.15).min(100.0));
    let ticks = ticks(low, high);
    // Rows in tenths, so that the series of a row sit a few tenths apart.
    let y_top = rows as i32 * 10 - 5;
    let mut chart = ChartBuilder::on(area)
        .caption(&panel.title, ("sans-serif", 15))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(labelled.unwrap_or(0))
        .build_cartesian_2d(
            (low..high).log_scale().with_key_points(ticks),
            (-5..y_top).with_key_points((0..rows as i32).map(|i| i * 10).collect()),
        )
        .map_err(|e| fail(&e))?;
    let y_of = |row: usize| (rows - 1 - row) as i32 * 10;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .x_desc("ratio (log scale)")
        .x_label_formatter(&|x| format!("{x}"))
        .y_label_formatter(&|y| {
            let index = (rows as i32 - 1 - y / 10) as usize;
            labels.get(index).cloned().unwrap_or_default()
        })
        .label_style(("sans-serif", 12))
        .axis_desc_style(("sans-serif", 13))
        .light_line_style(BLACK.mix(0.05))
        .draw()
        .map_err(|e| fail(&e))?;
    let band = Rectangle::new(
        [(1.0 - CLAIM_FLOOR, -5), (1.0 / (1.0 - CLAIM_FLOOR), y_top)],
        BLACK.mix(0.08).filled(),
    );
    let one = PathElement::new(vec![(1.0, -5), (1.0, y_top)], BLACK.stroke_width(1));
    chart.draw_series([band]).map_err(|e| fail(&e))?;
    chart.draw_series([one]).map_err(|e| fail(&e))?;
    let count = panel.series.len();
    for (place, (contender, estimates)) in panel.series.iter().enumerate() {
        let colour = colour_of(contender.id);
        // The first series at the top of its row, the others below it.
        let offset = (count as i32 - 1) - place as i32 * 2;
        for (row, estimate) in estimates.iter().enumerate() {
            let Some(e) = estimate else { continue };
            let y = y_of(row) + offset;
            let clamp = |v: f64| v.clamp(low, high);
            chart
                .draw_series([PathElement::new(
                    vec![(clamp(e.low), y), (clamp(e.high), y)],
                    colour.stroke_width(2),
                )])
                .map_err(|e| fail(&e))?;
            chart
                .draw_series([Circle::new((clamp(e.ratio), y), 4, colour.filled())])
                .map_err(|e| fail(&e))?;
        }
    }
    Ok(())
}

/// Tick marks between `low` and `high`: round ratios, and 0.9 and 1.1 on a narrow axis.
fn ticks(low: f64, high: f64) -> Vec<f64> {
    let narrow = high / low < 2.5;
    [
        0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.8, 0.9, 1.0, 1.1, 1.25, 1.5, 2.0, 3.0, 5.0, 10.0,
    ]
    .into_iter()
    .filter(|t| (low..=high).contains(t))
    .filter(|t| narrow || ![0.8, 0.9, 1.1, 1.25].contains(t))
    .collect()
}

/// A line of every contender shown, in its colour, and the band's meaning.
fn legend(area: &DrawingArea<SVGBackend, Shift>, panels: &[Panel]) -> Result<(), String> {
    let fail = |e: &dyn std::fmt::Display| e.to_string();
    let mut shown: Vec<Contender> = Vec::new();
    for (contender, _) in panels.iter().flat_map(|p| &p.series) {
        if !shown.contains(contender) {
            shown.push(*contender);
        }
    }
    let mut x = LABELS as i32 / 6;
    let style = ("sans-serif", 13).into_font();
    for contender in shown {
        let colour = colour_of(contender.id);
        area.draw(&Circle::new((x, 20), 5, colour.filled()))
            .map_err(|e| fail(&e))?;
        area.draw(&Text::new(contender.label, (x + 10, 13), style.clone()))
            .map_err(|e| fail(&e))?;
        x += 30 + 7 * contender.label.chars().count() as i32;
    }
    let band = "shaded: ±10% tie band";
    area.draw(&Rectangle::new([(x, 13), (x + 20, 27)], BLACK.mix(0.08).filled()))
        .map_err(|e| fail(&e))?;
    area.draw(&Text::new(band, (x + 26, 13), style))
        .map_err(|e| fail(&e))?;
    Ok(())
}

#[cfg(test)]
#[path = "forest_tests.rs"]
mod tests;

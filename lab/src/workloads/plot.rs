//! One SVG per workload: every round's figure of every contender as a dot, the median as
//! a bar, so the spread between rounds is as visible as the difference between servers.

use std::path::Path;

use plotters::prelude::*;

use crate::workloads::{WORKLOADS, WorkloadsReport};
use harness::chart::colour_of;
use harness::format::group_thousands;
use harness::rounds::median;

/// The folder of `results/` the plots are written to, and their links in
/// `results/workloads.md` start with.
pub const FOLDER: &str = "workloads";

/// How `results/workloads.md` links plot `file`: relative to itself, inside [`FOLDER`].
pub fn link(file: &str) -> String {
    format!("{FOLDER}/{file}")
}

/// `64 KiB echo` -> `64_kib_echo.svg`.
pub fn file_name(workload: &str) -> String {
    let slug: String = workload
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    let words: Vec<&str> = slug.split('_').filter(|w| !w.is_empty()).collect();
    format!("{}.svg", words.join("_"))
}

/// Draws `workload`'s plot: one row per contender (its label on the left, so labels never
/// crowd however many contenders ran), each round's figure a dot and the median a bar,
/// in the contender's colour of every plot ([`colour_of`]).
pub fn draw(path: &Path, report: &WorkloadsReport, workload: &str) -> Result<(), String> {
    let contenders = report.contenders(workload);
    let unit = WORKLOADS
        .iter()
        .find(|w| w.name == workload)
        .map_or("value", |w| w.unit().describe());
    let rows: Vec<Vec<f64>> = contenders
        .iter()
        .map(|(id, _)| report.values(workload, id).into_iter().flatten().collect())
        .collect();
    let right = rows.iter().flatten().copied().fold(0.0, f64::max) * 1.15 + 1e-9;
    let height = 110 + 34 * contenders.len() as u32;
    let root = SVGBackend::new(path, (900, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let count = contenders.len() as f64;
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("{workload}: every round"), ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(330)
        .build_cartesian_2d(0f64..right, -0.5f64..count - 0.5)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(contenders.len())
        .y_label_formatter(&|y| {
            let i = y.round();
            if (y - i).abs() > 0.01 || i < 0.0 {
                return String::new();
            }
            // The first contender on top.
            contenders
                .get((count - 1.0 - i) as usize)
                .map_or(String::new(), |(_, label)| label.clone())
        })
        // Below 10 the ticks fall between whole numbers: keep a decimal, so that 0.5 does
        // not read as 0 (or as 1) beside its neighbours.
        .x_label_formatter(&|x| {
            if right < 10.0 {
                format!("{x:.1}")
            } else {
                group_thousands(*x)
            }
        })
        .x_desc(unit)
        .draw()
        .map_err(|e| e.to_string())?;
    for (i, (values, (id, _))) in rows.iter().zip(&contenders).enumerate() {
        let colour = colour_of(id);
        let y = count - 1.0 - i as f64;
        chart
            .draw_series(values.iter().map(|v| Circle::new((*v, y), 4, colour.filled())))
            .map_err(|e| e.to_string())?;
        if let Some(mid) = median(values) {
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(mid, y - 0.3), (mid, y + 0.3)],
                    colour.stroke_width(3),
                )))
                .map_err(|e| e.to_string())?;
        }
    }
    root.present().map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    #[test]
    fn file_names_are_plain() {
        assert_eq!(super::file_name("64 KiB echo"), "64_kib_echo.svg");
        assert_eq!(
            super::file_name("keep-alive, small requests"),
            "keep_alive_small_requests.svg"
        );
    }
}

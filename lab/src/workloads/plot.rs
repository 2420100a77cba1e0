//! One SVG per workload: every round's figure of every contender as a dot, the median as
//! a bar, so the spread between rounds is as visible as the difference between servers.

use std::path::Path;

use plotters::prelude::*;

use crate::workloads::{WORKLOADS, WorkloadsReport};
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

pub fn draw(path: &Path, report: &WorkloadsReport, workload: &str) -> Result<(), String> {
    let contenders = report.contenders(workload);
    let unit = WORKLOADS
        .iter()
        .find(|w| w.name == workload)
        .map_or("value", |w| w.unit().describe());
    let columns: Vec<Vec<f64>> = contenders
        .iter()
        .map(|(id, _)| report.values(workload, id).into_iter().flatten().collect())
        .collect();
    let top = columns.iter().flatten().copied().fold(0.0, f64::max) * 1.15 + 1e-9;
    let root = SVGBackend::new(path, (800, 420)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("{workload}: every round"), ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d(-0.5f64..contenders.len() as f64 - 0.5, 0f64..top)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(contenders.len())
        .x_label_formatter(&|x| {
            let i = x.round();
            if (x - i).abs() > 0.01 || i < 0.0 {
                return String::new();
            }
            contenders
                .get(i as usize)
                .map_or(String::new(), |(_, label)| label.clone())
        })
        .y_label_formatter(&|y| group_thousands(*y))
        .x_desc("server")
        .y_desc(unit)
        .draw()
        .map_err(|e| e.to_string())?;
    for (i, values) in columns.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let x = i as f64;
        chart
            .draw_series(values.iter().map(|v| Circle::new((x, *v), 4, color.filled())))
            .map_err(|e| e.to_string())?;
        if let Some(mid) = median(values) {
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(x - 0.25, mid), (x + 0.25, mid)],
                    color.stroke_width(3),
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

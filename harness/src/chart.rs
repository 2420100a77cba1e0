//! Line charts in SVG for the sweep's plots: an [`Axis`] per direction (coordinate,
//! title with its unit, tick labels), [`Line`]s in [`COLOURS`], dots at every point.

use std::path::Path;

use plotters::coord::Shift;
use plotters::coord::combinators::{BindKeyPoints, IntoLogRange};
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;

use crate::servers::{Contender, drawn};

/// Okabe-Ito's blue, vermillion and bluish green, then black, a purple, Okabe-Ito's
/// reddish purple, orange and sky blue, then a brown: distinct for colour-blind readers and
/// dark enough for thin lines on white (enough for every line drawn, [`drawn`], and one
/// more).
pub const COLOURS: [RGBColor; 9] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(0, 0, 0),
    RGBColor(117, 112, 179),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(140, 86, 75),
];

/// One contender's values.
#[derive(Clone)]
pub struct Line {
    pub name: String,
    pub colour: RGBColor,
    pub points: Vec<(f64, f64)>,
    /// Dots without a line or a legend entry (the individual rounds).
    pub dots_only: bool,
}

/// One line per contender, then per anchor, each in its own colour (the same in every
/// plot), its points from `points_of`; a contender without points is left out.
pub fn contender_lines(points_of: impl Fn(&Contender) -> Vec<(f64, f64)>) -> Vec<Line> {
    drawn()
        .map(|c| Line {
            name: c.label.to_string(),
            colour: colour_of(c.id),
            points: points_of(c),
            dots_only: false,
        })
        .filter(|line| !line.points.is_empty())
        .collect()
}

/// `contender`'s colour in every plot: its place among the contenders, then the
/// anchors, in [`COLOURS`]; any other (the A/A control, a control engine) the last colour.
pub fn colour_of(contender: &str) -> RGBColor {
    let place = drawn().position(|c| c.id == contender);
    place.map_or(COLOURS[COLOURS.len() - 1], |i| COLOURS[i % COLOURS.len()])
}

/// An axis: its coordinate, title and tick label.
pub struct Axis<R> {
    range: R,
    title: &'static str,
    label: fn(&f64) -> String,
}

impl<R> Axis<R> {
    pub fn new(range: R, title: &'static str, label: fn(&f64) -> String) -> Axis<R> {
        Axis { range, title, label }
    }
}

/// Connections on a log axis from 0.8 to 1300, a tick at each of `counts`.
pub fn connections_axis(
    counts: &[usize],
) -> Axis<impl AsRangedCoord<Value = f64, CoordDescType: ValueFormatter<f64>>> {
    let axis = (0.8f64..1300.0)
        .log_scale()
        .with_key_points(counts.iter().map(|&c| c as f64).collect());
    Axis::new(axis, "connections (log scale)", |x| format!("{x:.0}"))
}

/// A white SVG canvas of `size` pixels writing to `path`.
pub fn svg(path: &Path, size: (u32, u32)) -> Result<DrawingArea<SVGBackend<'_>, Shift>, String> {
    let root = SVGBackend::new(path, size).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    Ok(root)
}

/// One chart filling `area`, legend at `legend`, and the file written.
pub fn chart<X, Y>(
    area: &DrawingArea<SVGBackend, Shift>,
    title: &str,
    axes: (Axis<X>, Axis<Y>),
    lines: &[Line],
    legend: SeriesLabelPosition,
) -> Result<(), String>
where
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    chart_with(area, title, axes, lines, Some(legend))?;
    area.present().map_err(|e| e.to_string())
}

/// One chart in `area` (one panel of several), its legend at `legend` if any.
pub fn chart_with<X, Y>(
    area: &DrawingArea<SVGBackend, Shift>,
    title: &str,
    (x, y): (Axis<X>, Axis<Y>),
    lines: &[Line],
    legend: Option<SeriesLabelPosition>,
) -> Result<(), String>
where
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let fail = |e: &dyn std::fmt::Display| e.to_string();
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 17))
        .margin(12)
        .margin_right(36)
        .x_label_area_size(52)
        .y_label_area_size(82)
        .build_cartesian_2d(x.range, y.range)
        .map_err(|e| fail(&e))?;
    chart
        .configure_mesh()
        .x_desc(x.title)
        .y_desc(y.title)
        .x_label_formatter(&x.label)
        .y_label_formatter(&y.label)
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 14))
        .light_line_style(BLACK.mix(0.05))
        .draw()
        .map_err(|e| fail(&e))?;
    for line in lines {
        let colour = line.colour;
        let dots = line
            .points
            .iter()
            .map(move |&p| Circle::new(p, 3, colour.filled()));
        chart.draw_series(dots).map_err(|e| fail(&e))?;
        if line.dots_only {
            continue;
        }
        chart
            .draw_series(LineSeries::new(line.points.clone(), colour.stroke_width(2)))
            .map_err(|e| fail(&e))?
            .label(line.name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2)));
    }
    if let Some(position) = legend {
        chart
            .configure_series_labels()
            .position(position)
            .label_font(("sans-serif", 13))
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK.mix(0.5))
            .draw()
            .map_err(|e| fail(&e))?;
    }
    Ok(())
}

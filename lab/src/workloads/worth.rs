//! What a saving is worth, as the answer block shows it: an amount of the baseline's
//! figure with its share and the rule's word, and what the CPU saved is beside a handler's
//! own cost, on the measured handler rows ([`for_a_service`], [`your_handler`], which
//! points to the nearest measured row rather than a range between two). Every
//! figure is read from the report: the % from a row's geometric-mean ratio, the amount
//! from the baseline's median figure times that ratio's distance from 1.

use crate::workloads::judged::Row;
use crate::workloads::reading::Fact;
use crate::workloads::{Unit, WorkloadsReport};
use harness::format::group_thousands;
use harness::judge::Estimate;
use harness::rounds::median;
use harness::servers::Contender;
use harness::workload::Shape;
use harness::workload::offered::base;

/// "−2.0 of 10.0 µs (−20%, *wins* by ≥10%)": the baseline's median figure and what
/// io_uring_server saves (−) or costs (+) of it, from the ratio.
/// A cell the client bound says *client-bound* in place of the rule's word.
pub fn amount(report: &WorkloadsReport, row: &Row, baseline: &Contender, ratios: &[f64]) -> Option<String> {
    let bound = row.client_bound(report).is_some();
    let (estimate, change, figure) = change_of(report, row, baseline.id, ratios)?;
    let sign = if estimate.ratio <= 1.0 { "−" } else { "+" };
    let unit = match row.unit {
        Unit::BytesPerIdleConnection => "bytes",
        _ => "µs",
    };
    Some(format!(
        "{sign}{change} of {figure} {unit} ({}, {})",
        signed_percent(&estimate),
        if bound {
            "*client-bound*".to_string()
        } else {
            word(&estimate)
        }
    ))
}

/// The estimate of `ratios`, what io_uring_server saves or costs of `baseline`'s median
/// figure on `row` (unsigned) and that figure, both written in the row's unit: `None`
/// without an estimate or a figure.
pub(crate) fn change_of(
    report: &WorkloadsReport,
    row: &Row,
    baseline: &str,
    ratios: &[f64],
) -> Option<(Estimate, String, String)> {
    let estimate = Estimate::of(ratios)?;
    let figure = median(&row.figures(report, baseline))?;
    let change = (figure * (estimate.ratio - 1.0)).abs();
    let write = match row.unit {
        Unit::BytesPerIdleConnection => group_thousands,
        _ => micros,
    };
    Some((estimate, write(change), write(figure)))
}

/// "−20%", "+5%", "−0.4%", "0%": the ratio's distance from 1.
pub fn signed_percent(estimate: &Estimate) -> String {
    signed_change(estimate.ratio)
}

/// "−20%" for a ratio of 0.8: [`signed_percent`] of any ratio.
pub fn signed_change(ratio: f64) -> String {
    let change = (ratio - 1.0) * 100.0;
    let sign = if change <= 0.0 { "−" } else { "+" };
    match change.abs() {
        below if below < 0.05 => "0%".into(),
        below if below < 1.0 => format!("{sign}{below:.1}%"),
        above => format!("{sign}{above:.0}%"),
    }
}

/// "*wins* by ≥10%": the rule's word as the answer shows it.
pub fn word(estimate: &Estimate) -> String {
    let by = if estimate.beyond_floor { " by ≥10%" } else { "" };
    format!("*{}*{by}", estimate.word.as_str())
}

/// µs with one decimal, two below 1.
pub(crate) fn micros(value: f64) -> String {
    if value < 1.0 {
        format!("{value:.2}")
    } else {
        format!("{value:.1}")
    }
}

/// The handler's work of a kept-alive row at a fixed rate: 0 for `GET /`, `µs` for
/// `GET /work/{µs}`; `None` for any other row.
pub(crate) fn handler_micros(row: &Row) -> Option<u64> {
    let Some(Shape::Offered { of, .. }) = row.shape() else {
        return None;
    };
    match base(of).shape {
        Shape::KeepAlive { .. } => Some(0),
        Shape::Handler { micros, .. } => Some(micros),
        _ => None,
    }
}

/// A handler row's baseline "does not add" the handler's work where its figure grew
/// from the row without a handler by more than this many times the handler's µs.
pub const NOT_ADDING: f64 = 1.5;

/// The handler rows, by µs of work: (µs, µs saved, % saved).
fn handler_rows(facts: &[Fact]) -> Vec<(u64, f64, f64)> {
    let mut rows: Vec<(u64, f64, f64)> = facts
        .iter()
        .filter(|f| f.unit == Unit::CpuPerRequest)
        .filter_map(|f| Some((f.handler?, f.saved?, f.percent?)))
        .collect();
    rows.sort_by_key(|(work, _, _)| *work);
    rows
}

/// What it means for a service: "a 100 µs handler: −8.5 µs (−6%)" for each measured
/// handler cost; `None` with fewer than two.
pub fn for_a_service(facts: &[Fact]) -> Option<String> {
    let rows = handler_rows(facts);
    (rows.len() > 1).then(|| {
        let cells: Vec<String> = rows
            .iter()
            .map(|(work, saved, percent)| {
                let sign = if *saved >= 0.0 { "−" } else { "+" };
                format!(
                    "a {work} µs handler: {sign}{} µs ({sign}{:.0}%)",
                    micros(saved.abs()),
                    percent.abs()
                )
            })
            .collect();
        format!(
            "On kept-alive connections, server CPU per request: {}.",
            cells.join("; ")
        )
    })
}

/// How a reader with another handler cost reads their case: from the measured row
/// nearest it, never from a range between two rows. Two things the rows show keep a
/// saving from carrying between them, each said where the run shows it: costs do not
/// add (the baseline's CPU per request grew by more than [`NOT_ADDING`] times a handler's µs
/// over the row without one: the row where it grew the most, with both figures of tokio
/// at its cheapest, named "tokio" as the lines above name it), and a
/// row whose servers woke for most requests depends on what a wake-up costs (each such
/// row by name, with its label's words). `None` with fewer than two handler rows.
pub fn your_handler(facts: &[Fact]) -> Option<String> {
    let mut rows: Vec<&Fact> = facts
        .iter()
        .filter(|f| f.unit == Unit::CpuPerRequest && f.handler.is_some())
        .collect();
    rows.sort_by_key(|f| f.handler);
    if rows.len() < 2 {
        return None;
    }
    let works: Vec<String> = rows
        .iter()
        .filter_map(|f| f.handler)
        .map(|w| w.to_string())
        .collect();
    let nearest = format!(
        "Read the measured row nearest it ({} µs)",
        match works.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => works.join(""),
        }
    );
    // The row whose baseline grew the most past its handler's µs, from the row without.
    let none = rows
        .iter()
        .find(|f| f.handler == Some(0))
        .and_then(|f| f.baseline);
    let grew = none.and_then(|none| {
        rows.iter()
            .filter_map(|f| Some((f.handler.filter(|w| *w > 0)?, f.baseline?)))
            .map(|(work, figure)| (work, figure, (figure - none) / work as f64))
            .filter(|(_, _, per)| *per > NOT_ADDING)
            .max_by(|a, b| a.2.total_cmp(&b.2))
            .map(|(work, figure, _)| {
                format!(
                    "costs do not add (tokio: {} µs per request with no handler, {} µs with a \
                     {work} µs one)",
                    micros(none),
                    micros(figure)
                )
            })
    });
    let woke: Vec<String> = rows
        .iter()
        .filter_map(|f| {
            let wakes = f
                .wakes
                .as_deref()
                .filter(|w| w.contains("woke for most requests"))?;
            Some(format!("*{}*: {wakes}", f.name))
        })
        .collect();
    let wakes = (!woke.is_empty()).then(|| {
        format!(
            "the saving depends on whether the server wakes per request ({})",
            woke.join("; ")
        )
    });
    Some(match (grew, wakes) {
        (Some(grew), Some(wakes)) => format!("{nearest}: {grew}, and {wakes}."),
        (Some(only), None) | (None, Some(only)) => format!("{nearest}: {only}."),
        (None, None) => format!("{nearest}, not a figure between two rows."),
    })
}

//! What a saving is worth, as the answer block shows it: an amount of the baseline's
//! figure with its share and the rule's word, and what the CPU saved is beside a handler's
//! own cost, on the measured handler rows ([`for_a_service`], [`your_handler`]). Every
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

/// Two measured handler rows "save about the same µs" when the larger saving is at most
/// this many times the smaller.
pub const STEADY: f64 = 1.5;

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

/// How a reader with another handler cost reads their case, from what the measured
/// handler rows show: where the µs saved stayed within [`STEADY`] across them, that
/// saving carries over; otherwise the nearest measured row is the reading.
pub fn your_handler(facts: &[Fact]) -> Option<String> {
    let rows = handler_rows(facts);
    let working: Vec<&(u64, f64, f64)> = rows.iter().filter(|(work, _, _)| *work > 0).collect();
    let (first, last) = (working.first()?, working.last()?);
    if working.len() < 2 {
        return None;
    }
    let savings: Vec<f64> = working.iter().map(|(_, saved, _)| *saved).collect();
    let low = savings.iter().copied().fold(f64::INFINITY, f64::min);
    let high = savings.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let steady = low > 0.0 && high <= low * STEADY;
    let span = format!("the {} µs and {} µs handlers", first.0, last.0);
    Some(match steady {
        true => format!(
            "The µs saved stayed near {} µs between {span}, so for a handler cost in that \
             range expect about that many µs saved per request: as a share, those µs over \
             your own CPU per request.",
            match micros(low) == micros(high) {
                true => micros(low),
                false => format!("{}-{}", micros(low), micros(high)),
            }
        ),
        false => format!(
            "The µs saved went from {} to {} µs between {span}, so no one figure carries \
             over: read the measured row nearest your handler's cost.",
            micros(first.1),
            micros(last.1)
        ),
    })
}

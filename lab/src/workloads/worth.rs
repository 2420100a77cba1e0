//! What a saving is worth, as the answer block shows it: an amount of the baseline's
//! figure with its share and the rule's word, and what the CPU saved is beside a handler's
//! own cost. Every figure is read from the report: the % from a row's geometric-mean
//! ratio, the amount from the baseline's median figure times that ratio's distance from 1.

use crate::workloads::judged::Row;
use crate::workloads::{Unit, WorkloadsReport};
use harness::format::group_thousands;
use harness::judge::{Estimate, Word};
use harness::rounds::median;
use harness::servers::Contender;

/// What a service's own handler costs per request, µs: the saving is weighed against each.
pub const HANDLERS_US: [f64; 2] = [10.0, 100.0];

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

/// What the CPU the I/O model saves is worth to a service whose handler spends
/// [`HANDLERS_US`] per request: over the CPU rows io_uring_server wins against the cheapest
/// tokio configuration (so what a technique a tokio server can use too saves is not
/// counted), the saving as a share of that configuration's cost plus the handler's.
pub fn handlers(report: &WorkloadsReport, rows: &[Row]) -> Option<String> {
    let shares: Vec<(f64, f64)> = rows
        .iter()
        .filter(|row| matches!(row.unit, Unit::CpuPerRequest | Unit::CpuPerConnection))
        .filter(|row| row.best_bound(report).is_none())
        .filter_map(|row| {
            let chosen = row.best.contender?;
            let estimate = Estimate::of(&row.best.ratios)?;
            if estimate.word != Word::Wins {
                return None;
            }
            let figure = median(&row.figures(report, chosen.id))?;
            let saved = figure * (1.0 - estimate.ratio);
            let [first, second] = HANDLERS_US.map(|handler| saved / (figure + handler) * 100.0);
            Some((first, second))
        })
        .collect();
    let range = |values: Vec<f64>| {
        let low = values.iter().copied().fold(f64::INFINITY, f64::min);
        let high = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if (high - low).abs() < 0.05 {
            format!("{low:.1}%")
        } else {
            format!("{low:.1}-{high:.1}%")
        }
    };
    let [first, second] = HANDLERS_US;
    (!shares.is_empty()).then(|| {
        format!(
            "Where it wins on CPU against the cheapest tokio configuration, what the I/O model \
             saves is {} of all the CPU a request takes in a service whose own handler costs \
             {first:.0} µs per request, {} where it costs {second:.0} µs.",
            range(shares.iter().map(|s| s.0).collect()),
            range(shares.iter().map(|s| s.1).collect()),
        )
    })
}

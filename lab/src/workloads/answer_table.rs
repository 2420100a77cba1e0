//! The answer's compact table: per row that states a cost, what io_uring_server saves or
//! costs against the cheapest tokio configuration (named), against the codec engine (the
//! I/O model alone) and where a win there comes from ([`super::origin`]), against hyper,
//! then each ready runtime's ratio to the codec engine.

use crate::workloads::judged::{Row, short};
use crate::workloads::origin;
use crate::workloads::runtimes::{BASELINE, READY};
use crate::workloads::worth::{amount, signed_percent};
use crate::workloads::{BASELINES, WorkloadsReport};
use harness::judge::Estimate;
use harness::servers::Contender;

/// The table over `rows`, in their order.
pub fn table(report: &WorkloadsReport, rows: &[Row]) -> String {
    let ready: Vec<&Contender> = READY
        .iter()
        .filter(|runtime| report.samples.iter().any(|s| s.contender == runtime.id))
        .collect();
    let mut head = String::from("| workload | vs the cheapest tokio configuration |");
    for (index, baseline) in BASELINES.iter().enumerate() {
        head.push_str(&match index {
            0 => format!(
                " vs tokio {}: the same code on epoll | where a win there comes from |",
                short(baseline)
            ),
            _ => format!(" vs tokio {} |", short(baseline)),
        });
    }
    if !ready.is_empty() {
        head.push_str(&format!(" ready runtimes vs tokio {} |", short(&BASELINE)));
    }
    let columns = head.matches('|').count() - 1;
    let mut out = format!("{head}\n|{}\n", "---|".repeat(columns));
    for row in rows {
        let mut line = format!("| {} | {} |", row.name(), best(report, row));
        for (index, (baseline, ratios)) in BASELINES.iter().zip(&row.against).enumerate() {
            let cell = amount(report, row, baseline, ratios)
                .or_else(|| row.fell_behind(report, baseline))
                .unwrap_or_else(|| "n/a".into());
            line.push_str(&format!(" {cell} |"));
            if index == 0 {
                line.push_str(&format!(" {} |", origin::cell(report, row)));
            }
        }
        if !ready.is_empty() {
            line.push_str(&format!(" {} |", runtimes(report, row, &ready)));
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// "hyper, multi-thread: −2.0 of 10.0 µs (−20%, *wins* by ≥10%)": against the row's
/// cheapest tokio configuration, named.
pub(crate) fn best(report: &WorkloadsReport, row: &Row) -> String {
    let Some(chosen) = row.best.contender else {
        return "not measured every round".into();
    };
    let cell = amount(report, row, &chosen, &row.best.ratios)
        .or_else(|| row.fell_behind(report, &chosen))
        .unwrap_or_else(|| "n/a".into());
    format!("{}: {cell}", short(&chosen))
}

/// "monoio −5%, compio +20%": each ready runtime ÷ the codec engine on `row`.
fn runtimes(report: &WorkloadsReport, row: &Row, ready: &[&Contender]) -> String {
    let cells: Vec<String> = ready
        .iter()
        .filter_map(|runtime| {
            let pair = (runtime.id, BASELINE.id);
            let estimate = Estimate::of(&row.ratios(report, pair))?;
            let name = runtime.label.trim_end_matches("_server");
            let bound = match row.client_bound(report) {
                Some(_) => " *client-bound*",
                None => "",
            };
            Some(format!("{name} {}{bound}", signed_percent(&estimate)))
        })
        .collect();
    cells.join(", ")
}

//! A view that measures on its own rounds (`cargo bench`'s short verdict) beside the full
//! verdict (`results/workloads.json`): where a row's word differs between the two, the
//! short view names the full verdict's word next to its own and says why they can differ,
//! so that it never shows a contrary word unexplained.

use super::Unit;
use super::Workload;
use super::samples::WorkloadsReport;
use crate::judge::Word;

/// The word a report gives a row against its cheapest tokio configuration, as the
/// verdict's first column says it: *client-bound* where the client bound the row.
pub fn word(report: &WorkloadsReport, workload: &Workload, unit: Unit) -> &'static str {
    if report.client_bound(workload.name).is_some() {
        return "client-bound";
    }
    Word::judge(&report.best_tokio(workload, unit).ratios).as_str()
}

/// " (over fewer rounds; the full verdict: *ties*)" where `full` has the row and reads it
/// otherwise than `run`; empty where the two agree, or `full` lacks the row.
pub fn note(
    run: &WorkloadsReport,
    full: Option<&WorkloadsReport>,
    workload: &Workload,
    unit: Unit,
) -> String {
    let Some(full) = full else {
        return String::new();
    };
    if !full.workloads().iter().any(|name| name == workload.name) {
        return String::new();
    }
    let (short, verdict) = (word(run, workload, unit), word(full, workload, unit));
    match short == verdict {
        true => String::new(),
        false => format!(" (over fewer rounds; the full verdict: *{verdict}*)"),
    }
}

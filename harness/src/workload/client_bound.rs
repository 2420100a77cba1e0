//! The client-bound rule: a figure is the server's only while the client has CPU to
//! spare (requests/s, and the CPU per request of a loop that ran at the client's pace),
//! so a cell in which the client was at least [`CLIENT_SATURATED`] busy in any round,
//! with either server it compares, reads *client-bound* instead of a word and is left out
//! of the rule's tally. Memory per idle connection does not depend on the pace.

use super::Unit;
use super::samples::WorkloadsReport;
use crate::judge;
use crate::usage::CLIENT_SATURATED;

impl WorkloadsReport {
    /// The busiest the client was in any round of `workload` with either of `pair`, where
    /// a `unit` cell comparing them is client-bound: at least [`CLIENT_SATURATED`] busy,
    /// in any unit but memory. `None`: the rule decides the cell.
    pub fn client_bound(&self, workload: &str, unit: Unit, (a, b): (&str, &str)) -> Option<f64> {
        if unit == Unit::BytesPerIdleConnection {
            return None;
        }
        busiest(
            self.samples
                .iter()
                .filter(|s| s.workload == workload && (s.contender == a || s.contender == b))
                .filter_map(|s| s.client_busy),
        )
    }
}

/// The highest of the client's busy shares `busy` where it reached [`CLIENT_SATURATED`]:
/// the share a client-bound cell shows; `None`: the client had CPU to spare throughout.
pub fn busiest(busy: impl Iterator<Item = f64>) -> Option<f64> {
    busy.filter(|share| *share >= CLIENT_SATURATED).reduce(f64::max)
}

/// A client-bound cell: the ratio as the rule would show it, then *client-bound* and how
/// busy the client was, in place of the word.
pub fn cell(ratios: &[f64], busy: f64) -> String {
    let word = format!("*client-bound* (client {:.0}% busy)", busy * 100.0);
    match judge::Estimate::of(ratios) {
        Some(estimate) => format!("{estimate} {word}"),
        None => format!("{} {word}", crate::judge::no_estimate(ratios.len())),
    }
}

/// A client-bound cell of a summary table ([`judge::brief_cell`]): the ratio and
/// *client-bound*, without the interval and the client's busy share.
pub fn brief_cell(ratios: &[f64]) -> String {
    match judge::Estimate::of(ratios) {
        Some(estimate) => format!("{:.2} *client-bound*", estimate.ratio),
        None => format!("{} *client-bound*", judge::no_estimate(ratios.len())),
    }
}

/// What a client-bound cell means, for the line under a table: in full in a results
/// file, in BENCHMARKS.md a link to its glossary, where it is defined once.
pub fn explain_in(doc: crate::output::Doc) -> String {
    match doc {
        crate::output::Doc::Results => explain(),
        crate::output::Doc::Benchmarks => {
            "A *client-bound* cell ([glossary](#glossary)) is not judged.".to_string()
        }
    }
}

/// What a client-bound cell means, in full.
pub fn explain() -> String {
    format!(
        "A cell in which the client was at least {:.0}% busy in any round, with either server, \
         reads *client-bound*: the client, not the server, set the pace (its requests/s, and \
         the rate each server's CPU per request was taken at), so the rule does not decide it.",
        CLIENT_SATURATED * 100.0
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::samples::Sample;

    fn sample(contender: &str, round: usize, busy: Option<f64>) -> Sample {
        Sample {
            client_busy: busy,
            ..Sample::example("4 connections", contender, round, 1000.0)
        }
    }

    #[test]
    fn a_busy_client_in_any_round_binds_the_cell() {
        let report = WorkloadsReport::over(vec![
            sample("a", 0, Some(0.5)),
            sample("b", 0, Some(0.6)),
            sample("a", 1, Some(0.5)),
            sample("b", 1, Some(0.93)),
            sample("c", 1, Some(0.99)),
        ]);
        let rps = Unit::RequestsPerSec;
        assert_eq!(report.client_bound("4 connections", rps, ("a", "b")), Some(0.93));
        assert_eq!(report.client_bound("4 connections", rps, ("a", "c")), Some(0.99));
        assert_eq!(report.client_bound("other", rps, ("a", "b")), None);
        assert_eq!(
            report.client_bound("4 connections", Unit::CpuPerRequest, ("a", "b")),
            Some(0.93),
            "a CPU figure at the client's pace too"
        );
        assert_eq!(
            report.client_bound("4 connections", Unit::BytesPerIdleConnection, ("a", "b")),
            None,
            "not memory"
        );
    }

    #[test]
    fn a_client_with_cpu_to_spare_leaves_the_cell_to_the_rule() {
        let report = WorkloadsReport::over(vec![
            sample("a", 0, Some(0.89)),
            sample("b", 0, Some(0.2)),
            sample("a", 1, None),
            sample("b", 1, None),
        ]);
        let bound = report.client_bound("4 connections", Unit::RequestsPerSec, ("a", "b"));
        assert_eq!(
            bound, None,
            "89% is under the line, and old samples have no figure"
        );
    }

    #[test]
    fn the_cell_says_client_bound_instead_of_a_word() {
        let bound = cell(&[1.0, 1.02, 0.99], 0.954);
        assert!(bound.ends_with("*client-bound* (client 95% busy)"), "{bound}");
        assert!(bound.starts_with("1.00 ("), "{bound}");
        assert!(!bound.contains("**"), "no word of the rule: {bound}");
        let one_round = cell(&[1.0], 0.9);
        assert_eq!(one_round, "n/a (1 round) *client-bound* (client 90% busy)");
        assert_eq!(brief_cell(&[1.0, 1.02, 0.99]), "1.00 *client-bound*");
    }
}

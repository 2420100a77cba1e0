//! The client-bound rule: a figure is the server's only while the client has CPU to
//! spare (requests/s, and the CPU per request of a loop that ran at the client's pace).
//! A round of a workload in which the client was at least [`CLIENT_SATURATED`] busy with
//! any contender the verdict judges there ([`judged`]) is *noisy*: it counts for nothing,
//! for every contender of that row, as a round a server fell behind in does for that
//! server, and the study runs another round in its place, up to its cap
//! ([`super::run`]). A row reads *client-bound* instead of a word, and is left out of the
//! rule's tally, only where most of its rounds were noisy. Memory per idle connection does
//! not depend on the pace: the idle workloads have no noisy round; nor has the busy-polled
//! connection, whose client spins on its read and so is always busy, by design
//! ([`super::exempt`], which also says so in BENCHMARKS.md's method).

use std::collections::{BTreeMap, BTreeSet};

use super::best::TOKIO_CONFIGURATIONS;
use super::offered::VERDICT_PERCENT;
use super::samples::WorkloadsReport;
use super::{BASELINES, SUBJECT, Shape, catalogue};
use crate::judge;
use crate::servers::AA_CONTROL;
use crate::usage::CLIENT_SATURATED;

/// Whether the client's busy share with `contender` can make a round noisy: the
/// contenders the verdict judges (io_uring_server, the A/A control, the codec and hyper
/// engines and every tokio configuration a row's cheapest is chosen from). The ready
/// runtimes, the feature rows, the anchors and servers of yours are read from the rounds
/// the verdict keeps, but do not choose them.
pub fn judged(contender: &str) -> bool {
    let verdict = [SUBJECT, AA_CONTROL].into_iter().chain(BASELINES);
    verdict.chain(TOKIO_CONFIGURATIONS).any(|c| c.id == contender)
}

impl WorkloadsReport {
    /// The noisy rounds of `workload`, each with the busiest the client was in it with a
    /// [`judged`] contender; empty for an idle workload.
    pub fn noisy_rounds(&self, workload: &str) -> BTreeMap<usize, f64> {
        // Memory does not depend on the pace; a busy-polling client is busy by design.
        let mut noisy = BTreeMap::new();
        if super::exempt::exempt(workload) {
            return noisy;
        }
        let busy = self
            .samples
            .iter()
            .filter(|s| s.workload == workload && judged(&s.contender));
        for sample in busy {
            match sample.client_busy {
                Some(share) if share >= CLIENT_SATURATED => {
                    let busiest = noisy.entry(sample.round).or_insert(share);
                    *busiest = f64::max(*busiest, share);
                }
                _ => {}
            }
        }
        noisy
    }

    /// The rounds `workload` was measured in.
    pub fn rounds_measured(&self, workload: &str) -> BTreeSet<usize> {
        let of = self.samples.iter().filter(|s| s.workload == workload);
        of.map(|s| s.round).collect()
    }

    /// How many rounds of `workload` count: those measured less the noisy ones.
    pub fn counted_rounds(&self, workload: &str) -> usize {
        let measured = self.rounds_measured(workload).len();
        measured - self.noisy_rounds(workload).len()
    }

    /// The rounds of `workload` that count for nothing: its noisy ones, but where most
    /// were (a client-bound row, which the rule does not judge), none, so that its cells
    /// show the ratios of every round.
    pub fn voided_rounds(&self, workload: &str) -> BTreeSet<usize> {
        match self.client_bound(workload) {
            Some(_) => BTreeSet::new(),
            None => self.noisy_rounds(workload).into_keys().collect(),
        }
    }

    /// "62% (91%)": how busy the client was with the server `label` in the rounds of the
    /// verdict's fixed-rate row over `base`, the median and the highest; "n/a" without a
    /// share.
    pub fn client_in_rounds(&self, base: &str, label: &str) -> String {
        let at_rate = |workload: &str| {
            catalogue::by_name(workload).is_some_and(|w| {
                matches!(w.shape, Shape::Offered { of, percent } if of == base && percent == VERDICT_PERCENT)
            })
        };
        let busy: Vec<f64> = self
            .samples
            .iter()
            .filter(|s| s.label == label && at_rate(&s.workload))
            .filter_map(|s| s.client_busy)
            .collect();
        match (
            crate::rounds::median(&busy),
            busy.iter().copied().reduce(f64::max),
        ) {
            (Some(median), Some(highest)) => format!("{:.0}% ({:.0}%)", median * 100.0, highest * 100.0),
            _ => "n/a".into(),
        }
    }

    /// The busiest the client was in a noisy round of `workload`, where most of its rounds
    /// were noisy: the row is client-bound. `None`: the rule decides it, from the rounds
    /// that count.
    pub fn client_bound(&self, workload: &str) -> Option<f64> {
        let noisy = self.noisy_rounds(workload);
        let most = 2 * noisy.len() > self.rounds_measured(workload).len();
        most.then(|| noisy.values().copied().fold(0.0, f64::max))
    }
}

/// "A figure in parentheses is from a noisy round (round 3: ...)": the line under a
/// detail table whose `workload` had rounds that count for nothing; `None` where none.
pub fn noisy_note(report: &WorkloadsReport, workload: &str) -> Option<String> {
    let voided = report.voided_rounds(workload);
    if voided.is_empty() {
        return None;
    }
    let rounds: Vec<String> = voided.iter().map(|r| (r + 1).to_string()).collect();
    Some(format!(
        "A figure in parentheses is from a noisy round (round {}: the client was {:.0}% busy or \
         more with a server the verdict judges), which counts for nothing.",
        rounds.join(", "),
        CLIENT_SATURATED * 100.0
    ))
}

/// The highest of the client's busy shares `busy` where it reached [`CLIENT_SATURATED`]:
/// the share a client-bound cell of a study without rounds to re-run shows (the files
/// and scaling studies); `None`: the client had CPU to spare throughout.
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
        "A round in which the client was at least {:.0}% busy with any server the verdict \
         judges counts for nothing, for every server of that row, and another round is run in \
         its place, up to the cap: the client, not the server, set the pace in it (its \
         requests/s, and the rate each server's CPU per request was taken at). A row most of \
         whose rounds were so reads *client-bound*, and the rule does not decide it.",
        CLIENT_SATURATED * 100.0
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::servers::{TOKIO_CODEC, TOKIO_URING};
    use crate::workload::samples::Sample;

    const ROW: &str = "keep-alive, small requests at a fixed rate";

    fn sample(contender: &str, round: usize, busy: f64) -> Sample {
        Sample {
            client_busy: Some(busy),
            ..Sample::example(ROW, contender, round, 5.0)
        }
    }

    /// `rounds` rounds of the subject and the codec engine, the client `busy[round]` busy
    /// with the codec engine and 60% with the subject.
    fn rounds(busy: &[f64]) -> WorkloadsReport {
        let mut samples = Vec::new();
        for (round, &share) in busy.iter().enumerate() {
            samples.push(sample(SUBJECT.id, round, 0.6));
            samples.push(sample(TOKIO_CODEC.id, round, share));
        }
        WorkloadsReport::over(samples)
    }

    #[test]
    fn a_round_the_client_saturated_counts_for_nothing_and_leaves_the_row_judged() {
        let report = rounds(&[0.6, 0.7, 0.93, 0.65, 0.6, 0.7, 0.62]);
        assert_eq!(
            report.noisy_rounds(ROW).into_iter().collect::<Vec<_>>(),
            [(2, 0.93)]
        );
        assert_eq!(report.counted_rounds(ROW), 6);
        let row = catalogue::by_name(ROW).unwrap();
        let ratios = report.ratios_of(&row, (SUBJECT.id, TOKIO_CODEC.id));
        assert_eq!(ratios.len(), 6, "judged from the other six rounds");
        assert_eq!(report.client_bound(ROW), None, "one noisy round of seven");
        let note = noisy_note(&report, ROW).unwrap();
        assert!(note.contains("(round 3: the client was 90% busy"), "{note}");
        assert_eq!(noisy_note(&rounds(&[0.6, 0.7]), ROW), None);
    }

    #[test]
    fn a_row_most_of_whose_rounds_were_noisy_is_client_bound() {
        let report = rounds(&[0.95, 0.91, 0.6, 0.97]);
        assert_eq!(report.client_bound(ROW), Some(0.97));
        assert!(
            report.voided_rounds(ROW).is_empty(),
            "its cells show every round, unjudged"
        );
        let half = rounds(&[0.95, 0.6, 0.6, 0.97]);
        assert_eq!(half.client_bound(ROW), None, "half is not most");
        assert_eq!(half.voided_rounds(ROW).len(), 2);
    }

    #[test]
    fn only_a_judged_contender_or_a_pace_dependent_figure_makes_a_round_noisy() {
        let mut samples = vec![sample(SUBJECT.id, 0, 0.6), sample(TOKIO_URING.id, 0, 0.99)];
        samples.push(Sample {
            client_busy: None,
            ..Sample::example(ROW, TOKIO_CODEC.id, 0, 5.0)
        });
        let report = WorkloadsReport::over(samples);
        assert!(
            report.noisy_rounds(ROW).is_empty(),
            "not a verdict contender, no share"
        );
        let idle = "10k idle connections";
        let report = WorkloadsReport::over(vec![Sample {
            client_busy: Some(0.99),
            ..Sample::example(idle, SUBJECT.id, 0, 5.0)
        }]);
        assert!(
            report.noisy_rounds(idle).is_empty(),
            "memory does not depend on the pace"
        );
        let spun = catalogue::BUSY_POLLED;
        let report = WorkloadsReport::over(vec![Sample {
            client_busy: Some(1.0),
            ..Sample::example(spun, SUBJECT.id, 0, 5.0)
        }]);
        assert!(
            report.noisy_rounds(spun).is_empty(),
            "a spinning client is busy by design"
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

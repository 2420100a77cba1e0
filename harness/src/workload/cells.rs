//! How a verdict table's cells are written and counted: each by the rule, but a cell the
//! client bound ([`super::client_bound`]); a fixed-rate cell too short to judge says which
//! server fell behind ([`fell_behind`]); the cheapest tokio configuration's cell names it
//! and what the run could not show of it ([`Tally::best`]); and how many cells the rule
//! decided and the A/A control tied ([`Tally`]).

use super::best::Best;
use super::client_bound;
use super::samples::WorkloadsReport;
use crate::judge::{self, ControlCount, Estimate, Word};

impl WorkloadsReport {
    /// In how many of its rounds of `workload` any of `contenders` has no figure, which a
    /// fixed-rate point leaves out when it fell behind the offered rate ([`super::offered::keeps_up`]), and
    /// of how many rounds measured; `None` where every round has its figures.
    pub fn rounds_behind(&self, workload: &str, contenders: &[&str]) -> Option<(usize, usize)> {
        let rounds: Vec<(usize, bool)> = self
            .samples
            .iter()
            .filter(|s| s.workload == workload && contenders.contains(&s.contender.as_str()))
            .map(|s| (s.round, s.value.is_none()))
            .collect();
        let count = |behind_only: bool| {
            let set: std::collections::BTreeSet<usize> = rounds
                .iter()
                .filter(|(_, behind)| *behind || !behind_only)
                .map(|(round, _)| *round)
                .collect();
            set.len()
        };
        let behind = count(true);
        (behind > 0).then(|| (behind, count(false)))
    }
}

/// "a server fell behind the offered rate in 5 of 6 rounds": why a fixed-rate cell of
/// the `pair` has too few rounds to judge; `None` where neither ever fell behind.
pub fn fell_behind(report: &WorkloadsReport, workload: &str, (a, b): (&str, &str)) -> Option<String> {
    let (behind, rounds) = report.rounds_behind(workload, &[a, b])?;
    Some(format!(
        "a server fell behind the offered rate in {behind} of {rounds} rounds"
    ))
}

/// How many cells a table holds, how many the rule decided, how its A/A cells read
/// ([`ControlCount`]), and how many were client-bound (left out of both): the
/// contenders' own cells in `client_bound`, the A/A control's apart in
/// `aa_client_bound`, so the count says what the table left out of its verdict.
#[derive(Default)]
pub struct Tally {
    pub cells: usize,
    pub decided: usize,
    pub aa: ControlCount,
    pub client_bound: usize,
    pub aa_client_bound: usize,
    /// Cells in brief: the ratio and the word, without the interval and the rounds
    /// ([`judge::brief_cell`]).
    pub brief: bool,
}

impl Tally {
    /// A cell, *client-bound* where `bound` holds the client's busiest share, with why a
    /// fixed-rate cell too short to judge is (`behind`: a server fell behind).
    pub fn cell(&mut self, ratios: &[f64], bound: Option<f64>, behind: Option<String>) -> String {
        if let Some(busy) = bound {
            self.client_bound += 1;
            return self.bound_cell(ratios, busy);
        }
        self.cells += 1;
        if matches!(Word::judge(ratios), Word::Wins | Word::Loses | Word::Ties) {
            self.decided += 1;
        }
        let cell = self.rule_cell(ratios);
        match behind {
            Some(_) if Estimate::of(ratios).is_none() && self.brief => {
                format!("{cell}: a server fell behind")
            }
            Some(note) if Estimate::of(ratios).is_none() => format!("{cell}: {note}"),
            _ => cell,
        }
    }

    /// A cell as the rule reads it, in full or in [`Self::brief`].
    fn rule_cell(&self, ratios: &[f64]) -> String {
        match self.brief {
            true => judge::brief_cell(ratios),
            false => judge::cell(ratios),
        }
    }

    /// A client-bound cell, in full or in [`Self::brief`].
    fn bound_cell(&self, ratios: &[f64], busy: f64) -> String {
        match self.brief {
            true => client_bound::brief_cell(ratios),
            false => client_bound::cell(ratios, busy),
        }
    }

    /// The cheapest tokio configuration's cell: the rule's cell against it, named, then
    /// what the run did not measure of the others ([`Best::caveat`], in full only: the
    /// brief table leaves the rounds to the full one); where none could be chosen, why.
    pub fn best(&mut self, best: &Best, bound: Option<f64>, behind: Option<String>) -> String {
        let caveat = if self.brief { String::new() } else { best.caveat() };
        match best.contender {
            Some(chosen) => format!(
                "{} against {}{caveat}",
                self.cell(&best.ratios, bound, behind),
                chosen.label
            ),
            None if best.measured == 0 => "not measured".into(),
            None => format!(
                "n/a: no tokio configuration had a figure in every round that measured them \
                 all{caveat}"
            ),
        }
    }

    pub fn aa_cell(&mut self, ratios: &[f64], bound: Option<f64>) -> String {
        if ratios.is_empty() {
            return "not measured".into();
        }
        if let Some(busy) = bound {
            self.aa_client_bound += 1;
            return self.bound_cell(ratios, busy);
        }
        self.aa.add(Word::judge(ratios));
        self.rule_cell(ratios)
    }
}

//! What the churn report may claim from a cell, and from a whole-machine figure.
//! A cost is judged only at a fixed rate, where every server did the same work: in a closed
//! loop each server ran at its own pace (often the client's: it was busy most of the time),
//! so its CPU per connection is taken at different loads and the cell is a throughput, the
//! two servers' connections/s, never given a word ([`Reading`], its cell; [`note`], the
//! line that says so under the table). The A/A control is counted over the cells judged
//! as costs only ([`ChurnReport::control_cells`]).
//! The whole machine's CPU cannot be less than the server's own: a point where a round read
//! it so was not measured reliably ([`ChurnReport::machine_cpu_reliable`]).

use harness::format::group_thousands;
use harness::judge;
use harness::rounds::median;
use harness::servers::AA_CONTROL;
use harness::usage::CLIENT_SATURATED;
use harness::workload::VERDICT_PERCENT;

use crate::churn::{ChurnPoint, ChurnReport, Drive, SUBJECT};

/// How a cell of io_uring_server against a baseline at one point is read.
#[derive(Debug, Clone, PartialEq)]
pub enum Reading {
    /// A fixed rate: the per-round ratios of server CPU per connection, for the rule.
    Cost(Vec<f64>),
    /// A closed loop: each server's connections/s (the median round), and whether the
    /// client set the pace ([`ChurnReport::client_bound`]).
    Throughput {
        subject: Option<f64>,
        baseline: Option<f64>,
        client_bound: bool,
    },
}

impl Reading {
    /// The table cell: a cost's ratio and word (in `brief`, without the interval and the
    /// rounds), or a closed loop's throughputs ("closed loop 27,598 vs 34,806 connections/s,
    /// client-bound").
    pub fn cell(self, brief: bool) -> String {
        match self {
            Reading::Cost(ratios) if brief => judge::brief_cell(&ratios),
            Reading::Cost(ratios) => judge::cell(&ratios),
            Reading::Throughput {
                subject,
                baseline,
                client_bound,
            } => {
                let pace = |rate: Option<f64>| rate.map_or("n/a".into(), group_thousands);
                let bound = if client_bound { ", client-bound" } else { "" };
                format!(
                    "closed loop {} vs {} connections/s{bound}",
                    pace(subject),
                    pace(baseline)
                )
            }
        }
    }
}

/// How the table's cells read, under it: which get a word, and what rate a word belongs to.
pub fn note() -> String {
    format!(
        "Closed-loop cells are throughputs, never judged as costs (nor capacities, which are \
         10^6 ÷ server CPU): each server ran at its own pace, the client's where *client-bound*, \
         so the cell gives {}'s connections/s and the baseline's (the median round), \
         *client-bound* where the client was ≥{:.0}% busy with either in most rounds. Only the \
         open-loop cells, every server at the same fixed rate, get the rule's words, each for \
         its own row's rate and rounds: the verdict's churn rows (`scripts/workloads.sh`, at \
         {VERDICT_PERCENT}% of the pair's smaller capacity or less where the client capped it, the \
         rate in the row's label) and \
         `cargo bench`'s (fewer rounds, its own rate) are other runs at other rates, so the same \
         pair can read *wins* by ≥10% in one and *wins* in another.",
        SUBJECT.label,
        CLIENT_SATURATED * 100.0
    )
}

impl ChurnReport {
    /// How the cell of the subject against `baseline` at `point` is read.
    pub fn reading(&self, point: &ChurnPoint, baseline: &str) -> Reading {
        match point.drive {
            Drive::Open { .. } => Reading::Cost(self.ratios(point, baseline)),
            Drive::Closed { .. } => {
                let pace = |contender| {
                    let rates: Vec<f64> = self.of(point, contender).map(|s| s.connections_per_sec).collect();
                    median(&rates)
                };
                Reading::Throughput {
                    subject: pace(SUBJECT.id),
                    baseline: pace(baseline),
                    client_bound: self.client_bound(point, baseline),
                }
            }
        }
    }

    /// Whether the client was at least [`CLIENT_SATURATED`] busy, with the subject or with
    /// `baseline`, in most of the rounds that measured both at `point`.
    pub fn client_bound(&self, point: &ChurnPoint, baseline: &str) -> bool {
        let busy = |contender, round| {
            self.of(point, contender)
                .find(|s| s.round == round)
                .map(|s| s.client_busy)
        };
        let rounds: Vec<bool> = (0..self.rounds)
            .filter_map(|round| {
                let (a, b) = (busy(SUBJECT.id, round)?, busy(baseline, round)?);
                Some(a.max(b) >= CLIENT_SATURATED)
            })
            .collect();
        2 * rounds.iter().filter(|&&bound| bound).count() > rounds.len()
    }

    /// The subject ÷ the A/A control, per round, at every point judged as a cost (a fixed
    /// rate): what the table's count of the control reads and the workloads answer names.
    pub fn control_cells(&self) -> Vec<Vec<f64>> {
        self.points()
            .iter()
            .filter_map(|p| match self.reading(p, AA_CONTROL.id) {
                Reading::Cost(ratios) => Some(ratios),
                Reading::Throughput { .. } => None,
            })
            .collect()
    }

    /// Whether every round at `point` read the whole machine's CPU per connection at least
    /// as high as the server's own: where one read less, which cannot be, the machine's
    /// counters missed work (runs that read busy time from `/proc/stat`'s tick-sampled
    /// user and system figures caught work at a fixed rate in step with the tick too often
    /// or too rarely: [`harness::machine_cpu`]).
    pub fn machine_cpu_reliable(&self, point: &ChurnPoint) -> bool {
        self.samples.iter().filter(|s| s.point == *point).all(|s| {
            match (s.machine_cpu_us_per_connection, s.server_cpu_us_per_connection) {
                (Some(machine), Some(server)) => machine >= server,
                _ => true,
            }
        })
    }
}

#[cfg(test)]
#[path = "reading_tests.rs"]
mod tests;

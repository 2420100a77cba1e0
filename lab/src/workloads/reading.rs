//! How one row reads against a tokio configuration for the answer's lists and the first
//! screen: the rule's word, or why it was not judged.

use crate::workloads::judged::Row;
use crate::workloads::{Unit, WorkloadsReport};
use harness::judge::{Estimate, Word};
use harness::servers::Contender;

/// The tokio configuration a row is read against, with io_uring_server's ratios to it.
pub type Against = Option<(Contender, Vec<f64>)>;

/// How one cell of a row reads for the answer's lists.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Reading {
    Rule(Word),
    ClientBound,
    FellBehind,
    NotMeasured,
}

/// How `row` reads against the tokio configuration `against` names, with io_uring_server's
/// ratios to it.
pub fn reading(report: &WorkloadsReport, row: &Row, against: Against) -> Reading {
    let Some((baseline, ratios)) = against else {
        return Reading::NotMeasured;
    };
    if row.client_bound(report).is_some() {
        return Reading::ClientBound;
    }
    match Estimate::of(&ratios) {
        Some(estimate) => Reading::Rule(estimate.word),
        None if row.fell_behind(report, &baseline).is_some() => Reading::FellBehind,
        None => Reading::NotMeasured,
    }
}

/// One verdict row as the first screen states it.
#[derive(Debug, Clone)]
pub struct Fact {
    pub name: String,
    /// The kind of load ("kept-alive requests", "files"): [`kind`].
    pub kind: &'static str,
    pub unit: Unit,
    /// What io_uring_server saves: the cheapest tokio configuration's median figure times
    /// one minus the geometric mean of the per-round ratios (io_uring_server ÷ it), in the
    /// row's unit (negative: what it costs more); not a difference of the two medians.
    pub saved: Option<f64>,
    /// The same as a share of that figure, in %: one minus the geometric mean, times 100
    /// (negative: it costs more).
    pub percent: Option<f64>,
    /// How the rule reads the row.
    pub reading: Reading,
    /// The word as every view shows it: "*wins* by ≥10%", "*ties*", "*client-bound*".
    pub word: String,
    /// A win beyond what the machine alone moves (by ≥10%, or where the A/A control tied).
    pub clear: bool,
    /// The handler's µs of work on a kept-alive row at a fixed rate.
    pub handler: Option<u64>,
    /// The cheapest tokio configuration's median figure over the rounds, in the row's unit.
    pub baseline: Option<f64>,
    /// How io_uring_server and the cheapest tokio configuration met the row's requests, as
    /// its label says it ("woke for most requests", "servers mostly awake", "only
    /// io_uring_server woke for most requests"); `None` where the run counted no wake-ups.
    pub wakes: Option<String>,
}

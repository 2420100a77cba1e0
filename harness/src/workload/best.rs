//! The cheapest tokio configuration, per verdict row: io_uring_server judged against what a
//! tokio user would deploy for that workload, not only against the same code on epoll.
//! The candidates ([`candidates`]) are tokio_server's codec engine, the codec engine with
//! sendfile where files are served, hyper, and hyper on tokio's multi-thread scheduler.
//! Per row, the cheapest is the one with the lowest geometric mean of the row's measure
//! (the highest for requests/s) over the rounds in which every candidate was measured
//! ([`choose`]): over the same rounds, the candidate io_uring_server's per-round ratios
//! (whose geometric mean the rule judges) favour least; the row's cell is then io_uring_server ÷ it over every round both ran.
//! Before any round, where an offered rate must be set first, the candidate with the
//! highest calibrated capacity stands in ([`rate_pair`]).

use super::offered::FlatOut;
use super::samples::WorkloadsReport;
use super::{SUBJECT, Shape, Unit, Workload};
use crate::rounds;
use crate::servers::{
    Contender, TOKIO_CODEC, TOKIO_CODEC_IO_URING_FS, TOKIO_CODEC_SENDFILE, TOKIO_CODEC_SHARED, TOKIO_HYPER,
    TOKIO_HYPER_MULTI_THREAD,
};

/// The tokio configurations a tokio user would deploy, in the order a table names them.
pub const TOKIO_CONFIGURATIONS: [Contender; 4] = [
    TOKIO_CODEC,
    TOKIO_CODEC_SENDFILE,
    TOKIO_HYPER,
    TOKIO_HYPER_MULTI_THREAD,
];

/// How the column is chosen, for the line under a table and the glossary.
pub const HOW_CHOSEN: &str = "the cheapest tokio configuration is, per row, whichever of \
     tokio_server's codec engine, the codec engine with sendfile (rows of files of 64 KiB \
     or more; below that it runs the codec engine's code), the codec engine on tokio's own \
     io_uring file path (file rows: tokio's unstable `io-uring-fs` build), the codec engine \
     with one shared read buffer (idle connections), hyper, and \
     hyper on tokio's multi-thread scheduler has the lowest geometric mean of the row's \
     measure (the highest for requests/s) over the rounds that measured them all, so the one \
     io_uring_server's ratios favour least; the cell names it";

/// The tokio configurations that can serve `workload` (over TLS, those with a rustls
/// adapter; sendfile where files go by sendfile; where files are served, the codec engine
/// on tokio's own io_uring file path, tokio's best file I/O; on idle connections the codec
/// engine with one shared read buffer, as a tokio server holding many idle ones is
/// tuned): the candidates for its cheapest.
pub fn candidates(workload: &Workload) -> Vec<Contender> {
    let idle = matches!(workload.shape, Shape::Idle { .. }).then_some(TOKIO_CODEC_SHARED);
    let files = workload.serves_files().then_some(TOKIO_CODEC_IO_URING_FS);
    TOKIO_CONFIGURATIONS
        .into_iter()
        .filter(|c| *c != TOKIO_CODEC_SENDFILE || workload.sends_by_sendfile())
        .filter(|c| workload.tls().is_none() || c.speaks_tls())
        .chain(files)
        .chain(idle)
        .collect()
}

/// The tokio configurations a row of `report` could be compared with, as (measured,
/// not measured) labels: every one a tokio user would deploy ([`TOKIO_CONFIGURATIONS`]),
/// and those a row the report measured has among its candidates
/// ([`candidates`]: the shared read buffer on idle connections, tokio's
/// io_uring file path on files), so a short run that left one out can say so where the
/// full verdict's row compares with it.
pub fn configurations(report: &WorkloadsReport) -> (Vec<&'static str>, Vec<&'static str>) {
    let mut all = TOKIO_CONFIGURATIONS.to_vec();
    let measured = report.workloads();
    for workload in measured.iter().filter_map(|name| super::catalogue::by_name(name)) {
        for candidate in candidates(&workload) {
            if !all.contains(&candidate) {
                all.push(candidate);
            }
        }
    }
    let ran = |c: &Contender| report.samples.iter().any(|s| s.contender == c.id);
    let (ran, not): (Vec<Contender>, Vec<Contender>) = all.into_iter().partition(ran);
    (
        ran.iter().map(|c| c.label).collect(),
        not.iter().map(|c| c.label).collect(),
    )
}

/// The candidates of the idle connections' fit: those of any idle workload.
fn idle_candidates() -> Vec<Contender> {
    candidates(&Workload {
        name: "idle connections",
        shape: Shape::Idle { count: 0, active: 0 },
    })
}

/// The cheapest tokio configuration of one row, and how far the run let it be chosen.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Best {
    /// The one chosen; `None` where no candidate was measured in every round that
    /// measured them all, or none at all.
    pub contender: Option<Contender>,
    /// io_uring_server ÷ it, per round both were measured (inverted for requests/s).
    pub ratios: Vec<f64>,
    /// How many candidates were measured at the row at all.
    pub measured: usize,
    /// Candidates measured in only some of the row's rounds, with how many.
    pub partial: Vec<(Contender, usize)>,
    /// The row's rounds (those in which io_uring_server has a figure), and how many of
    /// them measured every candidate: the rounds the choice was made from.
    pub rounds: usize,
    pub chosen_from: usize,
    /// A candidate fell behind the offered rate in one round or more, so the choice was
    /// made from the rounds in which all of them kept up.
    pub some_fell_behind: bool,
}

impl Best {
    /// "; tokio_server (hyper, multi-thread) not measured every round in this run, the
    /// cheapest chosen from the 2 of 8 rounds that measured it": what the choice could not
    /// see; empty where every candidate ran every round.
    pub fn caveat(&self) -> String {
        if self.some_fell_behind {
            return format!(
                "; chosen from the {} of {} rounds in which every candidate kept up",
                self.chosen_from, self.rounds
            );
        }
        if self.partial.is_empty() {
            return String::new();
        }
        let named: Vec<&str> = self.partial.iter().map(|(c, _)| c.label).collect();
        let them = if named.len() == 1 { "it" } else { "them" };
        format!(
            "; {} not measured every round in this run, the cheapest chosen from the {} of {} \
             rounds that measured {them}",
            named.join(" and "),
            self.chosen_from,
            self.rounds
        )
    }
}

/// A candidate, its figures by round (`None`: no figure) and whether it ran in each round.
pub type Series = (Contender, Vec<Option<f64>>, Vec<bool>);

/// Chooses among `candidates` with their figures by round (`None`: no figure, it fell
/// behind the offered rate) and whether each ran in each round, over `row` (the rounds of
/// the row): the lowest geometric mean (the highest where `higher_is_better`) over the
/// rounds in which every candidate measured at all ran and kept up. A round in which one
/// fell behind says the machine was slow then, for one more than another, as a round
/// the client was too busy in does; it counts for nothing in the choice, for every
/// candidate, rather than ruling out the one that fell behind (which would hand the row
/// to a dearer baseline after one slow moment). Only a candidate that fell behind in
/// most of the rounds that ran them all is ruled out: it cannot serve the rate. Where a
/// round was left out so, [`Best::caveat`] says so.
pub fn choose(candidates: &[Series], row: &[usize], higher_is_better: bool) -> Best {
    let ran_in = |ran: &[bool], round: usize| ran.get(round).copied().unwrap_or(false);
    let present: Vec<_> = candidates
        .iter()
        .filter(|(_, _, ran)| row.iter().any(|&r| ran_in(ran, r)))
        .collect();
    let partial = present
        .iter()
        .map(|(c, _, ran)| (*c, row.iter().filter(|&&r| ran_in(ran, r)).count()))
        .filter(|(_, n)| *n < row.len())
        .collect();
    let figure_in = |figures: &[Option<f64>], round: usize| figures.get(round).copied().flatten().is_some();
    let shared: Vec<usize> = row
        .iter()
        .copied()
        .filter(|&r| present.iter().all(|(_, _, ran)| ran_in(ran, r)))
        .collect();
    let able: Vec<_> = present
        .iter()
        .filter(|(_, figures, _)| {
            2 * shared.iter().filter(|&&r| figure_in(figures, r)).count() > shared.len()
        })
        .collect();
    let from: Vec<usize> = shared
        .iter()
        .copied()
        .filter(|&r| able.iter().all(|(_, figures, _)| figure_in(figures, r)))
        .collect();
    let scored = able.iter().filter_map(|(c, figures, _)| {
        let values: Option<Vec<f64>> = from.iter().map(|&r| figures.get(r).copied().flatten()).collect();
        Some((*c, rounds::geometric_mean(&values?)?))
    });
    // On a tie, the first in the candidates' order.
    let better = |a: f64, b: f64| if higher_is_better { a > b } else { a < b };
    let contender = scored
        .fold(None, |best: Option<(Contender, f64)>, next| match best {
            Some(kept) if !better(next.1, kept.1) => Some(kept),
            _ => Some(next),
        })
        .map(|(c, _)| c);
    Best {
        contender,
        ratios: Vec::new(),
        measured: present.len(),
        partial,
        rounds: row.len(),
        chosen_from: from.len(),
        some_fell_behind: contender.is_some() && from.len() < shared.len(),
    }
}

/// Whose capacities set an offered workload's rate ([`super::offered::Calibration`]):
/// io_uring_server and, standing in for its cheapest tokio configuration before any round,
/// the candidate for `workload` with the highest calibrated capacity among `flat_out`
/// (labels). Empty where either is missing: then every contender's capacity counts.
pub fn rate_pair(workload: &Workload, flat_out: &[FlatOut]) -> Vec<String> {
    let capacity = |label: &str| flat_out.iter().find(|f| f.label == label)?.capacity();
    let best = candidates(workload)
        .into_iter()
        .filter_map(|c| Some((c.label, capacity(c.label)?)))
        .max_by(|a, b| a.1.total_cmp(&b.1));
    match (capacity(SUBJECT.label), best) {
        (Some(_), Some((label, _))) => vec![SUBJECT.label.to_string(), label.to_string()],
        _ => Vec::new(),
    }
}

impl WorkloadsReport {
    /// The cheapest tokio configuration on `workload`'s `unit` row, with io_uring_server's
    /// ratios against it.
    pub fn best_tokio(&self, workload: &Workload, unit: Unit) -> Best {
        let ran = |id: &str| -> Vec<bool> {
            (0..self.rounds)
                .map(|round| self.of(workload.name, id).any(|s| s.round == round))
                .collect()
        };
        let series: Vec<_> = candidates(workload)
            .into_iter()
            .map(|c| (c, self.figures_in(workload, unit, c.id), ran(c.id)))
            .collect();
        // The row's rounds: those in which io_uring_server has a figure (at a fixed rate,
        // kept up), the only ones its ratio to any candidate can come from.
        let subject = self.figures_in(workload, unit, SUBJECT.id);
        let row: Vec<usize> = (0..self.rounds)
            .filter(|&r| subject.get(r).copied().flatten().is_some())
            .collect();
        let mut best = choose(&series, &row, unit == Unit::RequestsPerSec);
        if let Some(c) = best.contender {
            best.ratios = self.ratios_in(workload, unit, (SUBJECT.id, c.id));
        }
        best
    }

    /// The cheapest tokio configuration on the idle connections' fit (bytes per idle
    /// connection), with io_uring_server's ratios of fitted slopes against it.
    pub fn best_tokio_idle(&self) -> Best {
        let series: Vec<_> = idle_candidates()
            .into_iter()
            .map(|c| {
                let slopes = self.idle_slopes(c.id);
                let ran = slopes.iter().map(Option::is_some).collect();
                (c, slopes, ran)
            })
            .collect();
        let subject = self.idle_slopes(SUBJECT.id);
        let row: Vec<usize> = (0..subject.len()).filter(|&r| subject[r].is_some()).collect();
        let mut best = choose(&series, &row, false);
        if let Some(c) = best.contender {
            best.ratios = rounds::ratios(&subject, &self.idle_slopes(c.id));
        }
        best
    }
}

#[cfg(test)]
#[path = "best_tests.rs"]
mod tests;

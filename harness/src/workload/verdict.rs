//! The verdict table: per workload, [`SUBJECT`] ÷ each of the [`BASELINES`] and, where a
//! run measured it, the A/A control ÷ the subject, each cell decided by the one rule
//! ([`crate::judge`]) but a requests/s cell the client bound ([`client_bound`]); then how
//! many cells the rule decided and how often the A/A control tied. The workloads study and `cargo bench` both print it; each says above it where its
//! rounds came from.

use std::fmt::Write as _;

use super::samples::WorkloadsReport;
use super::{BASELINES, SUBJECT, Unit, Workload, client_bound};
use crate::judge::{self, Word};
use crate::servers::{AA_CONTROL, TOKIO_CODEC_SHARED};

pub use super::rates::offered_rates;

/// The one-line provenance of a BENCHMARKS.md section made from `report`
/// ([`crate::rounds::short_line`]); `results/*.md` keep [`WorkloadsReport::provenance`].
pub fn short_provenance(report: &WorkloadsReport, tool: &str) -> String {
    let what = match report.base_rounds {
        Some(base) if base < report.rounds => format!(
            "{base} rounds (up to {} where a cell was undecided) of {} s per point",
            report.rounds, report.seconds_per_point
        ),
        _ => format!(
            "{} rounds of {} s per point",
            report.rounds, report.seconds_per_point
        ),
    };
    crate::rounds::short_line(tool, &report.machine, &what)
}

/// What a cell compares in a BENCHMARKS.md section, in one sentence; the rule is in the
/// method section ([`what_a_cell_is`] says it in full).
pub fn what_a_cell_is_short() -> String {
    format!(
        "Each cell is {} ÷ the baseline, lower is better (for requests/s the baseline's ÷ \
         {0}'s): the geometric mean of the per-round ratios, its 95% interval and the rounds.",
        SUBJECT.label
    )
}

/// What a cell compares, for the paragraph above a table.
pub fn what_a_cell_is() -> String {
    format!(
        "Each cell is {} ÷ the baseline, lower is better (for requests/s the baseline's ÷ \
         {0}'s, so below 1 favours it there too); a round pairs the two figures measured within \
         the same round. {}",
        SUBJECT.label,
        judge::METHOD
    )
}

/// The table over those of `workloads` that `report` measured, in their order, and the
/// line under it.
pub fn table(report: &WorkloadsReport, workloads: &[Workload]) -> String {
    let control = report.samples.iter().any(|s| s.contender == AA_CONTROL.id);
    let header: Vec<String> = BASELINES.iter().map(|b| format!("÷ {}", b.label)).collect();
    let (aa_head, aa_rule) = if control {
        (" A/A control |", "---|")
    } else {
        ("", "")
    };
    let mut out = format!(
        "| workload | measure | {} |{aa_head}\n|---|---|{}{aa_rule}\n",
        header.join(" | "),
        "---|".repeat(BASELINES.len())
    );
    let mut tally = Tally::default();
    let measured = report.workloads();
    for workload in workloads.iter().filter(|w| measured.iter().any(|m| m == w.name)) {
        for (unit, (baselines, aa)) in report.verdict_rows(workload) {
            let measure = if unit == workload.unit() {
                workload.measure()
            } else {
                unit.describe().to_string()
            };
            let bound = |pair| report.client_bound(workload.name, unit, pair);
            let cells: Vec<String> = baselines
                .iter()
                .zip(BASELINES)
                .map(|(r, b)| {
                    let cell = tally.cell(r, bound((SUBJECT.id, b.id)));
                    match fell_behind(report, workload.name, (SUBJECT.id, b.id)) {
                        Some(note) if judge::Estimate::of(r).is_none() => format!("{cell}: {note}"),
                        _ => cell,
                    }
                })
                .collect();
            let aa = if control {
                format!(" {} |", tally.aa_cell(&aa, bound((AA_CONTROL.id, SUBJECT.id))))
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "| {} | {measure} | {} |{aa}",
                workload.name,
                cells.join(" | ")
            );
        }
    }
    if let Some(idle) = report.idle_fit() {
        let cells: Vec<String> = BASELINES
            .iter()
            .map(|b| tally.cell(&report.idle_fit_ratios(b.id), None))
            .collect();
        let aa = if control {
            format!(" {} |", tally.aa_cell(&report.idle_fit_aa_ratios(), None))
        } else {
            String::new()
        };
        let counts: Vec<String> = idle
            .iter()
            .map(|(_, count)| crate::format::group_thousands(*count as f64))
            .collect();
        let _ = writeln!(
            out,
            "| idle connections | {} ({}): the slope of a fit over {} connections | {} |{aa}",
            Unit::BytesPerIdleConnection.describe(),
            report.idle_memory_counts(),
            counts.join(", "),
            cells.join(" | ")
        );
    }
    let _ = write!(
        out,
        "\nThe rule decided {} of {} cells (*wins*, *loses* or *ties*)",
        tally.decided, tally.cells
    );
    if control {
        let _ = write!(
            out,
            "; the A/A control read *ties* in {} of {} rows",
            tally.aa_ties, tally.aa_cells
        );
    }
    out.push('.');
    if tally.client_bound > 0 {
        let _ = write!(
            out,
            " Left out: {} client-bound cells. {}",
            tally.client_bound,
            client_bound::explain()
        );
    }
    out.push('\n');
    out.push_str(&idle_control(report));
    out.push_str(&offered_rates(report));
    out
}

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
fn fell_behind(report: &WorkloadsReport, workload: &str, (a, b): (&str, &str)) -> Option<String> {
    let (behind, rounds) = report.rounds_behind(workload, &[a, b])?;
    Some(format!(
        "a server fell behind the offered rate in {behind} of {rounds} rounds"
    ))
}

/// The idle fit against the I/O-model control, where it ran every round: tokio's codec
/// reading into one shared buffer, so neither side holds a buffer per idle connection.
fn idle_control(report: &WorkloadsReport) -> String {
    // Empty without a fit; one round cannot be judged.
    let ratios = report.idle_fit_ratios(TOKIO_CODEC_SHARED.id);
    if ratios.len() < 2 {
        return String::new();
    }
    format!(
        "\nIdle connections against the I/O-model control ({}, which holds no buffer per idle \
         connection either, so what is left is the I/O model's own cost: the socket, the armed \
         receive or the epoll entry, the task): {}.\n",
        TOKIO_CODEC_SHARED.label,
        judge::cell(&ratios)
    )
}

/// How many cells and A/A cells a table holds, how many the rule decided, and how many
/// were client-bound (left out of both).
#[derive(Default)]
struct Tally {
    cells: usize,
    decided: usize,
    aa_cells: usize,
    aa_ties: usize,
    client_bound: usize,
}

impl Tally {
    /// A cell, *client-bound* where `bound` holds the client's busiest share.
    fn cell(&mut self, ratios: &[f64], bound: Option<f64>) -> String {
        if let Some(busy) = bound {
            self.client_bound += 1;
            return client_bound::cell(ratios, busy);
        }
        self.cells += 1;
        if matches!(Word::judge(ratios), Word::Wins | Word::Loses | Word::Ties) {
            self.decided += 1;
        }
        judge::cell(ratios)
    }

    fn aa_cell(&mut self, ratios: &[f64], bound: Option<f64>) -> String {
        if ratios.is_empty() {
            return "not measured".into();
        }
        if let Some(busy) = bound {
            self.client_bound += 1;
            return client_bound::cell(ratios, busy);
        }
        self.aa_cells += 1;
        if Word::judge(ratios) == Word::Ties {
            self.aa_ties += 1;
        }
        judge::cell(ratios)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::samples::Sample;

    /// Three rounds of "4 connections" (requests/s), io_uring_server 20% ahead of the codec
    /// every round and too noisy a ratio to hyper to decide, the client `busy` in the
    /// second round with hyper.
    fn report(busy: f64) -> WorkloadsReport {
        let mut samples = Vec::new();
        for round in 0..3 {
            let hyper = [900.0, 1300.0, 1000.0][round];
            for (contender, rps) in [
                (SUBJECT.id, 1200.0),
                (BASELINES[0].id, 1000.0),
                (BASELINES[1].id, hyper),
            ] {
                let mut sample = Sample::example("4 connections", contender, round, rps);
                sample.client_busy = Some(if round == 1 && contender == BASELINES[1].id {
                    busy
                } else {
                    0.5
                });
                samples.push(sample);
            }
        }
        WorkloadsReport::over(samples)
    }

    fn four_connections() -> Vec<Workload> {
        vec![super::super::catalogue::by_name("4 connections").unwrap()]
    }

    #[test]
    fn a_client_bound_cell_is_left_out_of_the_tally() {
        let table = table(&report(0.95), &four_connections());
        assert!(table.contains("*client-bound* (client 95% busy)"), "{table}");
        assert!(
            table.contains("**wins**"),
            "the codec's cell is the rule's: {table}"
        );
        assert!(table.contains("The rule decided 1 of 1 cells"), "{table}");
        assert!(table.contains("Left out: 1 client-bound cells."), "{table}");
        assert!(
            !report(0.95).undecided(&four_connections()[0]),
            "more rounds cannot decide a client-bound cell"
        );
    }

    #[test]
    fn a_fixed_rate_cell_too_short_to_judge_says_a_server_fell_behind() {
        let row = "64 KiB echo at 50% load";
        let mut samples = Vec::new();
        for round in 0..3 {
            for contender in [SUBJECT.id, BASELINES[0].id, BASELINES[1].id] {
                let mut sample = Sample::example(row, contender, round, 10.0);
                sample.offered_per_sec = Some(1000.0);
                if contender == SUBJECT.id && round > 0 {
                    sample.value = None;
                }
                samples.push(sample);
            }
        }
        let workloads = [super::super::catalogue::by_name(row).unwrap()];
        let table = table(&WorkloadsReport::over(samples), &workloads);
        assert!(
            table.contains("n/a (1 round): a server fell behind the offered rate in 2 of 3 rounds"),
            "{table}"
        );
    }

    #[test]
    fn a_client_with_cpu_to_spare_leaves_every_cell_to_the_rule() {
        let table = table(&report(0.85), &four_connections());
        assert!(!table.contains("client-bound"), "{table}");
        assert!(table.contains("The rule decided 1 of 2 cells"), "{table}");
        assert!(table.contains("**inconclusive**"), "{table}");
        assert!(
            report(0.85).undecided(&four_connections()[0]),
            "more rounds could decide it"
        );
    }
}

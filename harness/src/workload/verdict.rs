//! The verdict table: per workload, [`SUBJECT`] ÷ each of the [`BASELINES`] and, where a
//! run measured it, the A/A control ÷ the subject, each cell decided by the one rule
//! ([`crate::judge`]); then how many cells the rule decided and how often the A/A control
//! tied. The workloads study and `cargo bench` both print it; each says above it where its
//! rounds came from.

use std::fmt::Write as _;

use super::samples::WorkloadsReport;
use super::{BASELINES, SUBJECT, Workload};
use crate::judge::{self, Word};
use crate::servers::AA_CONTROL;

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
            let cells: Vec<String> = baselines.iter().map(|r| tally.cell(r)).collect();
            let aa = if control {
                format!(" {} |", tally.aa_cell(&aa))
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} |{aa}",
                workload.name,
                unit.describe(),
                cells.join(" | ")
            );
        }
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
    out.push_str(".\n");
    out
}

/// How many cells and A/A cells a table holds, and how many the rule decided.
#[derive(Default)]
struct Tally {
    cells: usize,
    decided: usize,
    aa_cells: usize,
    aa_ties: usize,
}

impl Tally {
    fn cell(&mut self, ratios: &[f64]) -> String {
        self.cells += 1;
        if matches!(Word::judge(ratios), Word::Wins | Word::Loses | Word::Ties) {
            self.decided += 1;
        }
        judge::cell(ratios)
    }

    fn aa_cell(&mut self, ratios: &[f64]) -> String {
        if ratios.is_empty() {
            return "not measured".into();
        }
        self.aa_cells += 1;
        if Word::judge(ratios) == Word::Ties {
            self.aa_ties += 1;
        }
        judge::cell(ratios)
    }
}

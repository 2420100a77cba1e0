//! The verdict table: per workload, [`SUBJECT`] ÷ each of the [`BASELINES`] and, where a
//! run measured it, the A/A control ÷ the subject, each cell decided by the one rule
//! ([`crate::judge`]); then how many cells the rule decided and how often the A/A control
//! tied. The workloads study and `cargo bench` both print it; each says above it where its
//! rounds came from.

use std::fmt::Write as _;

use super::offered::{self, VERDICT_PERCENT};
use super::samples::WorkloadsReport;
use super::{BASELINES, SUBJECT, Unit, Workload};
use crate::judge::{self, Word};
use crate::servers::{AA_CONTROL, TOKIO_CODEC_SHARED};

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
            let cells: Vec<String> = baselines.iter().map(|r| tally.cell(r)).collect();
            let aa = if control {
                format!(" {} |", tally.aa_cell(&aa))
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
            .map(|b| tally.cell(&report.idle_fit_ratios(b.id)))
            .collect();
        let aa = if control {
            format!(" {} |", tally.aa_cell(&report.idle_fit_aa_ratios()))
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
    out.push_str(".\n");
    out.push_str(&idle_control(report));
    out.push_str(&offered_rates(report));
    out
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

/// How the offered workloads' rates were set, where the report has any.
pub fn offered_rates(report: &WorkloadsReport) -> String {
    if report.calibrations.is_empty() {
        return String::new();
    }
    let rates: Vec<String> = report
        .calibrations
        .iter()
        .map(|c| {
            format!(
                "{}: {} req/s ({}'s capacity {})",
                c.workload,
                crate::format::group_thousands(c.rate(VERDICT_PERCENT)),
                c.slowest_label(),
                crate::format::group_thousands(c.slowest),
            )
        })
        .collect();
    format!(
        "\nRows \"at {VERDICT_PERCENT}% load\" offered every server the same open-loop rate, \
         {VERDICT_PERCENT}% of the slowest contender's capacity (what it served flat out in a \
         {:.1} s calibration run at the start; every contender measured at that load counts, \
         those shown in the details only too, so that all of them can keep up): {}. A round in which a server served less than \
         {:.0}% of the offered rate (the answers that arrived within its scheduled window, over that window) \
         counts for nothing: a backlog is not a cost per request. \
         Rows \"saturated closed loop\" drive every server as fast as the client can: their CPU \
         per request is the server's busy share divided by a rate the client sets, a capacity \
         figure rather than a cost.\n",
        offered::CALIBRATION.as_secs_f64(),
        rates.join("; "),
        offered::KEEP_UP * 100.0,
    )
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

//! BENCHMARKS.md's sections on the rows beyond the verdict (`harness::workload::further`),
//! measured by the workloads run after the verdict's rows and judged by the same rule:
//! large bodies (chunked framing, 1 MiB echoes) and files (64 KiB, and cold ones read from
//! storage). Each section has a table of the verdict's kind over its rows, then what only
//! these rows tell: what chunked framing costs each server, and how far tokio's own
//! io_uring file path moves tokio. A run from before the rows joined says so instead.

use std::fmt::Write as _;
use std::path::Path;

use crate::workloads::{Shape, Workload, WorkloadsReport, measured_workloads};
use harness::judge::{self, ControlCount};
use harness::output::rewrite_benchmarks_section;
use harness::rounds::{ratios, spread};
use harness::servers::{TOKIO_CODEC, TOKIO_CODEC_IO_URING_FS};
use harness::workload::catalogue::by_name;
use harness::workload::further::{self, CHUNK};
use harness::workload::verdict;

pub const BODIES: (&str, &str) = (
    "<!-- BEGIN BODIES: scripts/workloads.sh rewrites this section -->",
    "<!-- END BODIES -->",
);
pub const FILES: (&str, &str) = (
    "<!-- BEGIN FILES: scripts/workloads.sh rewrites this section -->",
    "<!-- END FILES -->",
);

/// The chunked echoes and the rows their cost is read against: (size, chunked, plain).
const FRAMING: [(&str, &str, &str); 2] = [
    (
        "64 KiB",
        "64 KiB echo, chunked at a fixed rate",
        "64 KiB echo at a fixed rate",
    ),
    (
        "1 MiB",
        "1 MiB echo, chunked at a fixed rate",
        "1 MiB echo at a fixed rate",
    ),
];

/// Writes both sections into BENCHMARKS.md.
pub fn write(workspace: &Path, report: &WorkloadsReport) -> Result<(), String> {
    rewrite_benchmarks_section(workspace, BODIES, &bodies(report))?;
    rewrite_benchmarks_section(workspace, FILES, &files(report))
}

/// The large-body section: the echo rows' table, then what chunked framing costs.
pub fn bodies(report: &WorkloadsReport) -> String {
    let rows = further::echo_rows();
    let Some(table) = rows_table(report, &rows) else {
        return not_measured(&rows);
    };
    format!(
        "{}\n\n{table}\n### What chunked framing costs each server\n\n{}{}",
        provenance(report),
        framing(report),
        every_round()
    )
}

/// The file section: the file rows' table, then tokio's io_uring file path against its
/// epoll twin on every file row.
pub fn files(report: &WorkloadsReport) -> String {
    let rows = further::file_rows();
    let Some(table) = rows_table(report, &rows) else {
        return not_measured(&rows);
    };
    format!(
        "{}\n\n{table}\n### How far tokio's own io_uring file path moves tokio\n\n{}{}",
        provenance(report),
        tokio_file_path(report),
        every_round()
    )
}

fn provenance(report: &WorkloadsReport) -> String {
    verdict::short_provenance(report, "scripts/workloads.sh")
}

fn every_round() -> &'static str {
    "\nEvery row's servers and rounds: [results/workloads.md](results/workloads.md).\n"
}

/// The section of a run that has none of `rows`.
fn not_measured(rows: &[Workload]) -> String {
    let names: Vec<String> = rows.iter().map(|w| format!("*{}*", w.name)).collect();
    format!(
        "Not measured yet: {} joined the catalogue after the committed run \
         (`results/workloads.json`); `scripts/workloads.sh` measures them with the verdict.\n",
        names.join(", ")
    )
}

/// The verdict's brief table over `rows` (so the rule's tally and the A/A control's count
/// are theirs), without the verdict's idle fit, the rates of other rows or the verdict
/// rows a run lacks; `None` where `report` measured none of them.
fn rows_table(report: &WorkloadsReport, rows: &[Workload]) -> Option<String> {
    Some(verdict::brief_table(&theirs(report, rows)?, rows, None))
}

/// How the A/A control read on the rows beyond the verdict, both sections' tables
/// together, as the lines under them count it; `None` where `report` measured none.
pub fn control_count(report: &WorkloadsReport) -> Option<ControlCount> {
    let counts: Vec<ControlCount> = [further::echo_rows(), further::file_rows()]
        .iter()
        .filter_map(|rows| Some(verdict::control_count(&theirs(report, rows)?, rows)))
        .collect();
    (!counts.is_empty()).then(|| ControlCount {
        ties: counts.iter().map(|c| c.ties).sum(),
        called: counts.iter().map(|c| c.called).sum(),
        undecided: counts.iter().map(|c| c.undecided).sum(),
    })
}

/// `report` as a table over `rows` reads it: every sample but the idle ones (whose fit is
/// a verdict row of its own), no list of judged rows (so no verdict row reads as missing)
/// and the calibrations of `rows` alone; `None` where it measured none of them.
pub(crate) fn theirs(report: &WorkloadsReport, rows: &[Workload]) -> Option<WorkloadsReport> {
    let names: Vec<&str> = rows.iter().map(|w| w.name).collect();
    let bases: Vec<&str> = rows
        .iter()
        .filter_map(|w| match w.shape {
            Shape::Offered { of, .. } => Some(of),
            _ => None,
        })
        .collect();
    if !report
        .samples
        .iter()
        .any(|s| names.contains(&s.workload.as_str()))
    {
        return None;
    }
    let idle = |name: &str| by_name(name).is_some_and(|w| matches!(w.shape, Shape::Idle { .. }));
    Some(WorkloadsReport {
        samples: report
            .samples
            .iter()
            .filter(|s| !idle(&s.workload))
            .cloned()
            .collect(),
        judged: None,
        calibrations: report
            .calibrations
            .iter()
            .filter(|c| bases.contains(&c.workload.as_str()))
            .cloned()
            .collect(),
        ..report.clone()
    })
}

/// Per server, its CPU per request with the body chunked ÷ with Content-Length, each at
/// its own fixed rate, over the rounds that measured both (median and range).
fn framing(report: &WorkloadsReport) -> String {
    let mut out = format!(
        "CPU per request of the body sent in {CHUNK}-byte chunks ÷ the same body with \
         Content-Length, each at its own fixed rate: the median of the per-round ratios (their \
         range); 1 is free, above 1 is what decoding the framing costs.\n\n| server |"
    );
    for (size, ..) in FRAMING {
        let _ = write!(out, " {size} |");
    }
    let _ = writeln!(out, "\n|---|{}", "---|".repeat(FRAMING.len()));
    for (id, label) in report.contenders(FRAMING[0].1) {
        let cells: Vec<String> = FRAMING
            .iter()
            .map(|(_, chunked, plain)| {
                let measured = ratios(&report.values(chunked, &id), &report.values(plain, &id));
                match measured.is_empty() {
                    true => no_ratio(report, &id, chunked, plain),
                    false => spread(&measured),
                }
            })
            .collect();
        let _ = writeln!(out, "| {label} | {} |", cells.join(" | "));
    }
    out
}

/// Why a server has no framing ratio: it fell behind the offered rate in every round of
/// the chunked row, of the row with Content-Length, or of both ([`WorkloadsReport::rounds_behind`]);
/// in no round kept up with both; or was not measured.
pub(crate) fn no_ratio(report: &WorkloadsReport, id: &str, chunked: &str, plain: &str) -> String {
    let every = |row: &str| {
        report
            .rounds_behind(row, &[id])
            .is_some_and(|(behind, rounds)| behind == rounds)
    };
    let some = |row: &str| report.rounds_behind(row, &[id]).is_some();
    match (every(chunked), every(plain)) {
        (true, true) => "fell behind in every round".into(),
        (true, false) => "fell behind in every round (chunked)".into(),
        (false, true) => "fell behind in every round (Content-Length)".into(),
        _ if some(chunked) || some(plain) => "kept up with both in no round".into(),
        _ => "not measured".into(),
    }
}

/// tokio's codec engine on its io_uring file path ÷ the same engine on epoll (tokio's
/// blocking pool), judged per file row at a fixed rate.
fn tokio_file_path(report: &WorkloadsReport) -> String {
    let mut out = format!(
        "{} ÷ {} at every file row's fixed rate, the rule's word on each: below 1, tokio's \
         io_uring file path saves it CPU.\n\n| workload | {0} ÷ {1} |\n|---|---|\n",
        TOKIO_CODEC_IO_URING_FS.label, TOKIO_CODEC.label
    );
    let measured = report.workloads();
    let file_rows = measured_workloads()
        .filter(|w| w.serves_files() && matches!(w.shape, Shape::Offered { .. }))
        .filter(|w| measured.iter().any(|m| m == w.name));
    for workload in file_rows {
        let pair = (TOKIO_CODEC_IO_URING_FS.id, TOKIO_CODEC.id);
        let _ = writeln!(
            out,
            "| {} | {} |",
            workload.name,
            judge::cell(&report.ratios_of(workload, pair))
        );
    }
    out
}

#[cfg(test)]
#[path = "further_rows_tests.rs"]
mod tests;

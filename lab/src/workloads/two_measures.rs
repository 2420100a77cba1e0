//! Server CPU and whole-machine CPU per request side by side, for each verdict row judged
//! in server CPU, against the cheapest tokio configuration, and a mark where the two
//! measures point opposite ways. On loopback the split between them is an accounting
//! choice of the kernel's, so a row whose two measures disagree depends on what each side
//! is charged for, and the verdict says so. `report` puts it under the verdict's table:
//! every such row in results/workloads.md, in BENCHMARKS.md the uploads row and the rows
//! that disagree.

use std::fmt::Write as _;

use harness::output::Doc;
use harness::rounds::{geometric_mean, median};
use harness::workload::scope;
use harness::workload::{Unit, Workload};

// The uploads row is shown in BENCHMARKS.md whatever its two measures say: bulk receive,
// where what the sender is charged for decides most.
use crate::workloads::features::UPLOADS;
use crate::workloads::{SUBJECT, WORKLOADS, WorkloadsReport};

/// How far from 1 each ratio must be for the two to count as pointing opposite ways.
pub const OPPOSITE_MIN: f64 = 0.01;

/// The sentence on who pays for what over loopback.
pub const LOOPBACK: &str = "On loopback a packet's receive processing (the TCP/IP receive \
path, up to queueing the bytes on the receiving socket) runs on the sending CPU and is \
charged to the sender: a server's own CPU includes that work for every response it sends \
and none of it for the requests (an upload's 20 MiB) it receives, which the client pays; \
the whole machine's CPU counts both sides.";

/// One row: io_uring_server's and its opponent's medians, and the geometric mean of their
/// per-round ratios (as every other ratio of the report, the verdict's among them), in
/// server CPU and in whole-machine CPU.
#[derive(Debug, Clone, PartialEq)]
pub struct TwoMeasures {
    pub label: String,
    pub against: &'static str,
    pub server: (f64, f64, f64),
    pub machine: (f64, f64, f64),
}

impl TwoMeasures {
    /// The two ratios lie on opposite sides of 1, each by [`OPPOSITE_MIN`] or more.
    pub fn opposite(&self) -> bool {
        let (s, m) = (self.server.2 - 1.0, self.machine.2 - 1.0);
        s * m < 0.0 && s.abs() >= OPPOSITE_MIN && m.abs() >= OPPOSITE_MIN
    }
}

/// The verdict rows judged in CPU per request or connection, with both measures where
/// both were kept.
pub fn rows(report: &WorkloadsReport) -> Vec<(Workload, TwoMeasures)> {
    let measured = report.workloads();
    WORKLOADS
        .iter()
        .filter(|w| scope::in_verdict(w) && matches!(w.unit(), Unit::CpuPerRequest | Unit::CpuPerConnection))
        .filter(|w| measured.iter().any(|m| m == w.name))
        .filter_map(|w| Some((*w, of(report, w)?)))
        .collect()
}

fn of(report: &WorkloadsReport, workload: &Workload) -> Option<TwoMeasures> {
    let against = report.best_tokio(workload, workload.unit()).contender?;
    let per_round = |id: &str, pick: fn(&harness::workload::samples::Sample) -> Option<f64>| {
        (0..report.rounds)
            .map(|round| {
                report
                    .of(workload.name, id)
                    .find(|s| s.round == round && s.value.is_some())
                    .and_then(pick)
            })
            .collect::<Vec<_>>()
    };
    let measure = |pick: fn(&harness::workload::samples::Sample) -> Option<f64>| {
        let (mine, theirs) = (per_round(SUBJECT.id, pick), per_round(against.id, pick));
        let pairs: Vec<(f64, f64)> = mine
            .iter()
            .zip(&theirs)
            .filter_map(|(a, b)| Some(((*a)?, (*b)?)))
            .collect();
        let ratios: Vec<f64> = pairs.iter().map(|(a, b)| a / b).collect();
        let (a, b): (Vec<f64>, Vec<f64>) = pairs.into_iter().unzip();
        Some((median(&a)?, median(&b)?, geometric_mean(&ratios)?))
    };
    Some(TwoMeasures {
        label: report.rate_label(workload),
        against: against.label,
        server: measure(|s| s.value)?,
        machine: measure(|s| s.machine_cpu_us)?,
    })
}

/// The table and its sentence; in BENCHMARKS.md only the uploads row and the rows whose
/// measures point opposite ways. Empty where no row has both measures.
pub fn render(report: &WorkloadsReport, doc: Doc) -> String {
    let rows = rows(report);
    let shown: Vec<&(Workload, TwoMeasures)> = rows
        .iter()
        .filter(|(w, row)| doc == Doc::Results || w.name == UPLOADS || row.opposite())
        .collect();
    if shown.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "\nServer CPU and whole-machine CPU, µs per request (or connection), io_uring_server \
         and the cheapest tokio configuration, each the median over the rounds; ÷ is the \
         geometric mean of the per-round ratios (io_uring_server ÷ it), as in the verdict. \
         {LOOPBACK}\n\n\
         | workload | against | server CPU: io_uring_server, it, ÷ | whole-machine CPU: io_uring_server, it, ÷ | |\n\
         |---|---|---|---|---|\n"
    );
    for (_, row) in shown {
        let mark = match row.opposite() {
            true => "**the two measures point opposite ways**",
            false => "",
        };
        let show = |(a, b, r): (f64, f64, f64)| format!("{a:.1}, {b:.1}, {r:.2}");
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {mark} |",
            row.label,
            row.against,
            show(row.server),
            show(row.machine)
        );
    }
    out
}

#[cfg(test)]
#[path = "two_measures_tests.rs"]
mod tests;

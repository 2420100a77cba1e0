//! The verdict table: per workload, [`SUBJECT`] ÷ the cheapest tokio configuration of the
//! row ([`super::best`]), ÷ each of the [`BASELINES`] (the codec engine first: the same code
//! on epoll, so the I/O model alone) and, where a run measured it, the A/A control ÷ the
//! subject, each cell decided by the one rule ([`crate::judge`]) but a requests/s cell the
//! client bound ([`client_bound`]); a fixed-rate row named by its rate and its share of
//! each compared server's capacity; then how many cells the rule decided and how often the
//! A/A control tied ([`super::cells`]), with the measures left out on purpose and the rows
//! a run did not measure ([`super::scope`]). The workloads study and `cargo bench` both print
//! it; each says above it where its rounds came from.

use std::fmt::Write as _;

use super::best::{Best, HOW_CHOSEN, configurations};
use super::cells::{Tally, fell_behind};
use super::chosen::{chosen_by, p99_sentence};
use super::offered::{KEEP_UP, VERDICT_PERCENT};
use super::samples::WorkloadsReport;
use super::{BASELINES, SUBJECT, Unit, Workload, client_bound, scope};
use crate::judge::{self, ControlCount};
use crate::output::Doc;
use crate::servers::{AA_CONTROL, TOKIO_CODEC_SHARED};

pub use super::rates::{offered_rates, rates_table};

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

/// The columns, in words: the cheapest tokio configuration first, the codec engine as the
/// I/O model alone.
const COLUMNS: &str = "The first column is against the cheapest tokio configuration of the \
     row, named in the cell; the codec engine runs http_core, the very code io_uring_server \
     runs, on epoll, so its column is the I/O model plus any technique a tokio server could \
     add (sendfile, a shared read buffer).";

/// What a cell compares in a BENCHMARKS.md section, in one sentence; the rule is in the
/// method section ([`what_a_cell_is`] says it in full).
pub fn what_a_cell_is_short() -> String {
    format!(
        "Each cell is {} ÷ the baseline, lower is better (for requests/s the baseline's ÷ \
         {0}'s): the geometric mean of the per-round ratios and the rule's word; each cell's 95% \
         interval and rounds, and each row's share of every server's capacity, are in the \
         results file. {COLUMNS}",
        SUBJECT.label
    )
}

/// What a cell compares, for the paragraph above a table.
pub fn what_a_cell_is() -> String {
    format!(
        "Each cell is {} ÷ the baseline, lower is better (for requests/s the baseline's ÷ \
         {0}'s, so below 1 favours it there too); a round pairs the two figures measured within \
         the same round. {COLUMNS} {}",
        SUBJECT.label,
        judge::METHOD
    )
}

/// The header of the table's baseline columns.
fn headers() -> Vec<String> {
    let mut columns = vec!["÷ the cheapest tokio configuration".to_string()];
    columns.extend(BASELINES.iter().map(|b| match b.id == BASELINES[0].id {
        true => format!("÷ {}: the same code on epoll", b.label),
        false => format!("÷ {}", b.label),
    }));
    columns
}

/// "keep-alive, small requests at 34,704 req/s (23% of io_uring_server's capacity, 28% of
/// tokio_server (codec)'s; servers mostly awake: io_uring_server 0.02, tokio_server (codec)
/// 0.03 wake-ups per request)": a row's name, with an offered row's rate and its share of
/// the capacity of each server the row compares, and whether io_uring_server and the
/// cheapest tokio configuration woke for most requests ([`super::wakes`]).
pub fn row_name(report: &WorkloadsReport, workload: &Workload, best: &Best) -> String {
    let name = report.rate_label(workload);
    let mut servers = vec![(SUBJECT.id, SUBJECT.label)];
    servers.extend(best.contender.map(|c| (c.id, c.label)));
    // A run from before wake-ups were counted says so once, under the table.
    let wakes = match report.counted_wakeups() {
        true => Some(report.wake_label(workload.name, &servers)),
        false => None,
    };
    match (report.load_shares(workload, &compared(best)), wakes) {
        (Some(shares), Some(wakes)) => format!("{name} ({shares}; {wakes})"),
        (Some(shares), None) => format!("{name} ({shares})"),
        (None, Some(wakes)) => format!("{name} ({wakes})"),
        (None, None) => name,
    }
}

/// The labels of the servers a row compares: io_uring_server, its cheapest tokio
/// configuration, and the [`BASELINES`].
pub fn compared(best: &Best) -> Vec<&'static str> {
    let mut labels = vec![SUBJECT.label];
    labels.extend(best.contender.map(|c| c.label));
    labels.extend(BASELINES.iter().map(|b| b.label));
    crate::rounds::first_seen(labels.into_iter())
}

/// The table over those of `workloads` that `report` measured, in their order, and the
/// line under it.
pub fn table(report: &WorkloadsReport, workloads: &[Workload], doc: Doc) -> String {
    table_in(report, workloads, doc, false, None)
}

/// [`table`] in full for a run of its own beside `full`, the full verdict: a row whose
/// word differs names the full verdict's ([`super::beside::note`]), as in [`brief_table`].
pub fn table_beside(
    report: &WorkloadsReport,
    workloads: &[Workload],
    full: Option<&WorkloadsReport>,
) -> String {
    table_in(report, workloads, Doc::Results, false, full)
}

/// [`table`] for BENCHMARKS.md with each cell in brief, its ratio and word: a summary of a
/// run whose results file has the full table. Beside `full`, the full verdict, a row whose
/// word differs names the full verdict's ([`super::beside::note`]).
pub fn brief_table(
    report: &WorkloadsReport,
    workloads: &[Workload],
    full: Option<&WorkloadsReport>,
) -> String {
    table_in(report, workloads, Doc::Benchmarks, true, full)
}

/// How the A/A control's cells of the table over `workloads` read ([`ControlCount`]): the
/// count the line under [`brief_table`] gives, for a view that names it elsewhere.
pub fn control_count(report: &WorkloadsReport, workloads: &[Workload]) -> ControlCount {
    counted_table(report, workloads, Doc::Benchmarks, true, None).1
}

fn table_in(
    report: &WorkloadsReport,
    workloads: &[Workload],
    doc: Doc,
    brief: bool,
    full: Option<&WorkloadsReport>,
) -> String {
    counted_table(report, workloads, doc, brief, full).0
}

/// The table and how its A/A control's cells read.
fn counted_table(
    report: &WorkloadsReport,
    workloads: &[Workload],
    doc: Doc,
    brief: bool,
    full: Option<&WorkloadsReport>,
) -> (String, ControlCount) {
    let control = report.samples.iter().any(|s| s.contender == AA_CONTROL.id);
    let header = headers();
    let (aa_head, aa_rule) = if control {
        (" A/A control |", "---|")
    } else {
        ("", "")
    };
    let mut out = format!(
        "| workload | measure | {} |{aa_head}\n|---|---|{}{aa_rule}\n",
        header.join(" | "),
        "---|".repeat(header.len())
    );
    let mut tally = Tally {
        brief,
        ..Tally::default()
    };
    let measured = report.workloads();
    let mut p99 = Vec::new();
    for workload in workloads.iter().filter(|w| measured.iter().any(|m| m == w.name)) {
        for (unit, (baselines, aa)) in report.verdict_rows(workload) {
            // BENCHMARKS.md keeps a row to its rate and unit; the results file says more.
            let measure = if unit == workload.unit() && doc == Doc::Results {
                workload.measure()
            } else {
                unit.describe().to_string()
            };
            let best = report.best_tokio(workload, unit);
            let name = match doc {
                Doc::Results => row_name(report, workload, &best),
                Doc::Benchmarks => report.rate_label(workload),
            };
            let bound = report.client_bound(workload.name);
            let behind = |pair| fell_behind(report, workload.name, pair);
            let note = super::beside::note(report, full, workload, unit, brief);
            if let (Unit::LatencyP99, Some(c)) = (unit, best.contender) {
                let theirs = full.and_then(|full| full.best_tokio(workload, unit).contender);
                p99.push((report.rate_label(workload), c.label, theirs.map(|t| t.label)));
            }
            let why = if brief { "" } else { chosen_by(unit) };
            let mut cells = vec![match best.contender {
                Some(c) => tally.best(&best, bound, behind((SUBJECT.id, c.id))) + why + &note,
                None => tally.best(&best, None, None),
            }];
            cells.extend(
                baselines
                    .iter()
                    .zip(BASELINES)
                    .map(|(r, b)| tally.cell(r, bound, behind((SUBJECT.id, b.id)))),
            );
            let aa = if control {
                format!(" {} |", tally.aa_cell(&aa, bound))
            } else {
                String::new()
            };
            let _ = writeln!(out, "| {name} | {measure} | {} |{aa}", cells.join(" | "));
        }
    }
    if let Some(idle) = report.idle_fit() {
        let mut cells = vec![tally.best(&report.best_tokio_idle(), None, None)];
        cells.extend(
            BASELINES
                .iter()
                .map(|b| tally.cell(&report.idle_fit_ratios(b.id), None, None)),
        );
        let aa = if control {
            format!(" {} |", tally.aa_cell(&report.idle_fit_aa_ratios(), None))
        } else {
            String::new()
        };
        let counts: Vec<String> = idle
            .iter()
            .map(|(_, count)| crate::format::group_thousands(*count as f64))
            .collect();
        let measure = match doc {
            Doc::Results => format!(
                "{} ({}): the slope of a fit over {} connections",
                Unit::BytesPerIdleConnection.describe(),
                report.idle_memory_counts(),
                counts.join(", ")
            ),
            Doc::Benchmarks => Unit::BytesPerIdleConnection.describe().to_string(),
        };
        let _ = writeln!(
            out,
            "| idle connections | {measure} | {} |{aa}",
            cells.join(" | ")
        );
    }
    let _ = write!(
        out,
        "\nThe rule decided {} of {} cells (*wins*, *loses* or *ties*)",
        tally.decided, tally.cells
    );
    if control {
        let _ = write!(out, "; the A/A control read {}", tally.aa.phrase());
    }
    out.push('.');
    if tally.client_bound > 0 {
        let _ = write!(out, " Left out: {} client-bound cells.", tally.client_bound);
    }
    if tally.client_bound + tally.aa_client_bound > 0 {
        let _ = write!(out, " {}", client_bound::explain_in(doc));
    }
    let how_chosen = match doc {
        Doc::Results => HOW_CHOSEN,
        Doc::Benchmarks => "as the [glossary](#glossary) defines the cheapest tokio configuration",
    };
    let _ = write!(
        out,
        " How the first column is chosen: {how_chosen}{}.",
        absent(report)
    );
    if brief {
        out.push_str(&p99_sentence(&p99));
    }
    // In BENCHMARKS.md the answer above the verdict says which measures are not rows.
    if report.judged.is_some() && doc == Doc::Results {
        let _ = write!(out, " {}", scope::left_out());
    }
    if report.judged.is_some() {
        out.push_str(&not_measured_sentence(report));
    }
    let _ = write!(out, " {}", report.wakes_sentence());
    out.push('\n');
    out.push_str(&idle_control(report));
    out.push_str(&offered_rates_in(report, doc));
    (out, tally.aa)
}

/// The paragraph on how the fixed rates were set: in full in a results file
/// ([`offered_rates`]); in BENCHMARKS.md the share in one sentence and a link to the
/// method, where the rule is stated once.
fn offered_rates_in(report: &WorkloadsReport, doc: Doc) -> String {
    if doc == Doc::Results || report.calibrations.is_empty() {
        return offered_rates(report);
    }
    let of = match report.calibrations.iter().any(|c| c.by_pair()) {
        true => format!("the smaller capacity of {} and its tokio baseline", SUBJECT.label),
        false => "the smallest capacity among the contenders".to_string(),
    };
    format!(
        "\nEach fixed-rate row offered every server the same open-loop rate, {VERDICT_PERCENT}% \
         of {of} or lower where the client capped it (each row's label in the results file \
         gives its true share of every compared server's capacity), and a round a server \
         served less than {:.0}% of it in counts for nothing ([Method](#method)); every \
         contender's capacity and flat-out figures are in the results file's table *Offered \
         rates and capacities*.\n",
        KEEP_UP * 100.0
    )
}

/// The verdict rows `report` lacks: workloads the verdict judges now that its run did not
/// measure (a run from before they were added, or one of some workloads). Empty for a
/// report that says nothing of what it judged (`cargo bench`'s few key workloads).
pub fn not_measured(report: &WorkloadsReport) -> Vec<&'static str> {
    if report.judged.is_none() {
        return Vec::new();
    }
    let measured = report.workloads();
    super::catalogue::WORKLOADS
        .iter()
        .filter(|w| scope::in_verdict(w) && !matches!(w.shape, super::Shape::Idle { .. }))
        .filter(|w| !measured.iter().any(|m| m == w.name) || !report.is_judged(w.name))
        .map(|w| w.name)
        .collect()
}

/// " Not measured in this run: *a*, *b* (verdict rows added since; `scripts/workloads.sh`
/// measures them).": empty where the report has every row.
pub fn not_measured_sentence(report: &WorkloadsReport) -> String {
    let missing: Vec<String> = not_measured(report).iter().map(|n| format!("*{n}*")).collect();
    match missing.is_empty() {
        true => String::new(),
        false => format!(
            " Not measured in this run: {} (verdict rows added since it; `scripts/workloads.sh` \
             measures them).",
            missing.join(", ")
        ),
    }
}

/// " (not in this run: tokio_server (hyper, multi-thread))": the tokio configurations the
/// report never measured ([`super::best::configurations`]), which no row could choose.
fn absent(report: &WorkloadsReport) -> String {
    let (_, absent) = configurations(report);
    match absent.is_empty() {
        true => String::new(),
        false => format!(" (not in this run: {})", absent.join(", ")),
    }
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

#[cfg(test)]
#[path = "verdict_tests.rs"]
mod tests;

//! `results/workloads.md`, `results/workloads.json`, one SVG per workload under
//! `results/workloads/`, the verdict at the top of BENCHMARKS.md, its picture
//! (`results/verdict.svg`, [`forest`]) and the answer block opening README.md and
//! BENCHMARKS.md ([`answer`]): the workloads study as tables, generated from its samples.

use std::fmt::Write as _;
use std::path::Path;

use crate::workloads::{
    SUBJECT, Sample, Shape, Unit, WORKLOADS, Workload, WorkloadsReport, anchors_cannot, answer, bound_by,
    features, forest, measured_workloads, offered, plot, runtimes, tail, yours,
};
pub use harness::output::Doc;
use harness::output::rewrite_benchmarks_section;
use harness::rounds::median;
use harness::servers::nginx::ANCHOR_NOTE;
use harness::servers::{ANCHORS, Contender};
use harness::workload::exempt;
use harness::workload::verdict;

pub const BEGIN: &str = "<!-- BEGIN VERDICT: scripts/workloads.sh rewrites this section -->";
pub const END: &str = "<!-- END VERDICT -->";

/// Writes what is rendered from the report (markdown, plots, the verdict section), not
/// its JSON: what `--render` rewrites.
pub fn write_rendered(workspace: &Path, report: &WorkloadsReport) -> Result<(), String> {
    let results = workspace.join("results");
    let plots = results.join(plot::FOLDER);
    std::fs::create_dir_all(&plots).map_err(|e| e.to_string())?;
    for workload in report.workloads() {
        if !sectioned(report, &workload) {
            continue;
        }
        plot::draw(&plots.join(plot::file_name(&workload)), report, &workload)?;
        let curve = plots.join(offered::file_name(&workload));
        if offered::has_curve(report, &workload) {
            offered::draw(&curve, report, &workload)?;
        } else if curve.exists() {
            // An earlier run's curve, from rates this one no longer measures.
            std::fs::remove_file(&curve).map_err(|e| format!("{}: {e}", curve.display()))?;
        }
    }
    std::fs::write(results.join("workloads.md"), render(report)).map_err(|e| e.to_string())?;
    forest::draw(&results.join(forest::FILE), report)?;
    answer::write_blocks(workspace, report)?;
    super::first_screen::write_block(workspace, report)?;
    rewrite_benchmarks_section(workspace, (BEGIN, END), &verdict(report, Doc::Benchmarks))
}

/// Writes `results/features.md` and the feature section of BENCHMARKS.md.
pub fn write_features(workspace: &Path, report: &WorkloadsReport) -> Result<(), String> {
    let title = "io_uring features where each is meant to pay";
    write_pass(
        workspace,
        ("features", title),
        (
            &features::render(report, Doc::Results),
            &features::render(report, Doc::Benchmarks),
        ),
        (features::BEGIN, features::END),
    )
}

/// Writes `results/runtimes.md` and the runtime section of BENCHMARKS.md.
pub fn write_runtimes(workspace: &Path, report: &WorkloadsReport) -> Result<(), String> {
    let title = "Which io_uring runtime: the hand-rolled loop and the ready runtimes";
    write_pass(
        workspace,
        ("runtimes", title),
        (
            &runtimes::render(report, Doc::Results),
            &runtimes::render(report, Doc::Benchmarks),
        ),
        (runtimes::BEGIN, runtimes::END),
    )
}

/// A pass of the workloads study with a lineup of its own: `results/{name}.md` (under
/// `title`, every table) and its section of BENCHMARKS.md (the headline); the JSON is
/// written by whoever measured.
fn write_pass(
    workspace: &Path,
    (name, title): (&str, &str),
    (full, headline): (&str, &str),
    markers: (&str, &str),
) -> Result<(), String> {
    let results = workspace.join("results");
    std::fs::create_dir_all(&results).map_err(|e| e.to_string())?;
    std::fs::write(results.join(format!("{name}.md")), format!("# {title}\n\n{full}"))
        .map_err(|e| e.to_string())?;
    rewrite_benchmarks_section(workspace, markers, headline)
}

pub fn render(report: &WorkloadsReport) -> String {
    let mut out = String::from("# For which workload is io_uring worth it?\n\n");
    out.push_str(&verdict(report, Doc::Results));
    out.push_str(&yours::render(report));
    if measured_anchors(report).next().is_some() {
        let _ = writeln!(out, "{ANCHOR_NOTE}\n");
    }
    let _ = writeln!(
        out,
        "{}\n",
        harness::io_workers::note(report.samples.iter().map(|s| (
            s.label.as_str(),
            s.workload.as_str(),
            s.round,
            s.io_workers
        )))
    );
    for workload in report.workloads().iter().filter(|w| sectioned(report, w)) {
        detail(&mut out, report, workload);
    }
    out.push_str(&verdict::rates_table(report));
    out
}

/// Whether `workload` has a section of its own: all but the offered rates the verdict
/// does not judge, which are in their saturated workload's section
/// ([`offered::table`]), and those the catalogue no longer has (an older run's 25% and 75%
/// loads).
fn sectioned(report: &WorkloadsReport, workload: &str) -> bool {
    let Some(known) = workload_named(workload) else {
        return false;
    };
    !matches!(known.shape, Shape::Offered { .. })
        || report
            .judged
            .as_ref()
            .is_some_and(|j| j.iter().any(|j| j == workload))
}

/// The verdict table, under the provenance and what a cell is: in full for
/// `results/workloads.md`, in a line each for BENCHMARKS.md.
pub fn verdict(report: &WorkloadsReport, doc: Doc) -> String {
    let prefix = doc.prefix();
    let (provenance, cell) = match doc {
        Doc::Benchmarks => (
            verdict::short_provenance(report, "scripts/workloads.sh"),
            verdict::what_a_cell_is_short(),
        ),
        Doc::Results => (
            report.provenance("scripts/workloads.sh"),
            verdict::what_a_cell_is(),
        ),
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{provenance}\n\n{cell} The last column is the A/A control (a second io_uring_server \
         process ÷ the first), judged by the same rule: it must read *ties*. Details: \
         [{prefix}workloads.md]({prefix}workloads.md).\n",
    );
    out.push_str(&match doc {
        Doc::Benchmarks => verdict::brief_table(report, WORKLOADS, None),
        Doc::Results => verdict::table(report, WORKLOADS, doc),
    });
    out.push_str(&super::two_measures::render(report, doc));
    out.push_str(&super::wake_cost::render(report));
    let _ = writeln!(out, "\n{}", exempt::section());
    let _ = writeln!(
        out,
        "\nCaveats: loopback TCP only (no NIC, no interrupts), 2 vCPUs (server on one, client \
         on the other), a shared VM whose speed drifts between periods; only ratios within one \
         round compare. Echoes, uploads and large responses are bound by the kernel's copies, not by \
         the I/O model (each section says why). Where each server's CPU goes, by category, \
         with flame graphs: \
         [{prefix}profiles.md]({prefix}profiles.md) (`scripts/profiles.sh`).\n"
    );
    out
}

fn detail(out: &mut String, report: &WorkloadsReport, workload: &str) {
    let known = workload_named(workload);
    let unit = known.map_or(Unit::CpuPerRequest, |w| w.unit());
    let _ = writeln!(out, "## {workload}\n");
    if let Some(why) = known.and_then(harness::workload::scope::outside_verdict) {
        let _ = writeln!(out, "Not a verdict row: {why}.\n");
    }
    if let Some(rate) = report.of(workload, SUBJECT.id).find_map(|s| s.offered_per_sec) {
        let slices = report.slices.max(1);
        let _ = writeln!(
            out,
            "Offered: {} requests/s to every server{}, an open loop measured in {slices} windows \
             of {:.3} s a round; the req/s column counts the answers that arrived within them. A \
             round counts as *fell behind*, and is not judged, when those answers, plus the \
             requests still in flight as each window closed and one request per window for \
             rounding, come to less than 99% of the offered rate.\n",
            harness::format::rate(rate),
            shares(report, workload),
            report.seconds_per_point / slices as f64,
        );
    }
    let _ = writeln!(
        out,
        "![{workload}]({})\n",
        super::plot::link(&super::plot::file_name(workload))
    );
    let _ = writeln!(
        out,
        "| server | {}, by round | median | whole-machine CPU µs per request (median) | req/s (median) | p99 µs (median) | syscalls/req | bottleneck (last round) |",
        unit.describe()
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|");
    let voided = report.voided_rounds(workload);
    for (id, label) in report.contenders(workload) {
        let samples: Vec<&Sample> = report.of(workload, &id).collect();
        // The per-request medians leave out the rounds it fell behind in, as the tail table
        // does, and the noisy rounds that count for nothing.
        let counted: Vec<&Sample> = samples
            .iter()
            .copied()
            .filter(|s| !voided.contains(&s.round))
            .collect();
        let kept: Vec<&Sample> = counted.iter().copied().filter(|s| !fell_behind(s)).collect();
        let values: Vec<f64> = counted.iter().filter_map(|s| s.value).collect();
        let by_round: Vec<String> = samples
            .iter()
            .map(|s| match s.value {
                Some(v) if voided.contains(&s.round) => format!("({})", unit.show(v)),
                Some(v) => unit.show(v),
                None if fell_behind(s) => "fell behind".into(),
                None => "n/a".into(),
            })
            .collect();
        let rss: Vec<f64> = samples.iter().filter_map(|s| s.rss_bytes_per_idle).collect();
        let rss = match median(&rss) {
            Some(rss) if samples.iter().any(|s| s.kernel_included == Some(true)) => {
                format!(" (resident pages alone: {rss:.0})")
            }
            _ => String::new(),
        };
        let machine: Vec<f64> = kept.iter().filter_map(|s| s.machine_cpu_us).collect();
        let rps: Vec<f64> = samples.iter().map(|s| s.requests_per_sec).collect();
        let p99: Vec<f64> = kept.iter().map(|s| s.p99_us as f64).collect();
        let syscalls = samples.iter().find_map(|s| s.syscalls_per_request);
        let _ = writeln!(
            out,
            "| {label} | {} | {}{rss} | {} | {} | {} | {} | {} |",
            by_round.join(" "),
            median(&values).map_or("n/a".into(), |v| unit.show(v)),
            median(&machine).map_or("n/a".into(), |v| format!("{v:.1}")),
            median(&rps).map_or("n/a".into(), harness::format::rate),
            median(&p99).map_or("n/a".into(), |v| format!("{v:.0}")),
            syscalls.map_or("not counted".into(), |v| format!("{v:.2}")),
            samples.last().map_or("n/a", |s| s.bottleneck.as_str()),
        );
    }
    let why_not = workload_named(workload)
        .and_then(anchors_cannot)
        .unwrap_or("nginx: not run at this workload");
    for anchor in measured_anchors(report) {
        if report.of(workload, anchor.id).next().is_none() {
            let _ = writeln!(
                out,
                "| {} | not measured: it cannot serve this workload ({why_not}) |  |  |  |  |  |  |",
                anchor.label
            );
        }
    }
    out.push('\n');
    if let Some(note) = harness::workload::client_bound::noisy_note(report, workload) {
        let _ = writeln!(out, "{note}\n");
    }
    if let Some(judged) = super::anchor::sentence(report, workload) {
        let _ = writeln!(out, "{judged}\n");
    }
    if let Some(why) = workload_named(workload).and_then(bound_by) {
        let _ = writeln!(out, "{why}\n");
    }
    if unit == Unit::BytesPerIdleConnection {
        let _ = writeln!(out, "Memory counted: {}.\n", report.idle_memory_counts());
    }
    if let Some(table) = offered::table(report, workload) {
        let _ = writeln!(out, "{table}");
    }
    if let Some(table) = workload_named(workload).and_then(|w| tail::table(report, w)) {
        let _ = writeln!(out, "{table}");
    }
}

/// Whether `sample` is a fixed-rate round its server fell behind in: no figure, though its
/// CPU was read. Such a round counts for nothing: its figures per request are a backlog's.
fn fell_behind(sample: &Sample) -> bool {
    sample.value.is_none() && sample.offered_per_sec.is_some() && sample.server_cpu_us.is_some()
}

/// " (23% of io_uring_server's capacity, 28% of tokio_server (codec)'s, ...)": the
/// offered rate as a share of the capacity of each server the verdict row compares.
fn shares(report: &WorkloadsReport, workload: &str) -> String {
    let Some(workload) = workload_named(workload) else {
        return String::new();
    };
    let best = report.best_tokio(workload, workload.unit());
    let labels = verdict::compared(&best);
    report
        .load_shares(workload, &labels)
        .map_or(String::new(), |shares| format!(" ({shares})"))
}

/// The workload called `name` that the run measures: a verdict row's, or one beyond it.
fn workload_named(name: &str) -> Option<&'static Workload> {
    measured_workloads().find(|w| w.name == name)
}

/// The outside anchors the study measured somewhere.
fn measured_anchors(report: &WorkloadsReport) -> impl Iterator<Item = &Contender> {
    ANCHORS
        .iter()
        .filter(|anchor| report.samples.iter().any(|s| s.contender == anchor.id))
}

#[cfg(test)]
#[path = "report_tests.rs"]
mod tests;

//! `results/workloads.md`, `results/workloads.json`, one SVG per workload under
//! `results/workloads/`, and the verdict at the top of BENCHMARKS.md: the workloads study
//! as tables, generated from its samples.

use std::fmt::Write as _;
use std::path::Path;

use crate::workloads::{SUBJECT, Shape, Unit, WORKLOADS, WorkloadsReport, bound_by, features, offered, plot};
use harness::output::{rewrite_benchmarks_section, write_json};
use harness::rounds::median;
use harness::servers::nginx::ANCHOR_NOTE;
use harness::servers::{ANCHORS, Contender};
use harness::workload::verdict;

pub const BEGIN: &str = "<!-- BEGIN VERDICT: scripts/workloads.sh rewrites this section -->";
pub const END: &str = "<!-- END VERDICT -->";

/// Writes the results files and the verdict section of BENCHMARKS.md.
pub fn write_all(workspace: &Path, report: &WorkloadsReport) -> Result<(), String> {
    let results = workspace.join("results");
    let plots = results.join("workloads");
    std::fs::create_dir_all(&plots).map_err(|e| e.to_string())?;
    write_json(&results.join("workloads.json"), report)?;
    for workload in report.workloads() {
        if !sectioned(report, &workload) {
            continue;
        }
        plot::draw(&plots.join(plot::file_name(&workload)), report, &workload)?;
        if offered::table(report, &workload).is_some() {
            offered::draw(&plots.join(offered::file_name(&workload)), report, &workload)?;
        }
    }
    std::fs::write(results.join("workloads.md"), render(report)).map_err(|e| e.to_string())?;
    rewrite_benchmarks_section(workspace, (BEGIN, END), &verdict(report, "results/"))
}

/// Writes `results/features.{md,json}` and the feature section of BENCHMARKS.md.
pub fn write_features(workspace: &Path, report: &WorkloadsReport) -> Result<(), String> {
    let results = workspace.join("results");
    std::fs::create_dir_all(&results).map_err(|e| e.to_string())?;
    write_json(&results.join("features.json"), report)?;
    let table = features::render(report);
    let markdown = format!("# io_uring features where each is meant to pay\n\n{table}");
    std::fs::write(results.join("features.md"), markdown).map_err(|e| e.to_string())?;
    rewrite_benchmarks_section(workspace, (features::BEGIN, features::END), &table)
}

pub fn render(report: &WorkloadsReport) -> String {
    let mut out = String::from("# For which workload is io_uring worth it?\n\n");
    out.push_str(&verdict(report, ""));
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
    out
}

/// Whether `workload` has a section of its own: all but the offered rates the verdict
/// does not judge, which are in their saturated workload's section
/// ([`offered::table`]).
fn sectioned(report: &WorkloadsReport, workload: &str) -> bool {
    let offered = WORKLOADS
        .iter()
        .any(|w| w.name == workload && matches!(w.shape, Shape::Offered { .. }));
    !offered
        || report
            .judged
            .as_ref()
            .is_some_and(|j| j.iter().any(|j| j == workload))
}

/// The verdict table; `prefix` is the path from the document to `results/`.
pub fn verdict(report: &WorkloadsReport, prefix: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} {} The last column is the A/A control (a second io_uring_server process ÷ the \
         first), judged by the same rule: it must read *ties*. Details: \
         [{prefix}workloads.md]({prefix}workloads.md).\n",
        report.provenance("scripts/workloads.sh"),
        verdict::what_a_cell_is(),
    );
    out.push_str(&verdict::table(report, &WORKLOADS));
    let _ = writeln!(
        out,
        "\nCaveats: loopback TCP only (no NIC, no interrupts), 2 vCPUs (server on one, client \
         on the other), a shared VM whose speed drifts between periods; only ratios within one \
         round compare. Echoes and large responses are bound by the kernel's copies, not by \
         the I/O model (each section says why). Where each server's CPU goes, by category, \
         with flame graphs: \
         [{prefix}profiles.md]({prefix}profiles.md) (`scripts/profiles.sh`).\n"
    );
    out
}

fn detail(out: &mut String, report: &WorkloadsReport, workload: &str) {
    let unit = WORKLOADS
        .iter()
        .find(|w| w.name == workload)
        .map_or(Unit::CpuPerRequest, |w| w.unit());
    let _ = writeln!(out, "## {workload}\n");
    if let Some(rate) = report.of(workload, SUBJECT.id).find_map(|s| s.offered_per_sec) {
        let _ = writeln!(
            out,
            "Offered: {} requests/s to every server, an open loop; a round in which a server \
             served less than 99% of it shows *fell behind* and is not judged.\n",
            harness::format::group_thousands(rate)
        );
    }
    let _ = writeln!(
        out,
        "![{workload}](workloads/{})\n",
        super::plot::file_name(workload)
    );
    let _ = writeln!(
        out,
        "| server | {}, by round | median | whole-machine CPU µs per request (median) | req/s (median) | p99 µs (median) | syscalls/req | bottleneck (last round) |",
        unit.describe()
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|");
    for (id, label) in report.contenders(workload) {
        let samples: Vec<_> = report.of(workload, &id).collect();
        let values: Vec<f64> = samples.iter().filter_map(|s| s.value).collect();
        let by_round: Vec<String> = samples
            .iter()
            .map(|s| match (s.value, s.offered_per_sec, s.server_cpu_us) {
                (Some(v), _, _) => unit.show(v),
                (None, Some(_), Some(_)) => "fell behind".into(),
                _ => "n/a".into(),
            })
            .collect();
        let rss: Vec<f64> = samples.iter().filter_map(|s| s.rss_bytes_per_idle).collect();
        let rss = match median(&rss) {
            Some(rss) if samples.iter().any(|s| s.kernel_included == Some(true)) => {
                format!(" (resident pages alone: {rss:.0})")
            }
            _ => String::new(),
        };
        let machine: Vec<f64> = samples.iter().filter_map(|s| s.machine_cpu_us).collect();
        let rps: Vec<f64> = samples.iter().map(|s| s.requests_per_sec).collect();
        let p99: Vec<f64> = samples.iter().map(|s| s.p99_us as f64).collect();
        let syscalls = samples.iter().find_map(|s| s.syscalls_per_request);
        let _ = writeln!(
            out,
            "| {label} | {} | {}{rss} | {} | {} | {} | {} | {} |",
            by_round.join(" "),
            median(&values).map_or("n/a".into(), |v| unit.show(v)),
            median(&machine).map_or("n/a".into(), |v| format!("{v:.1}")),
            median(&rps).map_or("n/a".into(), |v| format!("{v:.0}")),
            median(&p99).map_or("n/a".into(), |v| format!("{v:.0}")),
            syscalls.map_or("not counted".into(), |v| format!("{v:.2}")),
            samples.last().map_or("n/a", |s| s.bottleneck.as_str()),
        );
    }
    for anchor in measured_anchors(report) {
        if report.of(workload, anchor.id).next().is_none() {
            let _ = writeln!(
                out,
                "| {} | not measured: it cannot serve this workload (nginx: no echo without extra modules) |  |  |  |  |  |  |",
                anchor.label
            );
        }
    }
    out.push('\n');
    if let Some(why) = WORKLOADS.iter().find(|w| w.name == workload).and_then(bound_by) {
        let _ = writeln!(out, "{why}\n");
    }
    if unit == Unit::BytesPerIdleConnection {
        let _ = writeln!(out, "Memory counted: {}.\n", report.idle_memory_counts());
    }
    if let Some(table) = offered::table(report, workload) {
        let _ = writeln!(out, "{table}");
    }
}

/// The outside anchors the study measured somewhere.
fn measured_anchors(report: &WorkloadsReport) -> impl Iterator<Item = &Contender> {
    ANCHORS
        .iter()
        .filter(|anchor| report.samples.iter().any(|s| s.contender == anchor.id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workloads::Sample;
    use harness::machine::Machine;
    use harness::servers::AA_CONTROL;

    fn sample(workload: &str, contender: &str, round: usize, value: f64) -> Sample {
        Sample::example(workload, contender, round, value)
    }

    fn report() -> WorkloadsReport {
        let mut samples = Vec::new();
        for round in 0..3 {
            let r = round as f64;
            samples.push(sample("64 KiB echo", "io_uring", round, 8.0 + r));
            samples.push(sample("64 KiB echo", "tokio_codec", round, 10.0 + r));
            samples.push(sample("64 KiB echo", "tokio_hyper", round, 20.0));
            // The A/A control: 2% either side of the subject, alternately.
            let wobble = [1.0, 1.02, 0.98][round];
            samples.push(sample("64 KiB echo", AA_CONTROL.id, round, (8.0 + r) * wobble));
            samples.push(sample("one connection", "io_uring", round, 25.0));
            samples.push(sample("one connection", "nginx", round, 24.0));
            samples.push(Sample {
                server_cpu_us: Some(30.0),
                ..sample("one connection", "tokio_codec", round, 25.0)
            });
            samples.push(sample("4 connections", "io_uring", round, 120.0 + r));
            samples.push(sample("4 connections", "tokio_codec", round, 100.0));
        }
        WorkloadsReport {
            machine: Machine::detect(),
            pinning: "server CPU 0, client CPU 1".into(),
            rounds: 3,
            base_rounds: None,
            detail_rounds: 3,
            seconds_per_point: 1.0,
            slices: 4,
            judged: None,
            calibrations: Vec::new(),
            samples,
        }
    }

    #[test]
    fn the_verdict_judges_every_baseline_from_the_rounds() {
        let text = verdict(&report(), "results/");
        // 8/10, 9/11, 10/12 are 0.80, 0.82, 0.83: the interval lies below 0.90.
        assert!(
            text.contains(
                "| 64 KiB echo | server CPU µs per request, saturated closed loop | 0.82 (0.78-0.86, 3 rounds) **wins** by ≥10% \
                 | 0.45 (0.34-0.59, 3 rounds) **wins** by ≥10% | 1.00 (0.95-1.05, 3 rounds) **ties** |"
            ),
            "{text}"
        );
        assert!(
            text.contains("The rule decided 5 of 8 cells (*wins*, *loses* or *ties*); the A/A control read *ties* in 1 of 1 rows."),
            "{text}"
        );
        assert!(text.contains("[results/workloads.md](results/workloads.md)"));
    }

    /// Requests/s is inverted (codec's 100 ÷ io_uring's 120-122), and one connection gets
    /// a CPU row beside its round trip (25 ÷ 30 in every round).
    #[test]
    fn requests_per_second_are_inverted_and_one_connection_has_a_cpu_row() {
        let text = verdict(&report(), "");
        assert!(
            text.contains("| 4 connections | requests/s (the cell is the baseline's ÷ io_uring_server's) | 0.83 (0.81-0.84, 3 rounds) **wins** by ≥10% |"),
            "{text}"
        );
        assert!(
            text.contains("| one connection | median round trip, µs | 1.00 (1.00-1.00, 3 rounds) **ties** |"),
            "{text}"
        );
        assert!(
            text.contains(
                "| one connection | server CPU µs per request | 0.83 (0.83-0.83, 3 rounds) **wins** by ≥10% |"
            ),
            "{text}"
        );
    }

    #[test]
    fn an_anchor_has_detail_rows_but_no_verdict_column_and_reads_not_measured_where_absent() {
        let text = render(&report());
        assert!(text.contains("| nginx | 24.0 24.0 24.0 | 24.0 |"), "{text}");
        assert!(
            text.contains("| nginx (outside anchor) | not measured: "),
            "{text}"
        );
        assert!(text.contains(ANCHOR_NOTE), "{text}");
        let verdict = verdict(&report(), "");
        let table = verdict.lines().filter(|line| line.starts_with('|'));
        assert!(table.clone().all(|line| !line.contains("nginx")), "{verdict}");
    }

    #[test]
    fn the_detail_lists_every_round_and_the_syscalls_counted_once() {
        let text = render(&report());
        assert!(text.contains("## 64 KiB echo"), "{text}");
        assert!(
            text.contains(
                "extra modules) |  |  |  |  |  |  |\n\nWhat bounds it: the kernel copies each body twice"
            ),
            "the echo's detail says what bounds it: {text}"
        );
        assert!(
            text.contains("| io_uring | 8.0 9.0 10.0 | 9.0 | 27.0 | 1000 | 50 | 0.50 | client |"),
            "{text}"
        );
    }
}

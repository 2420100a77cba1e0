//! `results/bodies.md`, `results/bodies.json` and the large-body section of BENCHMARKS.md:
//! the large-body study as tables, generated from its samples.

use std::fmt::Write as _;
use std::path::Path;

use harness::judge;
use harness::output::{rewrite_benchmarks_section, write_json};
use harness::rounds;
use harness::servers::AA_CONTROL;
use harness::workload::Shape;
use harness::workload::scope::decided_in_the_verdict;

use crate::bodies::{
    BASELINES, BodiesReport, CHUNK, SUBJECT, WORKLOADS, chunked_pairs, median, size_text, spread,
};

pub const BEGIN: &str = "<!-- BEGIN BODIES: scripts/bodies.sh rewrites this section -->";
pub const END: &str = "<!-- END BODIES -->";

/// Writes `results/bodies.{md,json}` and the verdict tables into BENCHMARKS.md.
pub fn write_all(workspace: &Path, report: &BodiesReport) -> Result<(), String> {
    let results = workspace.join("results");
    std::fs::create_dir_all(&results).map_err(|e| e.to_string())?;
    write_json(&results.join("bodies.json"), report)?;
    let markdown = render(report);
    std::fs::write(results.join("bodies.md"), &markdown).map_err(|e| e.to_string())?;
    rewrite_benchmarks_section(workspace, (BEGIN, END), &summary(report, &markdown))
}

/// BENCHMARKS.md's part of `markdown`: a one-line provenance, the verdict table and what
/// chunked framing costs, without the method (`results/bodies.md` keeps it and the rounds).
pub fn summary(report: &BodiesReport, markdown: &str) -> String {
    let tables: Vec<&str> = markdown.split("\n## ").skip(1).take(2).collect();
    format!(
        "{}\n\n### {}\nEvery round: [results/bodies.md](results/bodies.md).\n",
        rounds::short_provenance(
            "scripts/bodies.sh",
            &report.machine,
            (report.rounds, report.seconds_per_point),
        ),
        tables
            .join("\n### ")
            .replacen(&format!("{}\n\n", judge::METHOD), "", 1)
    )
}

pub fn render(report: &BodiesReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Large bodies: server CPU per request\n");
    let provenance = rounds::provenance(
        "scripts/bodies.sh",
        &report.machine,
        &report.pinning,
        (report.rounds, report.seconds_per_point),
    );
    let _ = writeln!(
        out,
        "{provenance}{} Every server is started afresh for each round. Each request is a `POST \
         /payload` echoed back, checked for status and length. Ratios are taken within a round \
         (the machine drifts between rounds).\n",
        harness::slices::describe(report.slices),
    );
    verdicts(&mut out, report);
    chunked_cost(&mut out, report);
    for workload in WORKLOADS {
        per_round(&mut out, report, workload.name, workload.connections);
    }
    out
}

fn verdicts(out: &mut String, report: &BodiesReport) {
    let subject = SUBJECT.label;
    let _ = writeln!(out, "## {subject} against tokio's engines\n");
    let _ = writeln!(
        out,
        "{}\n\n| workload | baseline | {subject} CPU/request ÷ baseline's, and the word |",
        judge::METHOD
    );
    let _ = writeln!(out, "|---|---|---|");
    for workload in WORKLOADS {
        for baseline in BASELINES {
            let ratios = report.ratios((workload.name, SUBJECT.id), (workload.name, baseline.id));
            let shape = Shape::Echo {
                bytes: workload.post.bytes,
                connections: workload.connections,
            };
            let cell = match workload.post.chunk {
                None if baseline.id != AA_CONTROL.id => decided_in_the_verdict(shape),
                _ => None,
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} |",
                workload.name,
                baseline.label,
                cell.unwrap_or_else(|| judge::cell(&ratios))
            );
        }
    }
    let controls: Vec<Vec<f64>> = WORKLOADS
        .iter()
        .map(|w| report.ratios((w.name, SUBJECT.id), (w.name, AA_CONTROL.id)))
        .collect();
    let _ = writeln!(out, "\n{}", judge::control_tally(&controls));
    out.push('\n');
}

fn chunked_cost(out: &mut String, report: &BodiesReport) {
    let _ = writeln!(out, "## What chunked framing costs each server\n");
    let _ = writeln!(
        out,
        "CPU per request of the body sent in {CHUNK}-byte chunks ÷ the same body with Content-Length.\n"
    );
    let sizes: Vec<String> = chunked_pairs()
        .map(|(plain, _)| size_text(plain.post.bytes))
        .collect();
    let _ = writeln!(out, "| server | {} |", sizes.join(" | "));
    let _ = writeln!(out, "|---|{}", "---|".repeat(sizes.len()));
    for (id, name) in report.contenders() {
        let costs: Vec<String> = chunked_pairs()
            .map(|(plain, chunked)| spread(&report.ratios((chunked.name, &id), (plain.name, &id))))
            .collect();
        let _ = writeln!(out, "| {name} | {} |", costs.join(" | "));
    }
    out.push('\n');
}

fn per_round(out: &mut String, report: &BodiesReport, workload: &str, connections: usize) {
    let _ = writeln!(out, "## {workload}, {connections} connections\n");
    let _ = writeln!(
        out,
        "| server | CPU µs/request by round | median | whole-machine CPU µs/request (median) | req/s (median) | bottleneck (last round) |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|");
    for (id, name) in report.contenders() {
        let samples: Vec<_> = report
            .samples
            .iter()
            .filter(|s| s.workload == workload && s.contender == id)
            .collect();
        let cpu = report.cpu(workload, &id);
        let rounds: Vec<String> = cpu
            .iter()
            .map(|c| c.map_or("n/a".into(), |v| format!("{v:.1}")))
            .collect();
        let measured: Vec<f64> = cpu.iter().flatten().copied().collect();
        let rps: Vec<f64> = samples.iter().map(|s| s.requests_per_sec).collect();
        let machine: Vec<f64> = samples
            .iter()
            .filter_map(|s| s.machine_cpu_us_per_request)
            .collect();
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {} | {} | {} |",
            rounds.join(" "),
            median(&measured).map_or("n/a".into(), |v| format!("{v:.1}")),
            median(&machine).map_or("n/a".into(), |v| format!("{v:.1}")),
            median(&rps).map_or("n/a".into(), |v| format!("{v:.0}")),
            samples.last().map_or("n/a", |s| s.bottleneck.as_str())
        );
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn benchmarks_gets_the_two_tables_under_one_provenance_line() {
        let mut machine = harness::machine::Machine::detect();
        machine.git_commit = "abc1234".into();
        let report = BodiesReport {
            machine,
            pinning: "server on CPU 0, client on CPU 1".into(),
            rounds: 3,
            slices: 4,
            seconds_per_point: 2.0,
            samples: Vec::new(),
        };
        let markdown = render(&report);
        let part = summary(&report, &markdown);
        let first = part.lines().next().unwrap_or_default();
        assert_eq!(harness::stale::commit_of(first), Some("abc1234"), "{first}");
        assert!(first.ends_with("3 rounds of 2 s per point; method: [Method](#method)."));
        assert!(
            part.contains("### io_uring_server against tokio's engines"),
            "{part}"
        );
        assert!(part.contains("### What chunked framing costs"), "{part}");
        assert!(
            !part.contains(judge::METHOD) && markdown.contains(judge::METHOD),
            "{part}"
        );
        assert!(
            !part.contains("Williams") && markdown.contains("Williams"),
            "{part}"
        );
        assert!(
            part.ends_with("[results/bodies.md](results/bodies.md).\n"),
            "{part}"
        );
    }
}

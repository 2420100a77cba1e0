//! `results/files.md`, `results/files.json` and the file section of BENCHMARKS.md: the
//! file study as tables, a pure function of its samples ([`render`]).

use std::fmt::Write as _;
use std::path::Path;

use harness::judge::{self, Estimate};
use harness::output::{rewrite_benchmarks_section, write_json};
use harness::rounds;
use harness::servers::{AA_CONTROL, COMPIO, MONOIO, NGINX, TOKIO_CODEC, TOKIO_URING};
use harness::usage::CLIENT_SATURATED;
use harness::workload::client_bound;

use crate::files::tables::{compared, cpu_text};
use crate::files::{BASELINES, FilesReport, SUBJECT, spread};

pub const BEGIN: &str = "<!-- BEGIN FILES: scripts/files.sh rewrites this section -->";
pub const END: &str = "<!-- END FILES -->";

/// What [`render`]'s heading says first.
const TITLE: &str = "# Serving files: server CPU per request\n\n";

/// A target for io_uring_server: its CPU per request at `workload` at most `limit` times
/// the `baseline`'s, the ratio taken within each round.
pub struct Target {
    pub workload: &'static str,
    pub baseline: &'static str,
    pub limit: f64,
}

/// Issue 42's targets: hot 1 MiB files within 1.1x nginx's sendfile, hot 4 KiB files at
/// or below each ready runtime (so at or below the best of them), and the earlier target
/// against the tokio codec engine.
pub const TARGETS: [Target; 9] = [
    Target {
        workload: "4 KiB hot, 256 connections",
        baseline: TOKIO_CODEC.id,
        limit: 0.60,
    },
    Target {
        workload: "1 MiB hot, 16 connections",
        baseline: NGINX.id,
        limit: 1.1,
    },
    Target {
        workload: "1 MiB hot, 256 connections",
        baseline: NGINX.id,
        limit: 1.1,
    },
    runtime_target("4 KiB hot, 16 connections", TOKIO_URING.id),
    runtime_target("4 KiB hot, 16 connections", MONOIO.id),
    runtime_target("4 KiB hot, 16 connections", COMPIO.id),
    runtime_target("4 KiB hot, 256 connections", TOKIO_URING.id),
    runtime_target("4 KiB hot, 256 connections", MONOIO.id),
    runtime_target("4 KiB hot, 256 connections", COMPIO.id),
];

/// At most the ready runtime `baseline`'s CPU per request at `workload`.
const fn runtime_target(workload: &'static str, baseline: &'static str) -> Target {
    Target {
        workload,
        baseline,
        limit: 1.0,
    }
}

/// Writes `results/files.{md,json}` and the summary into BENCHMARKS.md.
pub fn write_all(workspace: &Path, report: &FilesReport) -> Result<(), String> {
    let results = workspace.join("results");
    std::fs::create_dir_all(&results).map_err(|e| e.to_string())?;
    write_json(&results.join("files.json"), report)?;
    write_rendered(workspace, report)
}

/// Writes every view of `report` (`results/files.md`, its BENCHMARKS.md section), not
/// its JSON: what `scripts/files.sh --render` redraws.
pub fn write_rendered(workspace: &Path, report: &FilesReport) -> Result<(), String> {
    let results = workspace.join("results");
    let markdown = render(report);
    harness::output::write(&results.join("files.md"), &markdown)?;
    rewrite_benchmarks_section(workspace, (BEGIN, END), &summary(report, &markdown))
}

/// BENCHMARKS.md's part of the report: a one-line provenance and the least CPU (not the
/// method, the targets, the verdict cells, tokio's io_uring fs path, the distance to nginx
/// nor the details: `results/files.md` has them).
pub fn summary(report: &FilesReport, markdown: &str) -> String {
    let kept = ["Which server"];
    let parts: Vec<&str> = markdown
        .split("\n## ")
        .filter(|part| kept.iter().any(|k| part.starts_with(k)))
        .collect();
    let provenance = rounds::short_provenance(
        "scripts/files.sh",
        &report.machine,
        (report.rounds, report.seconds_per_point),
    );
    format!(
        "{provenance}\n\n### {}\nEverything else, with the targets for {}, the verdict cells, \
         tokio's io_uring fs path and the distance to nginx: \
         [results/files.md](results/files.md).\n",
        parts.join("\n### "),
        SUBJECT.label
    )
}

pub fn render(report: &FilesReport) -> String {
    let mut out = String::from(TITLE);
    let provenance = rounds::provenance(
        "scripts/files.sh",
        &report.machine,
        &report.pinning,
        (report.rounds, report.seconds_per_point),
    );
    let _ = writeln!(
        out,
        "{provenance}{} Every server is started afresh for each round and serves the study \
         corpus (`http_core::files::CORPUS`) from one directory. Each request is `GET \
         /files/{{name}}` for a file of the point's set picked uniformly at random (seeded, a \
         sequence per connection; round r uses seed {} + r), each answer checked for status \
         200, Content-Length and every body byte; any error fails the study. Closed loop: \
         each connection asks for its next file when the last has arrived. *Hot*: every file \
         of the set read once right before each slice of each server; *cold*: \
         `posix_fadvise(POSIX_FADV_DONTNEED)` on every file of the set right before each \
         slice of each server, so each slice starts with none of the set cached. A cold \
         slice warms the cache as it goes (a 1 MiB set is 100 MB; at 256 connections much \
         of it is read in the slice's first moments), so the *from disk* column says how \
         cold it stayed: the bytes the server read from storage (`read_bytes` of \
         `/proc/PID/io`, every thread of the process, exited ones included) as a share of \
         the file bytes it sent. Server CPU: every thread of the process, exited ones \
         included (tokio's blocking pool, io_uring's workers), over every request. \
         Threads: the most the process had at once (`Threads:` of `/proc/PID/status` \
         every 10 ms). Ratios are taken within a round.\n",
        harness::slices::describe(report.slices),
        report.seed,
    );
    least_cpu(&mut out, report);
    targets(&mut out, report);
    verdicts(&mut out, report);
    super::tables::twins(&mut out, report);
    super::tables::against_nginx(&mut out, report);
    for workload in report.workloads() {
        super::tables::details(&mut out, report, &workload);
    }
    out
}

fn least_cpu(out: &mut String, report: &FilesReport) {
    let _ = writeln!(out, "## Which server serves files at the least CPU per request\n");
    let _ = writeln!(
        out,
        "Median over the rounds of each server's CPU µs per request (nginx, the outside \
         anchor, beside them, outside the ranking; the A/A control left out). *next ÷ \
         least* is the median of the two servers' per-round ratios (their range), not the \
         ratio of the two medians. Below 64 KiB io_uring_server and its `--no-sendfile` \
         row run the same code. *client-bound*: the client was at least {:.0}% busy in some \
         round of that server's, so its figure is the client's pace more than its own cost.\n",
        CLIENT_SATURATED * 100.0
    );
    let _ = writeln!(
        out,
        "| workload | least | next | next ÷ least (per round) | nginx |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|");
    for workload in report.workloads() {
        let mut ranked: Vec<(String, String, f64)> = compared(report)
            .into_iter()
            .filter_map(|(id, label)| Some((id.clone(), label, report.median_cpu(&workload, &id)?)))
            .collect();
        ranked.sort_by(|a, b| a.2.total_cmp(&b.2));
        let named = |i: usize| {
            ranked.get(i).map_or("n/a".into(), |(id, label, cpu)| {
                let bound = report.client_bound(&workload, (id, id)).is_some();
                let bound = if bound { ", client-bound" } else { "" };
                format!("{label} ({cpu:.1}{bound})")
            })
        };
        let gap = match (ranked.first(), ranked.get(1)) {
            (Some(least), Some(next)) => spread(&report.ratios(&workload, &next.0, &least.0)),
            _ => "n/a".into(),
        };
        let nginx = cpu_text(report.median_cpu(&workload, NGINX.id));
        let _ = writeln!(
            out,
            "| {} | {} | {} | {gap} | {nginx} |",
            super::label(&workload),
            named(0),
            named(1)
        );
    }
    out.push('\n');
}

/// "**met**: 0.52 (0.48-0.57, 4 rounds), the whole interval within 0.60", or why not.
pub fn target_word(ratios: &[f64], limit: f64) -> String {
    let word = |ratio: f64| if ratio <= limit { "**met**" } else { "**missed**" };
    match (ratios, Estimate::of(ratios)) {
        ([], _) => "not measured (the point was not in this run).".into(),
        ([one], _) => format!("{}: {one:.2} (one round: no interval)", word(*one)),
        (_, Some(e)) if e.high <= limit || e.low > limit => {
            format!(
                "{}: {e}, the whole interval on that side of {limit:.2}",
                word(e.ratio)
            )
        }
        (_, Some(e)) => format!(
            "{} on the estimate: {e}, but the interval reaches across {limit:.2}",
            word(e.ratio)
        ),
        (_, None) => "n/a (a ratio that is not a positive number)".into(),
    }
}

fn targets(out: &mut String, report: &FilesReport) {
    let subject = SUBJECT.label;
    let _ = writeln!(out, "## Targets for {subject}\n");
    let _ = writeln!(
        out,
        "{subject}'s CPU per request ÷ the baseline's, per round (geometric mean, 95% \
         interval); *met* when the estimate is within the target.\n"
    );
    let measured = |id: &str| report.contenders().into_iter().find(|(i, _)| i == id);
    let mut bound_targets = 0;
    for target in TARGETS {
        let on = super::label(target.workload);
        let bound = report.client_bound(target.workload, (SUBJECT.id, target.baseline));
        let line = match (measured(SUBJECT.id), measured(target.baseline), bound) {
            (Some(_), Some((_, label)), Some(busy)) => {
                bound_targets += 1;
                let ratios = report.ratios(target.workload, SUBJECT.id, target.baseline);
                format!(
                    "≤ {:.2}x {label} on {}: {}",
                    target.limit,
                    on,
                    client_bound::cell(&ratios, busy)
                )
            }
            (None, _, _) => format!(
                "≤ {:.2}x {} on {}: not judged, {subject} was not measured in this run.",
                target.limit, target.baseline, on
            ),
            (Some(_), Some((_, label)), None) => format!(
                "≤ {:.2}x {label} on {}: {}",
                target.limit,
                on,
                target_word(
                    &report.ratios(target.workload, SUBJECT.id, target.baseline),
                    target.limit
                )
            ),
            (Some(_), None, _) => format!(
                "≤ {:.2}x {} on {}: not judged, {} was not measured in this run.",
                target.limit, target.baseline, on, target.baseline
            ),
        };
        let _ = writeln!(out, "- {line}");
    }
    out.push('\n');
    if bound_targets > 0 {
        let _ = writeln!(out, "{}\n", bound_note(bound_targets));
    }
}

/// What a client-bound cell of this study means, under the table and the targets.
pub fn bound_note(cells: usize) -> String {
    format!(
        "{cells} of these read *client-bound*: in some round the client was at least {:.0}% \
         busy while one of the two servers ran, so that closed loop went at the client's \
         pace (a saturated closed loop's CPU per request is a capacity figure, and this one \
         the client's); the rule decides none of them, as the verdict decides no \
         client-bound cell. The verdict's hot-file rows (1 MiB and 4 KiB files, each at 16 \
         and 256 connections) measure them at a fixed rate the client holds, \
         the same for every server.",
        CLIENT_SATURATED * 100.0
    )
}

fn verdicts(out: &mut String, report: &FilesReport) {
    let subject = SUBJECT.label;
    let _ = writeln!(
        out,
        "## {subject} against tokio's engines and its own read path\n"
    );
    if !report.contenders().iter().any(|(id, _)| id == SUBJECT.id) {
        let _ = writeln!(out, "{subject} was not measured in this run.\n");
        return;
    }
    let _ = writeln!(
        out,
        "{}\n\n| workload | baseline | {subject} CPU/request ÷ baseline's, and the word |\n|---|---|---|",
        judge::METHOD
    );
    let mut controls = Vec::new();
    let mut bound_cells = 0;
    for workload in report.workloads() {
        for baseline in BASELINES {
            let ratios = report.ratios(&workload, SUBJECT.id, baseline.id);
            let cell = match report.client_bound(&workload, (SUBJECT.id, baseline.id)) {
                Some(busy) => {
                    bound_cells += 1;
                    client_bound::cell(&ratios, busy)
                }
                None => {
                    if baseline.id == AA_CONTROL.id {
                        controls.push(ratios.clone());
                    }
                    judge::cell(&ratios)
                }
            };
            let _ = writeln!(
                out,
                "| {} | {} | {cell} |",
                super::label(&workload),
                baseline.label
            );
        }
    }
    let _ = writeln!(out, "\n{}\n", judge::control_tally(&controls));
    if bound_cells > 0 {
        let _ = writeln!(out, "{}\n", bound_note(bound_cells));
    }
}

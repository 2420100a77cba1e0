//! `results/churn.md`, `results/churn.json`, `results/churn_cpu.svg` and the churn section
//! of BENCHMARKS.md: the churn study as tables, generated from its samples.

use std::fmt::Write as _;
use std::net::IpAddr;
use std::path::Path;

use crate::churn::reading;
use crate::churn::{
    BASELINES, ChurnPoint, ChurnReport, Drive, OPEN_LOOP_CLIENTS, PATTERNS, RATE_HELD, SUBJECT, pattern_name,
    plot,
};
use harness::judge;
use harness::output::{Doc, rewrite_benchmarks_section, write_json};
use harness::rounds::{self, median, spread};
use harness::servers::ANCHORS;
use harness::servers::nginx::ANCHOR_NOTE;
use harness::usage::{CLIENT_SATURATED, lateness_cause};

pub const BEGIN: &str = "<!-- BEGIN CHURN: scripts/churn.sh rewrites this section -->";
pub const END: &str = "<!-- END CHURN -->";

/// Writes the results files and the churn section of BENCHMARKS.md.
pub fn write_all(workspace: &Path, report: &ChurnReport) -> Result<(), String> {
    let results = workspace.join("results");
    std::fs::create_dir_all(&results).map_err(|e| e.to_string())?;
    write_json(&results.join("churn.json"), report)?;
    write_views(workspace, report)
}

/// What [`write_all`] writes but the JSON: the views, rendered again from a run already
/// written (read back, a figure's last digit may differ, so the JSON is left as it was).
pub fn write_views(workspace: &Path, report: &ChurnReport) -> Result<(), String> {
    let results = workspace.join("results");
    plot::draw(&results.join(plot::FILE), report)?;
    std::fs::write(results.join("churn.md"), render(report)).map_err(|e| e.to_string())?;
    rewrite_benchmarks_section(workspace, (BEGIN, END), &summary(report, Doc::Benchmarks))
}

pub fn render(report: &ChurnReport) -> String {
    let mut out = String::from("# Connection churn at several loads\n\n");
    out += &summary(report, Doc::Results);
    out.push('\n');
    if ANCHORS
        .iter()
        .any(|a| report.samples.iter().any(|s| s.contender == a.id))
    {
        let _ = writeln!(out, "{ANCHOR_NOTE}\n");
    }
    let _ = writeln!(out, "![server CPU per connection]({})\n", plot::FILE);
    for closes in PATTERNS {
        for open in [false, true] {
            let points: Vec<ChurnPoint> = report
                .points()
                .into_iter()
                .filter(|p| p.closes == closes && matches!(p.drive, Drive::Open { .. }) == open)
                .collect();
            if !points.is_empty() {
                detail(&mut out, report, &points);
            }
        }
    }
    out
}

/// How the study ran (for BENCHMARKS.md in one line), and io_uring_server against each
/// baseline at every point.
pub fn summary(report: &ChurnReport, doc: Doc) -> String {
    let prefix = doc.prefix();
    let mut out = String::new();
    if doc == Doc::Benchmarks {
        let _ = writeln!(
            out,
            "{}\n\nEach open-loop cell is {}'s server CPU per connection ÷ the baseline's, \
             lower is better: the geometric mean of the per-round ratios and the rule's word. \
             Intervals, rounds and details: [{prefix}churn.md]({prefix}churn.md).\n",
            rounds::short_provenance(
                "scripts/churn.sh",
                &report.machine,
                (report.rounds, report.seconds_per_point),
            ),
            SUBJECT.label,
        );
        return out + &ratio_table(report, true);
    }
    let provenance = rounds::provenance(
        "scripts/churn.sh",
        &report.machine,
        &report.pinning,
        (report.rounds, report.seconds_per_point),
    );
    let _ = writeln!(
        out,
        "{provenance}{} Each connection: connect, `GET /`, the answer read and checked, close. \
         *Server closes*: the request says `Connection: close` and the client reads to the \
         server's FIN; *client closes*: a keep-alive request, closed by the client once the \
         whole answer is in. Closed loop: each client opens its next connection when the last \
         is done. Open loop: a fixed rate of connections shared by {OPEN_LOOP_CLIENTS} clients, \
         each timed from when it was due (corrected for coordinated omission), after a \
         {} s warm-up before each measured window (each slice) kept out of the figures. Latency: from the connect to the answer's last \
         byte. Server CPU per connection: over the whole run; whole-machine CPU: every CPU over the same run, server, client and kernel together, less the idle machine, shown only at a load where no round read it below the server's own. Source addresses: {}. Errors: \
         none; loadgen counts failed connections by kind (connect, write, read, timeout, \
         status, body) and any one fails the study, so every point here completed with zero \
         of each. Details: [{prefix}churn.md]({prefix}churn.md).\n",
        harness::slices::describe(report.slices),
        report.open_loop_warmup_s,
        sources_text(&report.source_addrs),
    );
    let _ = writeln!(
        out,
        "Each open-loop cell is {}'s server CPU per connection ÷ the baseline's, lower is \
         better, per round. {}\n",
        SUBJECT.label,
        judge::METHOD,
    );
    out + &ratio_table(report, false)
}

/// io_uring_server ÷ each baseline at every fixed rate and each one's throughput in every
/// closed loop, then how those cells read and how often the A/A control tied; in `brief`,
/// each cost its ratio and word ([`judge::brief_cell`]).
fn ratio_table(report: &ChurnReport, brief: bool) -> String {
    let mut out = String::new();
    let header: Vec<String> = BASELINES.iter().map(|b| format!("÷ {}", b.label)).collect();
    let _ = writeln!(out, "| pattern | load | {} |", header.join(" | "));
    let _ = writeln!(out, "|---|---|{}", "---|".repeat(BASELINES.len()));
    for point in report.points() {
        let cells: Vec<String> = BASELINES
            .iter()
            .map(|b| report.reading(&point, b.id).cell(brief))
            .collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            pattern_name(point.closes),
            loop_and_load(&point),
            cells.join(" | ")
        );
    }
    let _ = writeln!(out, "\n{}\n", reading::note());
    let _ = writeln!(out, "{}", judge::control_tally(&report.control_cells()));
    out
}

/// "closed, 8 clients" or "open, 2,500 connections/s".
fn loop_and_load(point: &ChurnPoint) -> String {
    let kind = match point.drive {
        Drive::Closed { .. } => "closed",
        Drive::Open { .. } => "open",
    };
    format!("{kind}, {}", point.load_name())
}

/// "127.0.0.2-127.0.0.9 in turn" when every contender's connections used the same
/// addresses; else each contender's.
fn sources_text(sources: &[(String, Vec<IpAddr>)]) -> String {
    let text = |addrs: &[IpAddr]| match addrs {
        [] => "the kernel's choice".to_string(),
        [one] => one.to_string(),
        [first, .., last] => format!(
            "{first}-{last} in turn ({} addresses, the port picked at connect)",
            addrs.len()
        ),
    };
    let all_alike = sources.windows(2).all(|w| w[0].1 == w[1].1);
    match sources.first() {
        Some((_, addrs)) if all_alike => text(addrs),
        _ => sources
            .iter()
            .map(|(label, addrs)| format!("{label}: {}", text(addrs)))
            .collect::<Vec<_>>()
            .join("; "),
    }
}

/// The table of one pattern's closed or open loop: a row per load and contender.
fn detail(out: &mut String, report: &ChurnReport, points: &[ChurnPoint]) {
    let open = points.iter().any(|p| p.rate().is_some());
    let closes = pattern_name(points[0].closes);
    if open {
        let _ = writeln!(out, "## {closes}, open loop ({OPEN_LOOP_CLIENTS} clients)\n");
        let _ = writeln!(
            out,
            "Rate held: the rounds that completed at least {:.0}% of the offered rate. Send \
             lateness: how late connections started against the schedule. It is the client's \
             lag only where the client's CPU was saturated ({:.0}% busy or more: *client \
             saturated*); otherwise every client was still waiting on the server, so it is the \
             server's backlog (*server backlog*).\n",
            RATE_HELD * 100.0,
            CLIENT_SATURATED * 100.0
        );
    } else {
        let _ = writeln!(out, "## {closes}, closed loop\n");
    }
    let mut columns = vec!["load", "server", "connections/s (median)"];
    if open {
        columns.push("rate held");
    }
    columns.extend([
        "server CPU µs/connection: median (lowest-highest)",
        "whole-machine CPU µs/connection (median)",
        "p50 µs (median)",
        "p99 µs (median)",
    ]);
    columns.push(if open {
        "send lateness p99 µs (median; whose)"
    } else {
        "bottleneck (last round)"
    });
    let _ = writeln!(
        out,
        "| {} |\n|{}",
        columns.join(" | "),
        "---|".repeat(columns.len())
    );
    let mut unreliable = Vec::new();
    for point in points {
        let machine_reliable = report.machine_cpu_reliable(point);
        if !machine_reliable {
            unreliable.push(point.load_name());
        }
        for (id, label) in report.contenders() {
            let samples: Vec<_> = report.of(point, &id).collect();
            if samples.is_empty() {
                continue;
            }
            let mid = |figure: fn(&super::Sample) -> Option<f64>| {
                let values: Vec<f64> = samples.iter().filter_map(|s| figure(s)).collect();
                median(&values).map_or("n/a".into(), |v| format!("{v:.0}"))
            };
            let mut cells = vec![point.load_name(), label, mid(|s| Some(s.connections_per_sec))];
            if let Some(rate) = point.rate() {
                let held = samples
                    .iter()
                    .filter(|s| s.connections_per_sec >= rate * RATE_HELD)
                    .count();
                cells.push(format!("{held} of {}", samples.len()));
            }
            let cpu: Vec<f64> = samples
                .iter()
                .filter_map(|s| s.server_cpu_us_per_connection)
                .collect();
            cells.extend([
                spread(&cpu),
                match machine_reliable {
                    true => mid(|s| s.machine_cpu_us_per_connection),
                    false => UNRELIABLE.into(),
                },
                mid(|s| Some(s.p50_us as f64)),
                mid(|s| Some(s.p99_us as f64)),
            ]);
            cells.push(match open {
                true => {
                    let busy: Vec<f64> = samples.iter().map(|s| s.client_busy).collect();
                    let cause = lateness_cause(median(&busy).unwrap_or(0.0));
                    format!(
                        "{} ({cause})",
                        mid(|s| s.client_lateness_p99_us.map(|l| l as f64))
                    )
                }
                false => samples.last().map_or("n/a".into(), |s| s.bottleneck.clone()),
            });
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
    }
    out.push('\n');
    if !unreliable.is_empty() {
        let _ = writeln!(
            out,
            "Whole-machine CPU *{UNRELIABLE}* at {}: in some round it read less than the \
             server's own CPU, which cannot be, so the machine's counters missed work there; \
             no whole-machine figure of that load is shown or used.\n",
            unreliable.join(" and ")
        );
    }
}

/// What a whole-machine cell reads at a load where a round read it below the server's own.
const UNRELIABLE: &str = "not measured reliably";

#[cfg(test)]
#[path = "report_tests.rs"]
pub(crate) mod tests;

//! The answer block at the top of README.md and BENCHMARKS.md: what io_uring_server
//! saves or costs per workload family, in µs (or bytes) and in %, against tokio's two
//! engines, with the rule's word; what a ready io_uring runtime does instead; what the
//! saving is worth beside a handler's own cost; the run it comes from. Every figure is
//! read from the report: the % from a row's geometric-mean ratio, the amount from the
//! baseline's median figure times that ratio's distance from 1.

use std::path::Path;

use crate::workloads::judged::{self, Row};
use crate::workloads::runtimes::{BASELINE, READY};
use crate::workloads::{BASELINES, SUBJECT, Shape, Unit, WorkloadsReport};
use harness::format::group_thousands;
use harness::judge::{Estimate, Word};
use harness::output::{replace_between, write};
use harness::rounds::median;
use harness::servers::Contender;
use harness::workload::offered::base;

pub const BEGIN: &str = "<!-- BEGIN ANSWER: scripts/workloads.sh rewrites this section -->";
pub const END: &str = "<!-- END ANSWER -->";

/// What a service's own handler costs per request, µs: the saving is weighed against each.
pub const HANDLERS_US: [f64; 2] = [10.0, 100.0];

/// The documents that open with the answer.
const DOCUMENTS: [&str; 2] = ["README.md", "BENCHMARKS.md"];

/// Rewrites the answer block of every document in [`DOCUMENTS`].
pub fn write_blocks(workspace: &Path, report: &WorkloadsReport) -> Result<(), String> {
    let block = render(report);
    for name in DOCUMENTS {
        let path = workspace.join(name);
        let document = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let document =
            replace_between(&document, BEGIN, END, &block).map_err(|e| e.replace("BENCHMARKS.md", name))?;
        write(&path, &document)?;
    }
    Ok(())
}

/// The block: where the figures come from, one sentence per answer (where io_uring_server
/// is cheaper, the same, costlier; what a ready runtime keeps; what it is worth beside a
/// handler), a compact table of the rows that state a cost, the picture and a link.
pub fn render(report: &WorkloadsReport) -> String {
    let machine = &report.machine;
    let mut rows: Vec<Row> = judged::rows(report)
        .into_iter()
        .filter(|row| row.unit != Unit::RequestsPerSec)
        .collect();
    rows.sort_by_key(rank);
    let mut out = format!(
        "**The answer**, from `scripts/workloads.sh` at commit `{}` on {} ({}, {} logical \
         cores, the server on one core). {}\n\n",
        machine.git_commit,
        machine.date,
        machine.cpu_model,
        machine.logical_cores,
        in_words(report, &rows),
    );
    out.push_str(&table(report, &rows));
    out.push_str(
        "\n![verdict](results/verdict.svg)\n\nEach cell: what io_uring_server saves (−) or costs \
         (+) of the tokio engine's figure, in % and by the rule's word (95% interval over the rounds; *ties*: \
         within ±10%); in the picture, each ratio with its interval, the tie band shaded. \
         Every cell with its interval and rounds: [the verdict](BENCHMARKS.md#the-verdict-for-which-workload-is-io_uring-worth-it).\n",
    );
    out
}

/// The answer in sentences, from the rows against the codec engine (the same HTTP code,
/// so what differs is the I/O model).
fn in_words(report: &WorkloadsReport, rows: &[Row]) -> String {
    let by_word = |wanted: &[Word]| -> Vec<String> {
        rows.iter()
            .filter(|row| Estimate::of(&row.against[0]).is_some_and(|e| wanted.contains(&e.word)))
            .map(|row| format!("*{}*", name(row)))
            .collect()
    };
    let mut sentences = Vec::new();
    let list = |names: Vec<String>| names.join(", ");
    let (cheaper, same, costlier, open) = (
        by_word(&[Word::Wins]),
        by_word(&[Word::Ties]),
        by_word(&[Word::Loses]),
        by_word(&[Word::Inconclusive]),
    );
    for (names, clause) in [
        (cheaper, "costs less on"),
        (same, "costs the same within ±10% on"),
        (costlier, "costs more on"),
        (open, "is undecided on"),
    ] {
        if !names.is_empty() {
            sentences.push(format!("{clause} {}", list(names)));
        }
    }
    if sentences.is_empty() {
        sentences.push("has no row the rule could decide yet".into());
    }
    let mut text = format!(
        "Against tokio's codec engine (the same HTTP code on epoll), {} {}.",
        SUBJECT.label,
        sentences.join("; ")
    );
    if let Some(keeps) = keeps(report, rows) {
        text.push(' ');
        text.push_str(&keeps);
    }
    if let Some(worth) = handlers(report, rows) {
        text.push(' ');
        text.push_str(&worth);
    }
    text
}

/// "Of its N wins, a ready runtime in its place keeps: monoio a, compio b, tokio_uring c."
fn keeps(report: &WorkloadsReport, rows: &[Row]) -> Option<String> {
    let wins: Vec<&Row> = rows
        .iter()
        .filter(|row| Estimate::of(&row.against[0]).is_some_and(|e| e.word == Word::Wins))
        .collect();
    let kept: Vec<String> = READY
        .iter()
        .filter(|runtime| report.samples.iter().any(|s| s.contender == runtime.id))
        .map(|runtime| {
            let count = wins
                .iter()
                .filter(|row| {
                    Estimate::of(&row.ratios(report, (runtime.id, BASELINE.id)))
                        .is_some_and(|e| e.word == Word::Wins)
                })
                .count();
            format!("{} {count}", runtime.label.trim_end_matches("_server"))
        })
        .collect();
    (!wins.is_empty() && !kept.is_empty()).then(|| {
        format!(
            "A ready io_uring runtime running the same codec keeps, of those {} wins over the \
             codec engine: {}.",
            wins.len(),
            kept.join(", ")
        )
    })
}

/// The compact table: per row, io_uring_server against each baseline, then each ready
/// runtime's ratio to the codec engine.
fn table(report: &WorkloadsReport, rows: &[Row]) -> String {
    let ready: Vec<&Contender> = READY
        .iter()
        .filter(|runtime| report.samples.iter().any(|s| s.contender == runtime.id))
        .collect();
    let mut head = String::from("| workload |");
    for baseline in BASELINES {
        head.push_str(&format!(" vs tokio {} |", short(&baseline)));
    }
    if !ready.is_empty() {
        head.push_str(&format!(" ready runtimes vs tokio {} |", short(&BASELINE)));
    }
    let columns = head.matches('|').count() - 1;
    let mut out = format!("{head}\n|{}\n", "---|".repeat(columns));
    for row in rows {
        let mut line = format!("| {} |", name(row));
        for (baseline, ratios) in BASELINES.iter().zip(&row.against) {
            let cell = amount(report, row, baseline, ratios).unwrap_or_else(|| "n/a".into());
            line.push_str(&format!(" {cell} |"));
        }
        if !ready.is_empty() {
            let cells: Vec<String> = ready
                .iter()
                .filter_map(|runtime| {
                    let estimate = Estimate::of(&row.ratios(report, (runtime.id, BASELINE.id)))?;
                    let name = runtime.label.trim_end_matches("_server");
                    Some(format!("{name} {}", signed_percent(&estimate)))
                })
                .collect();
            line.push_str(&format!(" {} |", cells.join(", ")));
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Where a row stands in the answer: the costs a service pays on every request first
/// (kept-alive requests, bodies, churn), then one connection, responses, pipelining, memory.
fn rank(row: &Row) -> usize {
    let shape = match row.shape() {
        Some(Shape::Offered { of, .. }) => base(of).shape,
        Some(shape) => shape,
        None => return 7,
    };
    match shape {
        Shape::KeepAlive { .. } => 0,
        Shape::Echo { .. } => 1,
        Shape::Churn { .. } => 2,
        Shape::OneConnection => 3,
        Shape::Response { .. } => 4,
        Shape::Pipelined { .. } | Shape::SmallService { .. } => 5,
        Shape::Idle { .. } | Shape::Offered { .. } => 6,
    }
}

/// A row as a reader names it: "churn, server closes", "one connection (server CPU)".
fn name(row: &Row) -> String {
    match row.shape() {
        Some(Shape::OneConnection) => format!("{} ({})", row.workload, row.short_measure()),
        None => "idle connections (memory)".into(),
        Some(_) => plain_name(row).to_string(),
    }
}

/// A row's workload without its offered rate: "churn, server closes".
fn plain_name(row: &Row) -> &str {
    match row.shape() {
        Some(Shape::Offered { of, .. }) => of,
        _ => &row.workload,
    }
}

/// "codec" for "tokio_server (codec)": the engine's name inside its label.
fn short(contender: &Contender) -> &str {
    contender
        .label
        .split_once('(')
        .and_then(|(_, rest)| rest.strip_suffix(')'))
        .unwrap_or(contender.label)
}

/// "−2.0 of 10.0 µs (−20%, *wins* by ≥10%)": the baseline's median figure and what
/// io_uring_server saves (−) or costs (+) of it, from the ratio.
fn amount(report: &WorkloadsReport, row: &Row, baseline: &Contender, ratios: &[f64]) -> Option<String> {
    let estimate = Estimate::of(ratios)?;
    let figure = median(&row.figures(report, baseline.id))?;
    let change = figure * (estimate.ratio - 1.0);
    let sign = if change <= 0.0 { "−" } else { "+" };
    let (change, figure, unit) = match row.unit {
        Unit::BytesPerIdleConnection => (group_thousands(change.abs()), group_thousands(figure), "bytes"),
        _ => (micros(change.abs()), micros(figure), "µs"),
    };
    Some(format!(
        "{sign}{change} of {figure} {unit} ({}, {})",
        signed_percent(&estimate),
        word(&estimate)
    ))
}

/// "−20%", "+5%": the ratio's distance from 1.
fn signed_percent(estimate: &Estimate) -> String {
    let change = (estimate.ratio - 1.0) * 100.0;
    let sign = if change <= 0.0 { "−" } else { "+" };
    format!("{sign}{:.0}%", change.abs())
}

/// "*wins* by ≥10%": the rule's word as the answer shows it.
fn word(estimate: &Estimate) -> String {
    let by = if estimate.beyond_floor { " by ≥10%" } else { "" };
    format!("*{}*{by}", estimate.word.as_str())
}

/// µs with one decimal, two below 1.
fn micros(value: f64) -> String {
    if value < 1.0 {
        format!("{value:.2}")
    } else {
        format!("{value:.1}")
    }
}

/// What the CPU io_uring_server saves against the codec engine is worth to a service
/// whose handler spends [`HANDLERS_US`] per request: the saving as a share of the codec
/// engine's cost plus the handler's, over the CPU rows it wins.
fn handlers(report: &WorkloadsReport, rows: &[Row]) -> Option<String> {
    let shares: Vec<(f64, f64)> = rows
        .iter()
        .filter(|row| matches!(row.unit, Unit::CpuPerRequest | Unit::CpuPerConnection))
        .filter_map(|row| {
            let estimate = Estimate::of(&row.against[0])?;
            if estimate.word != Word::Wins {
                return None;
            }
            let figure = median(&row.figures(report, BASELINE.id))?;
            let saved = figure * (1.0 - estimate.ratio);
            let [first, second] = HANDLERS_US.map(|handler| saved / (figure + handler) * 100.0);
            Some((first, second))
        })
        .collect();
    let range = |values: Vec<f64>| {
        let low = values.iter().copied().fold(f64::INFINITY, f64::min);
        let high = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if (high - low).abs() < 0.05 {
            format!("{low:.1}%")
        } else {
            format!("{low:.1}-{high:.1}%")
        }
    };
    let [first, second] = HANDLERS_US;
    (!shares.is_empty()).then(|| {
        format!(
            "Where it wins on CPU, the saving is {} of all the CPU a request takes in a service \
             whose own handler costs {first:.0} µs per request, {} where it costs {second:.0} µs.",
            range(shares.iter().map(|s| s.0).collect()),
            range(shares.iter().map(|s| s.1).collect()),
        )
    })
}

#[cfg(test)]
#[path = "answer_tests.rs"]
mod tests;

//! README's first screen: what a reader who stops after about 40 lines takes away. A few
//! generated sentences with units (where io_uring_server saves against the cheapest tokio
//! configuration of each row, and how much; where it does not; what the I/O model alone
//! saves; what a ready io_uring runtime keeps), the forest plot, and a compact table whose
//! every row names its measure. Every figure is the full verdict's (BENCHMARKS.md), read
//! from the same rows ([`super::judged`]); the terms link to BENCHMARKS.md's glossary, so
//! no sentence needs another section to be understood.

use std::path::Path;

use crate::workloads::answer::{Reading, rank, reading};
use crate::workloads::answer_table::best;
use crate::workloads::judged::{self, Row};
use crate::workloads::runtimes::{BASELINE, READY};
use crate::workloads::worth::{amount, micros, signed_change, signed_percent};
use crate::workloads::{SUBJECT, Unit, WorkloadsReport};
use harness::format::group_thousands;
use harness::judge::{Estimate, Word};
use harness::output::{replace_between, write};
use harness::rounds::median;

pub const BEGIN: &str = "<!-- BEGIN FIRST SCREEN: scripts/workloads.sh rewrites this section -->";
pub const END: &str = "<!-- END FIRST SCREEN -->";

/// Where the terms are defined, once.
const GLOSSARY: &str = "BENCHMARKS.md#glossary";

/// The full verdict, every cell with its interval, rounds, rate and load share.
const VERDICT: &str = "BENCHMARKS.md#the-verdict-for-which-workload-is-io_uring-worth-it";

/// Rewrites README.md's first screen.
pub fn write_block(workspace: &Path, report: &WorkloadsReport) -> Result<(), String> {
    let path = workspace.join("README.md");
    let document = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let document = replace_between(&document, BEGIN, END, &render(report))
        .map_err(|e| e.replace("BENCHMARKS.md", "README.md"))?;
    write(&path, &document)
}

/// The block: provenance, the bottom line in a few sentences, the plot, the table.
pub fn render(report: &WorkloadsReport) -> String {
    let mut rows: Vec<Row> = judged::rows(report)
        .into_iter()
        .filter(|row| row.unit != Unit::RequestsPerSec)
        .collect();
    rows.sort_by_key(rank);
    let machine = &report.machine;
    let lines: Vec<String> = [
        saves(report, &rows),
        elsewhere(report, &rows),
        io_model(report, &rows),
        runtimes(report, &rows),
    ]
    .into_iter()
    .flatten()
    .collect();
    format!(
        "Measured by `scripts/workloads.sh` on {} at commit `{}` ({}, the server on one core, \
         the client on another).\n\n{}\n\n![verdict](results/verdict.svg)\n\n{}\nTerms \
         (*cheapest tokio configuration*, *wins*, *ties*, *rounds*, *client-bound*, *ready \
         runtime*): [glossary]({GLOSSARY}). Every row with its interval, rounds, offered rate \
         and load share: [the full verdict]({VERDICT}).\n",
        machine.date,
        machine.git_commit,
        machine.cpu_model,
        lines.join("\n"),
        table(report, &rows),
    )
}

/// What io_uring_server saves or costs of `baseline`'s figure on `row`, with the unit:
/// "3.5 of 14.5 µs of server CPU per request (−24%)".
fn saving(report: &WorkloadsReport, row: &Row, baseline: &str, ratios: &[f64]) -> Option<String> {
    let estimate = Estimate::of(ratios)?;
    let figure = median(&row.figures(report, baseline))?;
    let change = (figure * (estimate.ratio - 1.0)).abs();
    let (change, figure) = match row.unit {
        Unit::BytesPerIdleConnection => (group_thousands(change), group_thousands(figure)),
        _ => (micros(change), micros(figure)),
    };
    Some(format!(
        "{change} of {figure} {} ({})",
        unit_phrase(row.unit),
        signed_percent(&estimate)
    ))
}

/// "µs of server CPU per request": what a row's figures count.
fn unit_phrase(unit: Unit) -> &'static str {
    match unit {
        Unit::CpuPerRequest => "µs of server CPU per request",
        Unit::CpuPerConnection => "µs of server CPU per connection",
        Unit::LatencyP50 => "µs of round trip",
        Unit::LatencyP99 => "µs of p99 latency",
        Unit::BytesPerIdleConnection => "bytes per idle connection",
        Unit::RequestsPerSec => "requests/s",
    }
}

/// The row's reading against its cheapest tokio configuration.
fn best_reading(report: &WorkloadsReport, row: &Row) -> Reading {
    reading(report, row, row.best.contender.map(|c| (c, row.best.ratios.clone())))
}

/// "**Where it saves.** ...": each row it wins against the cheapest tokio configuration,
/// with what it saves.
fn saves(report: &WorkloadsReport, rows: &[Row]) -> Option<String> {
    let wins: Vec<String> = rows
        .iter()
        .filter(|row| best_reading(report, row) == Reading::Rule(Word::Wins))
        .filter_map(|row| {
            let chosen = row.best.contender?;
            let saved = saving(report, row, chosen.id, &row.best.ratios)?;
            Some(format!("*{}*, {saved}", row.name()))
        })
        .collect();
    let lead = format!(
        "- **Where it saves.** Against the cheapest tokio configuration of each row (whichever \
         of tokio's engines cost least there), {} spends less on {} of {} rows",
        SUBJECT.label,
        wins.len(),
        rows.len()
    );
    Some(match wins.is_empty() {
        true => format!("{lead}."),
        false => format!("{lead}: {}.", wins.join("; ")),
    })
}

/// "**Where it does not.** ...": the rows it ties, loses, or the rule left undecided or
/// unjudged, by name.
fn elsewhere(report: &WorkloadsReport, rows: &[Row]) -> Option<String> {
    let named = |wanted: Reading| -> Vec<String> {
        rows.iter()
            .filter(|row| best_reading(report, row) == wanted)
            .map(|row| format!("*{}*", row.name()))
            .collect()
    };
    let clauses: Vec<String> = [
        (Reading::Rule(Word::Ties), "the same within ±10% on"),
        (Reading::Rule(Word::Loses), "more on"),
        (Reading::Rule(Word::Inconclusive), "too close to call on"),
        (Reading::ClientBound, "not judged (the client was the bottleneck) on"),
        (Reading::FellBehind, "not judged (a server fell behind the offered rate) on"),
        (Reading::NotMeasured, "not measured every round on"),
    ]
    .into_iter()
    .filter_map(|(wanted, clause)| {
        let names = named(wanted);
        (!names.is_empty()).then(|| format!("{clause} {}", names.join(", ")))
    })
    .collect();
    (!clauses.is_empty()).then(|| {
        format!("- **Where it does not.** It costs {}.", clauses.join("; "))
    })
}

/// "**The I/O model alone.** ...": against the codec engine (the same HTTP code on
/// epoll), how many rows it wins and by how much.
fn io_model(report: &WorkloadsReport, rows: &[Row]) -> Option<String> {
    let percents: Vec<f64> = rows
        .iter()
        .filter(|row| reading(report, row, Some((BASELINE, row.against[0].clone()))) == Reading::Rule(Word::Wins))
        .filter_map(|row| Estimate::of(&row.against[0]))
        .map(|estimate| (1.0 - estimate.ratio) * 100.0)
        .collect();
    let (low, high) = range(&percents)?;
    Some(format!(
        "- **The I/O model alone.** Against tokio's codec engine, which runs the same HTTP code \
         on epoll, it wins on {} of {} rows, saving {low:.0}-{high:.0}% of the codec engine's \
         figure; where part of such a win is a technique a tokio server can use too (sendfile, \
         one shared read buffer), the full verdict says how much.",
        percents.len(),
        rows.len(),
    ))
}

/// "**Ready runtimes.** ...": each ready io_uring runtime's median row against the codec
/// engine, and how many of the rows io_uring_server wins there it wins too.
fn runtimes(report: &WorkloadsReport, rows: &[Row]) -> Option<String> {
    let codec_wins: Vec<&Row> = rows
        .iter()
        .filter(|row| reading(report, row, Some((BASELINE, row.against[0].clone()))) == Reading::Rule(Word::Wins))
        .collect();
    let each: Vec<String> = READY
        .iter()
        .filter(|runtime| report.samples.iter().any(|s| s.contender == runtime.id))
        .filter_map(|runtime| {
            let pair = (runtime.id, BASELINE.id);
            let unbound = |row: &&Row| row.client_bound(report, pair).is_none();
            let ratios: Vec<f64> = rows
                .iter()
                .filter(unbound)
                .filter_map(|row| Estimate::of(&row.ratios(report, pair)))
                .map(|estimate| estimate.ratio)
                .collect();
            let typical = median(&ratios)?;
            let also: Vec<Estimate> = codec_wins
                .iter()
                .filter(|row| row.client_bound(report, pair).is_none())
                .filter_map(|row| Estimate::of(&row.ratios(report, pair)))
                .collect();
            let won = also.iter().filter(|e| e.word == Word::Wins).count();
            let name = runtime.label.trim_end_matches("_server");
            Some(format!(
                "{name} {} on its median row, and it wins {won} of the {} rows io_uring_server \
                 wins there",
                signed_change(typical),
                also.len()
            ))
        })
        .collect();
    (!each.is_empty()).then(|| {
        format!(
            "- **Ready runtimes.** tokio-uring, monoio and compio, running the same HTTP code in \
             io_uring_server's place, cost against tokio's codec engine: {}.",
            each.join("; ")
        )
    })
}

/// The least and the most of `values`; `None` where there are none.
fn range(values: &[f64]) -> Option<(f64, f64)> {
    let low = values.iter().copied().reduce(f64::min)?;
    let high = values.iter().copied().reduce(f64::max)?;
    Some((low, high))
}

/// One line per row: its measure, against the cheapest tokio configuration (named) and
/// against the codec engine.
fn table(report: &WorkloadsReport, rows: &[Row]) -> String {
    let mut out = String::from(
        "| workload | measure | vs the cheapest tokio configuration | vs tokio's codec engine: the I/O model alone |\n|---|---|---|---|\n",
    );
    for row in rows {
        let codec = amount(report, row, &BASELINE, &row.against[0])
            .or_else(|| row.fell_behind(report, &BASELINE))
            .unwrap_or_else(|| "n/a".into());
        out.push_str(&format!(
            "| {} | {} | {} | {codec} |\n",
            row.name(),
            row.unit.describe(),
            best(report, row),
        ));
    }
    out
}

#[cfg(test)]
#[path = "first_screen_tests.rs"]
mod tests;

//! The answer's further lines on the codec engine's rows: what a ready io_uring runtime
//! keeps of io_uring_server's wins ([`keeps`]), and the measures that are not rows, with
//! the rows a run did not measure ([`left_out`]).

use crate::workloads::judged::{Row, Source};
use crate::workloads::origin::wins_over_codec;
use crate::workloads::runtimes::{BASELINE, READY};
use crate::workloads::{Shape, WorkloadsReport};
use harness::judge::{Estimate, Word};
use harness::servers::Contender;
use harness::workload::catalogue::by_name;
use harness::workload::scope;

/// "Of its N wins ..., a ready io_uring runtime ... wins only some: monoio a of N,
/// compio b of N, tokio_uring c of the m it ran" (a runtime without TLS runs none of the
/// TLS rows).
pub fn keeps(report: &WorkloadsReport, rows: &[Row]) -> Option<String> {
    let wins: Vec<&Row> = rows.iter().filter(|row| wins_over_codec(report, row)).collect();
    let kept: Vec<(String, usize)> = READY
        .iter()
        .filter(|runtime| report.samples.iter().any(|s| s.contender == runtime.id))
        .map(|runtime| {
            let pair = (runtime.id, BASELINE.id);
            let ran: Vec<Vec<f64>> = wins
                .iter()
                .filter(|row| row.client_bound(report).is_none())
                .map(|row| row.ratios(report, pair))
                .filter(|ratios| !ratios.is_empty())
                .collect();
            let count = ran
                .iter()
                .filter(|ratios| Estimate::of(ratios).is_some_and(|e| e.word == Word::Wins))
                .count();
            let name = runtime.label.trim_end_matches("_server");
            let said = match ran.len() == wins.len() {
                true => format!("{name} {count} of {}", ran.len()),
                false => format!("{name} {count} of the {} it ran", ran.len()),
            };
            (said, count)
        })
        .collect();
    let none = kept.iter().all(|(_, count)| *count == 0);
    let all = kept.iter().all(|(_, count)| *count == wins.len());
    let kept: Vec<String> = kept.into_iter().map(|(said, _)| said).collect();
    let tally: Vec<String> = against_best(report, rows)
        .into_iter()
        .map(|(_, tally)| tally)
        .collect();
    (!wins.is_empty() && !kept.is_empty()).then(|| {
        format!(
            "Of its {} over the codec engine, a ready io_uring runtime running the same codec \
             in io_uring_server's place wins {}: {}. Against each row's cheapest tokio \
             configuration: {}.",
            plural(wins.len(), "win"),
            match (none, all) {
                (true, _) => "none",
                (_, true) => "all of them",
                _ => "only some",
            },
            kept.join(", "),
            tally.join("; ")
        )
    })
}

/// "tokio_uring wins on 2, ties on 1 and loses on 12 of the 15 rows it ran": each ready
/// runtime that ran, against each row's cheapest tokio configuration, the rule deciding
/// (a client-bound cell left out).
pub fn against_best(report: &WorkloadsReport, rows: &[Row]) -> Vec<(Contender, String)> {
    READY
        .iter()
        .filter(|runtime| report.samples.iter().any(|s| s.contender == runtime.id))
        .map(|runtime| {
            // The rows the runtime's tally under the runtimes table counts: every row but
            // a client-bound one and one over TLS, which a runtime without it cannot run.
            let words: Vec<Option<Word>> = rows
                .iter()
                .filter(|row| row.client_bound(report).is_none())
                .filter(|row| runtime.speaks_tls() || !over_tls(row))
                .map(|row| {
                    let pair = (runtime.id, row.best.contender?.id);
                    Estimate::of(&row.ratios(report, pair)).map(|e| e.word)
                })
                .collect();
            let count = |wanted: Word| words.iter().filter(|w| **w == Some(wanted)).count();
            let tally = format!(
                "{} wins on {}, ties on {}, loses on {} and is undecided or not measured on {} \
                 of {} rows",
                runtime.label.trim_end_matches("_server"),
                count(Word::Wins),
                count(Word::Ties),
                count(Word::Loses),
                words
                    .iter()
                    .filter(|w| !matches!(w, Some(Word::Wins | Word::Ties | Word::Loses)))
                    .count(),
                words.len(),
            );
            (*runtime, tally)
        })
        .collect()
}

/// " With the row's technique in the codec engine too (...), *1 MiB files, 16
/// connections* reads *ties* against tokio_server (codec, sendfile).": the rows whose word
/// against the same code with the same technique ([`super::origin::io_model_baseline`])
/// differs from the codec column's; empty where none does.
pub fn same_technique(report: &WorkloadsReport, rows: &[Row]) -> String {
    let differ: Vec<String> = rows
        .iter()
        .filter(|row| row.client_bound(report).is_none())
        .filter_map(|row| {
            let (control, ratios) = super::origin::io_model_baseline(report, row);
            let word = Estimate::of(&ratios)?.word;
            let codec = Estimate::of(&row.against[0]).map(|e| e.word);
            (control != BASELINE && codec != Some(word)).then(|| {
                format!(
                    "*{}* reads *{}* against {}",
                    row.name(),
                    word.as_str(),
                    control.label
                )
            })
        })
        .collect();
    match differ.is_empty() {
        true => String::new(),
        false => format!(
            " With the row's technique in the codec engine too (sendfile on large files, \
             tokio's io_uring file path on small ones, one shared read buffer on idle \
             connections): {}.",
            differ.join("; ")
        ),
    }
}

/// Whether `row` runs over TLS.
fn over_tls(row: &Row) -> bool {
    match row.source {
        Source::Values(w) | Source::Also(w) => w.tls().is_some(),
        Source::IdleFit => false,
    }
}

/// "1 win", "6 wins".
fn plural(count: usize, noun: &str) -> String {
    match count {
        1 => format!("1 {noun}"),
        _ => format!("{count} {noun}s"),
    }
}

/// The measures the verdict leaves out on purpose, each with its reason, and the rows the
/// report's run did not measure ([`harness::workload::scope`]); `None` for a report that
/// says nothing of what it judged.
pub fn left_out(report: &WorkloadsReport) -> Option<String> {
    report.judged.as_ref()?;
    Some(scope::left_out())
}

/// "was not measured in this run on *4 KiB files*, ... (verdict rows added since it)": the
/// answer's clause for the verdict rows the report's run lacks; `None` where it has them all.
pub fn not_measured(report: &WorkloadsReport) -> Option<String> {
    let names: Vec<String> = harness::workload::verdict::not_measured(report)
        .into_iter()
        .filter_map(by_name)
        .map(|w| match w.shape {
            Shape::Offered { of, .. } => format!("*{of}*"),
            _ => format!("*{}*", w.name),
        })
        .collect();
    (!names.is_empty()).then(|| {
        format!(
            "was not measured in this run on {} (verdict rows added since it; \
             `scripts/workloads.sh` measures them)",
            names.join(", ")
        )
    })
}

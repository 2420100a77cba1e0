//! The answer's further lines on the codec engine's rows: what a ready io_uring runtime
//! keeps of io_uring_server's wins ([`keeps`]), and the requests/s rows the rule decided
//! ([`requests_per_sec`]).

use crate::workloads::judged::{self, Row, short};
use crate::workloads::origin::wins_over_codec;
use crate::workloads::runtimes::{BASELINE, READY};
use crate::workloads::worth::word;
use crate::workloads::{BASELINES, SUBJECT, Unit, WorkloadsReport};
use harness::judge::{Estimate, Word};
use harness::servers::Contender;

/// "Of its N wins ..., a ready io_uring runtime ... keeps none: it also wins monoio a of N,
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
                .filter(|row| row.client_bound(report, pair).is_none())
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
    let kept: Vec<String> = kept.into_iter().map(|(said, _)| said).collect();
    (!wins.is_empty() && !kept.is_empty()).then(|| {
        format!(
            "Of its {} over the codec engine, a ready io_uring runtime running the same codec \
             in io_uring_server's place keeps {} (rows it also wins: {}).",
            plural(wins.len(), "win"),
            if none { "none" } else { "part of them" },
            kept.join(", ")
        )
    })
}

/// "1 win", "6 wins".
fn plural(count: usize, noun: &str) -> String {
    match count {
        1 => format!("1 {noun}"),
        _ => format!("{count} {noun}s"),
    }
}

/// The requests/s rows (a few busy connections) in words: each cell the rule decided
/// against a baseline ("serves 21% fewer requests/s than tokio hyper on *4 connections*,
/// *loses* by ≥10%"), and how many the client bound, which are not judged.
pub fn requests_per_sec(report: &WorkloadsReport) -> Option<String> {
    let mut decided = Vec::new();
    let mut bound = 0;
    let rows = judged::rows(report);
    for row in rows.iter().filter(|row| row.unit == Unit::RequestsPerSec) {
        // Each baseline, and the cheapest tokio configuration where it is neither.
        let mut pairs: Vec<(Contender, &Vec<f64>)> = BASELINES.into_iter().zip(&row.against).collect();
        if let Some(best) = row.best.contender.filter(|c| !BASELINES.contains(c)) {
            pairs.push((best, &row.best.ratios));
        }
        for (baseline, ratios) in pairs {
            if row.client_bound(report, (SUBJECT.id, baseline.id)).is_some() {
                bound += 1;
                continue;
            }
            let Some(estimate) = Estimate::of(ratios) else {
                continue;
            };
            // The cell is the baseline's requests/s ÷ io_uring_server's.
            let change = (1.0 - 1.0 / estimate.ratio) * 100.0;
            let (more, how) = if change > 0.0 {
                ("fewer", change)
            } else {
                ("more", -change)
            };
            if matches!(estimate.word, Word::Wins | Word::Loses) {
                decided.push(format!(
                    "{how:.0}% {more} than tokio {} on *{}* ({})",
                    short(&baseline),
                    row.workload,
                    word(&estimate)
                ));
            }
        }
    }
    if decided.is_empty() && bound == 0 {
        return None;
    }
    let decided = match decided.is_empty() {
        true => "the rule decided none".to_string(),
        false => format!("{} serves {}", SUBJECT.label, decided.join("; ")),
    };
    let bound = match bound {
        0 => String::new(),
        n => format!("; {n} cells were client-bound and are not judged"),
    };
    Some(format!(
        "On requests/s with a few busy connections, {decided}{bound}."
    ))
}

//! The first screen's line on the rows beyond the verdict (larger and chunked echoes,
//! files of 64 KiB and more, cold files: BENCHMARKS.md's details): how many the rule reads
//! *wins* against the cheapest tokio configuration, and each it reads *loses*, by name and
//! by how much, so that "Where it does not" is not read as the study's whole list of losses.

use harness::judge::{Estimate, Word};
use harness::workload::further;

use crate::workloads::WorkloadsReport;
use crate::workloads::further_rows::theirs;

/// The line, a bullet; empty where the run measured none of those rows or lost on none.
pub fn line(report: &WorkloadsReport) -> String {
    let rows = [further::echo_rows(), further::file_rows()].concat();
    let Some(theirs) = theirs(report, &rows) else {
        return String::new();
    };
    let measured = theirs.workloads();
    let judged: Vec<(String, Estimate)> = rows
        .iter()
        .filter(|w| measured.iter().any(|m| m == w.name))
        .filter_map(|w| {
            let best = theirs.best_tokio(w, w.unit());
            let name = w.name.strip_suffix(" at a fixed rate").unwrap_or(w.name);
            Some((name.to_string(), Estimate::of(&best.ratios)?))
        })
        .collect();
    let count = |word: Word| judged.iter().filter(|(_, e)| e.word == word).count();
    let losses: Vec<String> = judged
        .iter()
        .filter(|(_, e)| e.word == Word::Loses)
        .map(|(name, e)| format!("{name} (+{:.0}%)", (e.ratio - 1.0) * 100.0))
        .collect();
    if losses.is_empty() {
        return String::new();
    }
    let head = format!(
        "- **Beyond the verdict.** Of {} rows BENCHMARKS.md adds, io_uring_server *wins* on \
         {} and costs more on {}",
        judged.len(),
        count(Word::Wins),
        losses.len()
    );
    let named = format!("{head}: {}.", losses.join("; "));
    match named.chars().count() < 300 {
        true => named,
        false => format!("{head}, named there."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workloads::{SUBJECT, Sample};
    use harness::servers::{TOKIO_CODEC, TOKIO_HYPER};

    /// io_uring_server at `subject` µs per request on the first echo row beyond the verdict,
    /// the codec engine at 10 and hyper at 20, over 4 rounds.
    fn report(subject: f64) -> (WorkloadsReport, String) {
        let row = further::echo_rows()[0];
        let mut samples = Vec::new();
        for round in 0..4 {
            let wobble = 1.0 + round as f64 * 0.01;
            for (id, value) in [
                (SUBJECT.id, subject),
                (TOKIO_CODEC.id, 10.0),
                (TOKIO_HYPER.id, 20.0),
            ] {
                samples.push(Sample {
                    label: id.into(),
                    ..Sample::example(row.name, id, round, value * wobble)
                });
            }
        }
        let name = row.name.strip_suffix(" at a fixed rate").unwrap_or(row.name);
        (WorkloadsReport::over(samples), name.to_string())
    }

    #[test]
    fn a_loss_beyond_the_verdict_is_named_with_its_size_against_the_cheapest() {
        let (costs, name) = report(12.0);
        let said = line(&costs);
        assert!(
            said.ends_with(&format!("*wins* on 0 and costs more on 1: {name} (+20%).")),
            "{said}"
        );
        let (saves, _) = report(8.0);
        assert_eq!(line(&saves), "", "no loss, no line");
    }
}

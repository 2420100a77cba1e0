//! Which io_uring runtime (measured in the one run of `scripts/workloads.sh`): the hand-rolled loop
//! (io_uring_server) beside the ready io_uring runtimes a user would pick instead
//! (tokio-uring, monoio, compio), each running the same codec, each ÷ tokio_server's codec
//! engine at every workload the verdict judges. Measured like the workloads (interleaved
//! rounds, fresh servers, slices) and judged by the same rule, with the A/A control; it
//! answers how much of io_uring's difference a ready runtime keeps.

use std::fmt::Write as _;

use crate::workloads::{Shape, Unit, WORKLOADS, Workload, WorkloadsReport, judged_contenders};
use harness::judge::{self, Word};
use harness::rounds;
use harness::servers::{AA_CONTROL, COMPIO, Contender, IO_URING, MONOIO, TOKIO_CODEC, TOKIO_URING};

/// The io_uring engines compared, the hand-rolled loop first.
pub const RUNTIMES: [Contender; 4] = [IO_URING, TOKIO_URING, MONOIO, COMPIO];

/// What every runtime is divided by: tokio's epoll engine running the same codec.
pub const BASELINE: Contender = TOKIO_CODEC;

pub const BEGIN: &str = "<!-- BEGIN RUNTIMES: scripts/workloads.sh rewrites this section -->";
pub const END: &str = "<!-- END RUNTIMES -->";

/// Who runs: the baseline, the runtimes and the A/A control (io_uring_server again):
/// six, so six rounds are one whole cycle of the balanced order.
pub fn contenders() -> Vec<Contender> {
    [vec![BASELINE], RUNTIMES.to_vec(), vec![AA_CONTROL]].concat()
}

/// The workloads the verdict judges, each run by [`contenders`] every round.
pub fn lineup() -> Vec<(Workload, Vec<Contender>)> {
    WORKLOADS
        .into_iter()
        .filter(|w| !judged_contenders(w).is_empty())
        .map(|w| (w, contenders()))
        .collect()
}

/// The ready runtimes: what a user picks instead of hand-rolling.
pub const READY: [Contender; 3] = [TOKIO_URING, MONOIO, COMPIO];

/// Two tables: each io_uring engine ÷ the baseline (with the A/A control ÷
/// io_uring_server), then each ready runtime ÷ the hand-rolled loop; each cell judged
/// round by round, a sentence under each.
pub fn render(report: &WorkloadsReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} Every server parses and answers with http_core's codec; what differs is who drives \
         the sockets. Each cell is the runtime's figure ÷ {}'s in the same round, lower is \
         better (for requests/s the baseline's ÷ the runtime's, so below 1 favours the runtime \
         there too). The last column is the A/A control (a second io_uring_server process ÷ \
         the first): it must read *ties*. {}\n",
        report.provenance("scripts/workloads.sh"),
        BASELINE.label,
        judge::METHOD,
    );
    let against_tokio = rows(report, &RUNTIMES, BASELINE);
    table(&mut out, &RUNTIMES, &against_tokio, true);
    out.push_str(&summary(&against_tokio));
    let _ = writeln!(
        out,
        "\nWhere hand-rolling pays: each ready runtime ÷ {} in the same rounds (above 1: the \
         hand-rolled loop is cheaper, or faster for requests/s).\n",
        IO_URING.label
    );
    let against_loop = rows(report, &READY, IO_URING);
    table(&mut out, &READY, &against_loop, false);
    out.push_str(&keeps(&against_tokio));
    out.push_str(&harness::workload::verdict::offered_rates(report));
    out
}

/// One workload's row: each subject's ratios and the A/A control's.
struct Row {
    workload: String,
    measure: String,
    cells: Vec<Vec<f64>>,
    aa: Vec<f64>,
}

/// Every row of the table of `subjects` ÷ `baseline`: per workload measured, in the
/// lineup's order (one connection twice, the second in server CPU), the idle counts as
/// one fitted row where there is a fit.
fn rows(report: &WorkloadsReport, subjects: &[Contender], baseline: Contender) -> Vec<Row> {
    let mut rows = Vec::new();
    let measured = report.workloads();
    for (workload, _) in lineup() {
        let on_fit = matches!(workload.shape, Shape::Idle { .. }) && report.idle_fit().is_some();
        if !measured.iter().any(|m| m == workload.name) || on_fit {
            continue;
        }
        let mut units = vec![(workload.unit(), workload.measure())];
        if workload.shape == Shape::OneConnection {
            units.push((Unit::CpuPerRequest, Unit::CpuPerRequest.describe().into()));
        }
        for (unit, measure) in units {
            let of = |pair: (&str, &str)| match unit == workload.unit() {
                true => report.ratios_of(&workload, pair),
                false => report.cpu_ratios_of(&workload, pair),
            };
            rows.push(Row {
                workload: workload.name.into(),
                measure,
                cells: subjects.iter().map(|s| of((s.id, baseline.id))).collect(),
                aa: of((AA_CONTROL.id, IO_URING.id)),
            });
        }
    }
    if let Some(idle) = report.idle_fit() {
        let slopes = |c: &Contender| report.idle_slopes(c.id);
        let counts: Vec<String> = idle
            .iter()
            .map(|(_, count)| harness::format::group_thousands(*count as f64))
            .collect();
        rows.push(Row {
            workload: "idle connections".into(),
            measure: format!(
                "{} ({}): the slope of a fit over {} connections",
                Unit::BytesPerIdleConnection.describe(),
                report.idle_memory_counts(),
                counts.join(", ")
            ),
            cells: subjects
                .iter()
                .map(|s| rounds::ratios(&slopes(s), &slopes(&baseline)))
                .collect(),
            aa: rounds::ratios(&slopes(&AA_CONTROL), &slopes(&IO_URING)),
        });
    }
    rows
}

/// Writes `rows` as a table with a column per subject (and the A/A control's, if `aa`).
fn table(out: &mut String, subjects: &[Contender], rows: &[Row], aa: bool) {
    let labels: Vec<&str> = subjects.iter().map(|r| r.label).collect();
    let (aa_head, aa_rule) = if aa { (" A/A control |", "---|") } else { ("", "") };
    let _ = writeln!(
        out,
        "| workload | measure | {} |{aa_head}\n|---|---|{}{aa_rule}",
        labels.join(" | "),
        "---|".repeat(subjects.len())
    );
    for row in rows {
        let cells: Vec<String> = row.cells.iter().map(|r| judge::cell(r)).collect();
        let aa_cell = if aa {
            format!(" {} |", judge::cell(&row.aa))
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} |{aa_cell}",
            row.workload,
            row.measure,
            cells.join(" | ")
        );
    }
}

/// Under the first table: per runtime, how many rows it wins, ties and loses against the
/// baseline, and how often the A/A control tied.
fn summary(rows: &[Row]) -> String {
    let mut out = String::from("\n");
    for (index, runtime) in RUNTIMES.iter().enumerate() {
        let words: Vec<Word> = rows.iter().map(|r| Word::judge(&r.cells[index])).collect();
        let count = |word: Word| words.iter().filter(|w| **w == word).count();
        let _ = writeln!(
            out,
            "- {} against {}: wins {}, ties {}, loses {}, inconclusive or not measured {} of {} rows.",
            runtime.label,
            BASELINE.label,
            count(Word::Wins),
            count(Word::Ties),
            count(Word::Loses),
            rows.len() - count(Word::Wins) - count(Word::Ties) - count(Word::Loses),
            rows.len()
        );
    }
    let aa: Vec<Vec<f64>> = rows.iter().map(|r| r.aa.clone()).collect();
    let _ = writeln!(out, "\n{}", judge::control_tally(&aa));
    out
}

/// How much of the hand-rolled loop's lead a ready runtime keeps: of the rows
/// io_uring_server wins against the baseline, how many each ready runtime wins too.
fn keeps(against_tokio: &[Row]) -> String {
    let won: Vec<&Row> = against_tokio
        .iter()
        .filter(|r| Word::judge(&r.cells[0]) == Word::Wins)
        .collect();
    let kept: Vec<String> = READY
        .iter()
        .map(|ready| {
            let index = RUNTIMES.iter().position(|r| r == ready).unwrap_or_default();
            let also = won
                .iter()
                .filter(|r| Word::judge(&r.cells[index]) == Word::Wins)
                .count();
            format!("{} {also}", ready.label)
        })
        .collect();
    format!(
        "\nWhat a ready runtime keeps: {} wins {} of the {} rows against {}; of those, the \
         ready runtimes win too in: {}.\n",
        IO_URING.label,
        won.len(),
        against_tokio.len(),
        BASELINE.label,
        kept.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use harness::workload::samples::Sample;

    #[test]
    fn every_runtime_runs_every_judged_workload_with_the_baseline_and_control() {
        let lineup = lineup();
        assert!(lineup.iter().any(|(w, _)| matches!(w.shape, Shape::Idle { .. })));
        assert!(
            lineup
                .iter()
                .all(|(_, c)| c.len() == 6 && c[0] == BASELINE && c[5] == AA_CONTROL)
        );
    }

    #[test]
    fn a_runtime_that_costs_a_third_more_every_round_loses_and_the_table_says_so() {
        let workload = lineup()
            .into_iter()
            .map(|(w, _)| w)
            .find(|w| w.unit() == Unit::CpuPerRequest)
            .unwrap();
        let mut samples = Vec::new();
        for round in 0..6 {
            let noise = 1.0 + 0.01 * round as f64;
            for (contender, value) in [
                (BASELINE, 10.0),
                (IO_URING, 8.0 * noise),
                (TOKIO_URING, 10.0 / noise),
                (MONOIO, 13.3 * noise),
                (COMPIO, 13.4),
                (AA_CONTROL, 8.0 * noise),
            ] {
                samples.push(Sample::example(workload.name, contender.id, round, value));
            }
        }
        let text = render(&WorkloadsReport::over(samples));
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("| {} |", workload.name)))
            .unwrap();
        let cells: Vec<&str> = line.split(" | ").collect();
        assert!(cells[2].contains("**wins**"), "{line}");
        assert!(cells[4].contains("**loses**"), "{line}");
        assert!(cells[5].contains("**loses**"), "{line}");
        assert!(cells[6].contains("**ties**"), "{line}");
        assert!(text.contains("- monoio_server against tokio_server (codec): wins 0, ties 0, loses 1"));
        assert!(text.contains("A/A control"), "{text}");
        let second = text
            .lines()
            .filter(|l| l.starts_with(&format!("| {} |", workload.name)))
            .nth(1)
            .unwrap();
        let cells: Vec<&str> = second.split(" | ").collect();
        assert_eq!(cells.len(), 5, "no A/A column against the loop: {second}");
        assert!(
            cells[3].contains("**loses**") && cells[4].contains("**loses**"),
            "{second}"
        );
        assert!(text.contains("io_uring_server wins 1 of the 1 rows"), "{text}");
        assert!(text.contains("monoio_server 0, compio_server 0."), "{text}");
    }

    #[test]
    fn an_idle_count_without_a_fit_keeps_a_row_of_its_own() {
        let idle = lineup()
            .into_iter()
            .map(|(w, _)| w)
            .find(|w| matches!(w.shape, Shape::Idle { .. }))
            .unwrap();
        let mut samples = Vec::new();
        for round in 0..3 {
            for contender in contenders() {
                samples.push(Sample::example(idle.name, contender.id, round, 1000.0));
            }
        }
        let text = render(&WorkloadsReport::over(samples));
        assert!(text.contains(&format!("| {} |", idle.name)), "{text}");
        assert!(!text.contains("| idle connections |"), "{text}");
    }
}

//! The short verdict `cargo bench` ends with: a few key workloads of the workloads study
//! (kept-alive connections, a 64 KiB echo and churn at a fixed rate, 50% of the smaller
//! capacity of io_uring_server and the tokio configuration with the most, calibrated as the
//! full study does
//! ([`harness::workload::calibrate::calibrate_plan`]); one connection; idle memory), each
//! contender started afresh for every point, over a few rounds in a balanced order, decided
//! by the same rule as the full verdict in BENCHMARKS.md. A few minutes; the full study
//! (`scripts/workloads.sh`) runs every workload over more rounds, with an A/A control.

use harness::machine::Machine;
use harness::servers::Lineup;
use harness::settings::Timing;
use harness::workload::best::configurations;
use harness::workload::calibrate::calibrate_plan;
use harness::workload::catalogue::{WORKLOADS, by_name};
use harness::workload::run::{Entry, Rounds, measure_rounds};
use harness::workload::samples::WorkloadsReport;
use harness::workload::{BASELINES, SUBJECT, Workload, verdict};

/// The workloads of the short verdict, by their names in the workloads study: CPU per
/// request (or connection) at a fixed offered rate, never on a saturated closed loop (a
/// capacity figure, not a cost).
pub const KEY_WORKLOADS: [&str; 5] = [
    "keep-alive, small requests at a fixed rate",
    "one connection",
    "64 KiB echo at a fixed rate",
    "churn, server closes at a fixed rate",
    "5k idle connections",
];

/// Rounds and seconds per point: 5 rounds of 1 s (about 2 minutes), or 10 of 2 s with
/// `BENCH_PROFILE=full`.
pub fn rounds(timing: Timing) -> Rounds {
    let (rounds, seconds) = if timing == Timing::FULL {
        (10, 2.0)
    } else {
        (5, 1.0)
    };
    Rounds {
        rounds,
        seconds,
        detail_rounds: 0,
        max_rounds: rounds,
        slices: SLICES,
    }
}

/// Slices per point, alternated between the contenders ([`harness::slices`]).
const SLICES: usize = 4;

/// The key workloads.
pub fn key_workloads() -> Vec<Workload> {
    KEY_WORKLOADS
        .iter()
        .map(|name| by_name(name).unwrap_or_else(|| panic!("{name} is not a workload")))
        .collect()
}

/// Calibrates the offered key workloads' rate, then measures the key workloads on fresh
/// servers of `lineup` (which must have been built for the subject and the baselines).
pub fn measure(lineup: &Lineup, rounds: Rounds) -> Result<WorkloadsReport, String> {
    let mut contenders = vec![SUBJECT];
    contenders.extend(BASELINES);
    let plan: Vec<Entry> = key_workloads()
        .into_iter()
        .map(|workload| Entry {
            workload,
            every_round: contenders.clone(),
            detail: Vec::new(),
            offered: None,
        })
        .collect();
    let (plan, calibrations) = calibrate_plan(lineup, plan)?;
    let samples = measure_rounds(lineup, &plan, rounds, "verdict")?;
    Ok(WorkloadsReport {
        server_machine: None,
        machine: Machine::detect(),
        pinning: lineup.pinning.describe(),
        rounds: harness::workload::run::rounds_in(&samples),
        base_rounds: Some(rounds.rounds),
        detail_rounds: 0,
        seconds_per_point: rounds.seconds,
        slices: rounds.slices,
        judged: None,
        calibrations,
        outside: Vec::new(),
        samples,
    })
}

/// Why this short verdict's cells can differ from the full one's: the tokio configurations
/// it measured and those it did not, which the full verdict has
/// ([`harness::workload::best::configurations`]).
fn shorter(report: &WorkloadsReport) -> String {
    let (ran, absent) = configurations(report);
    let also = match absent.is_empty() {
        true => String::new(),
        false => format!(
            " The full verdict also has {}, so the same row may run at another rate there, \
             against another configuration (named beside a row where this run lacks it or the \
             word differs), and over more rounds: where the two differ, the full verdict decides.",
            and_list(&absent)
        ),
    };
    format!(
        "Its tokio configurations are {}: the cheapest is chosen from them, and the fixed \
         rates are set from them and io_uring_server.{also}",
        and_list(&ran)
    )
}

/// "a, b and c".
fn and_list(items: &[&str]) -> String {
    match items.split_last() {
        None => "none".into(),
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// The verdict section at the top of `results/latest.md`: the table, and under it how the
/// offered rates were set ([`verdict::table_beside`]: beside `full`, the committed full
/// verdict, a row whose word differs names the full verdict's).
pub fn render(report: &WorkloadsReport, full: Option<&WorkloadsReport>) -> String {
    format!(
        "## Verdict: is io_uring_server worth it here?\n\n{} {} The full verdict, every \
         workload over more rounds with an A/A control: the top of BENCHMARKS.md \
         (`scripts/workloads.sh`). {}\n\n{}\n{}",
        report.provenance("cargo bench"),
        verdict::what_a_cell_is(),
        shorter(report),
        verdict::table_beside(report, WORKLOADS, full),
        verdict::rates_table(report)
    )
}

/// The verdict in BENCHMARKS.md: the table in brief under a one-line provenance and one
/// sentence on how it differs from the full verdict above it, whose section says what a
/// cell is; the intervals, the method, the offered rates and the criterion tables left to
/// `results/latest.md`. Beside `full`, the committed full verdict, a row whose word differs
/// from the full verdict's names it.
pub fn headline(report: &WorkloadsReport, full: Option<&WorkloadsReport>) -> String {
    format!(
        "{provenance}\n\nThe key workloads of \
         [the verdict](#the-verdict-for-which-workload-is-io_uring-worth-it), each cell \
         {subject} ÷ the baseline as there (lower is better) and the rule's word, its interval \
         and rounds in [results/latest.md](results/latest.md); over fewer rounds and against \
         {ran}, which with {subject} set the fixed rates: where a cell differs from the full \
         verdict's, the full verdict decides.\n\n{table}",
        provenance = verdict::short_provenance(report, "cargo bench"),
        ran = and_list(&configurations(report).0),
        subject = SUBJECT.label,
        table = verdict::brief_table(report, WORKLOADS, full)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    use harness::workload::Shape;

    #[test]
    fn every_key_workload_is_one_of_the_study() {
        assert_eq!(key_workloads().len(), KEY_WORKLOADS.len());
        assert_eq!(rounds(Timing::QUICK).rounds, 5);
    }

    #[test]
    fn no_key_workload_judges_cpu_on_a_saturated_closed_loop() {
        for workload in key_workloads() {
            assert!(
                !workload.measure().contains("saturated"),
                "{}: {}",
                workload.name,
                workload.measure()
            );
        }
        let offered: Vec<_> = key_workloads()
            .into_iter()
            .filter_map(|w| match w.shape {
                Shape::Offered { of, percent } => Some((of, percent)),
                _ => None,
            })
            .collect();
        assert_eq!(
            offered,
            [
                ("keep-alive, small requests", 50),
                ("64 KiB echo", 50),
                ("churn, server closes", 50)
            ]
        );
    }
}

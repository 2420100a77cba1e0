//! The runtime tables on made-up rounds: who runs, a runtime that costs more loses, an
//! idle count without a fit keeps its row, and BENCHMARKS.md gets the first table only, in
//! brief.

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
        .find(|w| w.unit() == Unit::CpuPerRequest && w.verdict_units().len() == 1)
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
    let report = WorkloadsReport::over(samples);
    let text = render(&report, Doc::Results);
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("| {} |", workload.name)))
        .unwrap();
    let cells: Vec<&str> = line.split(" | ").collect();
    assert!(cells[2].contains("**wins**"), "{line}");
    assert!(cells[4].contains("**loses**"), "{line}");
    assert!(cells[5].contains("**loses**"), "{line}");
    assert!(cells[6].contains("**ties**"), "{line}");
    assert!(
        text.contains("- monoio_server against tokio_server (codec): wins 0, ties 0, loses 1"),
        "{text}"
    );
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
    let headline = render(&report, Doc::Benchmarks);
    let rows = headline
        .lines()
        .filter(|l| l.starts_with(&format!("| {} |", workload.name)));
    assert_eq!(rows.count(), 1, "only the first table: {headline}");
    let brief = headline
        .lines()
        .find(|l| l.starts_with(&format!("| {} |", workload.name)))
        .unwrap();
    assert!(
        brief.contains(" **loses** by ≥10% |") && !brief.contains("rounds)"),
        "each cell its ratio and word, the interval in results/runtimes.md: {brief}"
    );
    assert!(headline.contains("- monoio_server against tokio_server (codec): wins 0, ties 0, loses 1"));
    assert!(
        headline.contains("[results/runtimes.md](results/runtimes.md)"),
        "{headline}"
    );
    assert!(headline.contains("; method: [Method](#method)."), "{headline}");
    assert!(!headline.contains("Williams") && !headline.contains("What a ready runtime keeps"));
    assert!(
        text.contains("Williams design") && !text.contains("(#method)"),
        "{text}"
    );
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
    let text = render(&WorkloadsReport::over(samples), Doc::Results);
    assert!(text.contains(&format!("| {} |", idle.name)), "{text}");
    assert!(!text.contains("| idle connections |"), "{text}");
}

/// Six rounds of a CPU-per-request row: io_uring_server, monoio and the A/A control 25%
/// dearer than the codec engine, tokio-uring 60%, compio the same; the client `busy` in
/// round `r` with the A/A control (a contender the verdict judges) where `noisy(r)`, and
/// with tokio-uring (one it does not) in every round.
fn busy_rounds(noisy: impl Fn(usize) -> bool) -> (Workload, WorkloadsReport) {
    let workload = lineup()
        .into_iter()
        .map(|(w, _)| w)
        .find(|w| w.unit() == Unit::CpuPerRequest && w.verdict_units().len() == 1)
        .unwrap();
    let mut samples = Vec::new();
    for round in 0..6 {
        let noise = 1.0 + 0.01 * round as f64;
        let control = if noisy(round) { 0.97 } else { 0.5 };
        for (contender, value, busy) in [
            (BASELINE, 10.0, 0.5),
            (IO_URING, 12.5 * noise, 0.5),
            (TOKIO_URING, 16.0 * noise, 0.97),
            (MONOIO, 12.5 * noise, 0.5),
            (COMPIO, 10.0, 0.5),
            (AA_CONTROL, 12.5 * noise, control),
        ] {
            samples.push(Sample {
                client_busy: Some(busy),
                ..Sample::example(workload.name, contender.id, round, value)
            });
        }
    }
    (workload, WorkloadsReport::over(samples))
}

/// The table's line of `workload`, split into cells.
fn row_of(text: &str, workload: &Workload) -> Vec<String> {
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("| {} |", workload.name)))
        .unwrap();
    line.split(" | ").map(String::from).collect()
}

#[test]
fn a_noisy_round_counts_for_nothing_in_every_runtimes_cell() {
    let (workload, report) = busy_rounds(|round| round == 2);
    let text = render(&report, Doc::Results);
    let cells = row_of(&text, &workload);
    assert!(cells[2].contains("5 rounds) **loses**"), "{cells:?}");
    assert!(
        cells[3].contains("5 rounds) **loses**"),
        "not its own client: {cells:?}"
    );
    assert!(!text.contains("client-bound"), "{text}");
}

#[test]
fn a_row_the_client_bound_in_most_rounds_is_shown_and_left_out_of_the_tallies() {
    let (workload, report) = busy_rounds(|round| round < 4);
    let text = render(&report, Doc::Results);
    let cells = row_of(&text, &workload);
    for cell in &cells[2..] {
        assert!(
            cell.contains("*client-bound* (client 97% busy)") && !cell.contains("**"),
            "{cells:?}"
        );
    }
    assert!(
        text.contains(
            "- io_uring_server against tokio_server (codec): wins 0, ties 0, loses 0, inconclusive \
             or not measured 0 of 0 rows; 1 client-bound, left out."
        ),
        "{text}"
    );
    assert!(text.contains("reads *client-bound*"), "{text}");
}

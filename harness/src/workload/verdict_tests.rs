//! The verdict table on small reports: client-bound cells, a server behind its rate, the
//! cheapest tokio configuration's column.

use super::*;
use crate::workload::samples::Sample;

/// Three rounds of "64 KiB echo at a fixed rate" (server CPU per request), io_uring_server 20%
/// cheaper than the codec every round and too noisy a ratio to hyper to decide, the client
/// `busy[round]` busy with hyper and half busy with the others.
fn report(busy: [f64; 3]) -> WorkloadsReport {
    let mut samples = Vec::new();
    for (round, busy) in busy.into_iter().enumerate() {
        let hyper = [11.0, 7.0, 10.0][round];
        for (contender, cpu) in [
            (SUBJECT.id, 8.0),
            (BASELINES[0].id, 10.0),
            (BASELINES[1].id, hyper),
        ] {
            let mut sample = Sample::example(ECHO, contender, round, cpu);
            sample.client_busy = Some(if contender == BASELINES[1].id { busy } else { 0.5 });
            samples.push(sample);
        }
    }
    WorkloadsReport::over(samples)
}

const ECHO: &str = "64 KiB echo at a fixed rate";

fn echo() -> Vec<Workload> {
    vec![super::super::catalogue::by_name(ECHO).unwrap()]
}

#[test]
fn a_row_most_of_whose_rounds_were_noisy_is_client_bound_and_left_out_of_the_tally() {
    let report = report([0.5, 0.95, 0.92]);
    let table = table(&report, &echo(), Doc::Results);
    assert!(table.contains("*client-bound* (client 95% busy)"), "{table}");
    assert!(!table.contains("**"), "no cell of the row is the rule's: {table}");
    assert!(table.contains("The rule decided 0 of 0 cells"), "{table}");
    assert!(table.contains("Left out: 3 client-bound cells."), "{table}");
    assert!(
        !report.undecided(&echo()[0]),
        "more rounds cannot decide a client-bound cell"
    );
}

#[test]
fn a_noisy_round_counts_for_nothing_in_every_cell_of_its_row() {
    let table = table(&report([0.5, 0.95, 0.5]), &echo(), Doc::Results);
    assert!(
        !table.contains("client-bound"),
        "one noisy round of three: {table}"
    );
    assert!(
        table.contains("2 rounds) **wins** by ≥10%"),
        "judged from the other two: {table}"
    );
    assert!(!table.contains("3 rounds"), "in every cell: {table}");
}

#[test]
fn a_fixed_rate_cell_too_short_to_judge_says_a_server_fell_behind() {
    let row = "64 KiB echo at a fixed rate";
    let mut samples = Vec::new();
    for round in 0..3 {
        for contender in [SUBJECT.id, BASELINES[0].id, BASELINES[1].id] {
            let mut sample = Sample::example(row, contender, round, 10.0);
            sample.offered_per_sec = Some(1000.0);
            if contender == SUBJECT.id && round > 0 {
                sample.value = None;
            }
            samples.push(sample);
        }
    }
    let workloads = [super::super::catalogue::by_name(row).unwrap()];
    let table = table(&WorkloadsReport::over(samples), &workloads, Doc::Results);
    assert!(
        table.contains("n/a (1 round): a server fell behind the offered rate in 2 of 3 rounds"),
        "{table}"
    );
}

#[test]
fn a_client_with_cpu_to_spare_leaves_every_cell_to_the_rule() {
    let table = table(&report([0.5, 0.85, 0.5]), &echo(), Doc::Results);
    assert!(!table.contains("client-bound"), "{table}");
    assert!(table.contains("The rule decided 1 of 3 cells"), "{table}");
    assert!(table.contains("**inconclusive**"), "{table}");
    assert!(
        report([0.5, 0.85, 0.5]).undecided(&echo()[0]),
        "more rounds could decide it"
    );
}

#[test]
fn the_first_column_names_the_cheapest_tokio_configuration_and_the_row_its_rate() {
    use crate::servers::TOKIO_HYPER_MULTI_THREAD;
    use crate::workload::offered::{Calibration, FlatOut};
    let row = "keep-alive, small requests at a fixed rate";
    let mut samples = Vec::new();
    for round in 0..4 {
        let wobble = 1.0 + 0.01 * round as f64;
        let mut figures = vec![
            (SUBJECT.id, 8.0 * wobble),
            (BASELINES[0].id, 10.0),
            (BASELINES[1].id, 12.0),
        ];
        if round < 2 {
            figures.push((TOKIO_HYPER_MULTI_THREAD.id, 9.0));
        }
        for (contender, value) in figures {
            let mut sample = Sample::example(row, contender, round, value);
            sample.offered_per_sec = Some(30_000.0);
            samples.push(sample);
        }
    }
    let flat = |label: &str, cpu_us: f64| FlatOut {
        label: label.into(),
        requests_per_sec: 100_000.0,
        server_cpu_us: Some(cpu_us),
        client_busy: 0.9,
        cpus: 1,
    };
    let mut report = WorkloadsReport::over(samples);
    report.calibrations.push(
        Calibration::new(
            "keep-alive, small requests",
            vec![
                flat("io_uring_server", 5.0),
                flat("tokio_server (codec)", 8.0),
                flat("tokio_server (hyper)", 10.0),
                flat("tokio_server (hyper, multi-thread)", 7.5),
            ],
        )
        .comparing(vec![
            "io_uring_server".into(),
            "tokio_server (hyper, multi-thread)".into(),
        ]),
    );
    let workloads = [super::super::catalogue::by_name(row).unwrap()];
    let table = table(&report, &workloads, Doc::Results);
    assert!(
        table.contains(
            "| ÷ the cheapest tokio configuration | ÷ tokio_server (codec): the same code on \
             epoll | ÷ tokio_server (hyper) |"
        ),
        "{table}"
    );
    assert!(
        table.contains(
            "| keep-alive, small requests at 30,000 req/s (15% of io_uring_server's capacity, \
             22% of tokio_server (hyper, multi-thread)'s, 24% of tokio_server (codec)'s, 30% of \
             tokio_server (hyper)'s) | server CPU µs per request, fixed open-loop rate | 0.89 (0.84-0.95, 2 rounds) **wins** against tokio_server \
             (hyper, multi-thread); tokio_server (hyper, multi-thread) not measured every \
             round in this run, the cheapest chosen from the 2 of 4 rounds that measured it |"
        ),
        "{table}"
    );
    assert!(
        table.contains("How the first column is chosen: the cheapest tokio"),
        "{table}"
    );
    assert!(
        table.contains("(not in this run: tokio_server (codec, sendfile))"),
        "{table}"
    );
    assert!(
        table.contains("a backlog is not a cost"),
        "the rates' rule in full: {table}"
    );
    let short = super::table(&report, &workloads, Doc::Benchmarks);
    assert!(
        short.contains("How the first column is chosen: as the [glossary](#glossary) defines")
            && !short.contains("whichever of"),
        "BENCHMARKS.md links the definition: {short}"
    );
    assert!(
        short.contains(
            "50% of the smaller capacity of io_uring_server and its tokio baseline or lower \
             where the client capped it (each row's label in the results file gives its true \
             share of every compared server's capacity), and a round a server served less \
             than 99% of it in counts for nothing ([Method](#method))"
        ),
        "and links the rates' rule: {short}"
    );
    assert!(!short.contains("a backlog is not a cost"), "{short}");
}

#[test]
fn a_client_saturated_with_the_control_makes_the_round_noisy_for_every_cell() {
    let mut samples = report([0.5; 3]).samples;
    for round in 0..3 {
        let mut sample = Sample::example(ECHO, AA_CONTROL.id, round, 8.0);
        sample.client_busy = Some(if round == 1 { 0.95 } else { 0.5 });
        samples.push(sample);
    }
    let table = table(&WorkloadsReport::over(samples), &echo(), Doc::Results);
    assert!(
        !table.contains("3 rounds") && table.contains("2 rounds"),
        "{table}"
    );
    assert!(!table.contains("Left out:"), "nothing client-bound: {table}");
}

#[test]
fn a_report_from_before_a_row_says_it_was_not_measured() {
    let mut report = WorkloadsReport::over(vec![Sample::example(
        "keep-alive, small requests at a fixed rate",
        "io_uring",
        0,
        5.0,
    )]);
    assert!(not_measured(&report).is_empty(), "no list of what was judged");
    report.judged = Some(vec!["keep-alive, small requests at a fixed rate".into()]);
    let missing = not_measured(&report);
    assert!(
        missing.contains(&"4 KiB files, 256 connections at a fixed rate"),
        "{missing:?}"
    );
    assert!(!missing.contains(&"keep-alive, small requests at a fixed rate"));
    assert!(!missing.contains(&"pipelined 16 deep") && !missing.contains(&"5k idle connections"));
    assert!(not_measured_sentence(&report).contains("*4 KiB files, 256 connections at a fixed rate*"));
}

#[test]
fn a_row_says_whether_its_servers_woke_for_most_requests_where_the_run_counted() {
    let old = table(&report([0.5, 0.5, 0.5]), &echo(), Doc::Results);
    assert!(
        old.contains("| 64 KiB echo at a fixed rate | server CPU"),
        "{old}"
    );
    assert!(
        old.contains("Wake-ups per request: not recorded in this run."),
        "{old}"
    );
    let mut counted = report([0.5, 0.5, 0.5]);
    for sample in &mut counted.samples {
        sample.wakeups_per_request = Some(if sample.contender == SUBJECT.id { 0.9 } else { 0.1 });
    }
    let table = table(&counted, &echo(), Doc::Results);
    // Only io_uring_server woke for most requests: the label says which.
    assert!(
        table.contains(
            "| 64 KiB echo at a fixed rate (only io_uring_server woke for most requests: \
             io_uring_server 0.90, tokio_server (hyper) 0.10 wake-ups per request) |"
        ),
        "{table}"
    );
    assert!(table.contains("at least 0.5 wake-ups"), "{table}");
    for sample in &mut counted.samples {
        sample.wakeups_per_request = Some(0.9);
    }
    let both = super::table(&counted, &echo(), Doc::Results);
    assert!(
        both.contains(
            "| 64 KiB echo at a fixed rate (woke for most requests: io_uring_server 0.90, \
             tokio_server (hyper) 0.90 wake-ups per request) |"
        ),
        "{both}"
    );
}

#[test]
fn a_run_without_an_engine_a_row_of_it_could_choose_says_so() {
    // Idle connections measured against the codec engine and hyper only: the shared
    // buffer, a candidate on idle connections, is named as not in this run.
    let five = super::super::catalogue::by_name("5k idle connections").unwrap();
    let samples = (0..3)
        .flat_map(|round| {
            [
                (SUBJECT.id, 2400.0),
                (BASELINES[0].id, 8600.0),
                (BASELINES[1].id, 15000.0),
            ]
            .map(|(id, bytes)| Sample::example(five.name, id, round, bytes))
        })
        .collect();
    let table = table(&WorkloadsReport::over(samples), &[five], Doc::Results);
    assert!(
        table.contains("tokio_server (hyper, multi-thread), tokio_server (codec, shared buffer))"),
        "{table}"
    );
}

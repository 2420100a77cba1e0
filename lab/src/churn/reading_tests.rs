//! What a cell may claim: a closed loop is a throughput (client-bound where the client set
//! the pace in most rounds) and never a cost; only a fixed rate is judged, and only its
//! A/A cells are counted; a whole-machine figure below the server's own is unreliable.

use super::*;
use crate::churn::report::tests::{CLIENT_2500 as OPEN_2500, SERVER_8 as CLOSED_8, report, sample};

/// Sets every round's connections/s and client busy share of `contender` at `point`.
fn set(report: &mut ChurnReport, point: ChurnPoint, contender: &str, pace: [f64; 3], busy: [f64; 3]) {
    for s in report.samples.iter_mut() {
        if s.point == point && s.contender == contender {
            (s.connections_per_sec, s.client_busy) = (pace[s.round], busy[s.round]);
        }
    }
}

#[test]
fn a_closed_loop_is_a_throughput_and_a_fixed_rate_a_cost() {
    let mut report = report();
    set(
        &mut report,
        CLOSED_8,
        "io_uring",
        [27_000.0, 27_600.0, 28_000.0],
        [0.98; 3],
    );
    set(
        &mut report,
        CLOSED_8,
        "tokio_codec",
        [34_800.0, 35_000.0, 34_000.0],
        [0.96; 3],
    );
    assert_eq!(
        report.reading(&CLOSED_8, "tokio_codec"),
        Reading::Throughput {
            subject: Some(27_600.0),
            baseline: Some(34_800.0),
            client_bound: true,
        }
    );
    // The CPU per connection differs as much as at the fixed rate: still no cost.
    assert_eq!(
        report.ratios(&CLOSED_8, "tokio_codec"),
        report.ratios(&OPEN_2500, "tokio_codec")
    );
    match report.reading(&OPEN_2500, "tokio_codec") {
        Reading::Cost(ratios) => assert_eq!(ratios, report.ratios(&OPEN_2500, "tokio_codec")),
        other => panic!("a fixed rate is a cost: {other:?}"),
    }
}

#[test]
fn client_bound_means_most_rounds_busy_with_either_server() {
    let mut report = report();
    // The subject kept the client busy in rounds 0 and 1, the baseline in round 2.
    set(&mut report, CLOSED_8, "io_uring", [1.0; 3], [0.95, 0.90, 0.5]);
    set(&mut report, CLOSED_8, "tokio_codec", [1.0; 3], [0.5, 0.5, 0.97]);
    assert!(report.client_bound(&CLOSED_8, "tokio_codec"));
    // Busy in one round of three: not client-bound.
    set(&mut report, CLOSED_8, "io_uring", [1.0; 3], [0.95, 0.89, 0.5]);
    set(&mut report, CLOSED_8, "tokio_codec", [1.0; 3], [0.5, 0.5, 0.5]);
    assert!(!report.client_bound(&CLOSED_8, "tokio_codec"));
    match report.reading(&CLOSED_8, "tokio_codec") {
        Reading::Throughput { client_bound, .. } => assert!(!client_bound),
        other => panic!("a closed loop is a throughput: {other:?}"),
    }
}

#[test]
fn the_control_is_counted_over_the_fixed_rates_only() {
    let report = report();
    let cells = report.control_cells();
    assert_eq!(cells, vec![report.ratios(&OPEN_2500, AA_CONTROL.id)]);
    let mut closed_only = report.clone();
    closed_only.samples.retain(|s| s.point == CLOSED_8);
    assert!(closed_only.control_cells().is_empty());
}

#[test]
fn a_whole_machine_figure_below_the_servers_own_makes_the_point_unreliable() {
    let mut report = report();
    assert!(report.machine_cpu_reliable(&OPEN_2500));
    let mut low = sample(OPEN_2500, "tokio_hyper", 1, 40.0);
    low.machine_cpu_us_per_connection = Some(39.9);
    report
        .samples
        .retain(|s| !(s.point == OPEN_2500 && s.contender == "tokio_hyper" && s.round == 1));
    report.samples.push(low);
    assert!(!report.machine_cpu_reliable(&OPEN_2500));
    assert!(report.machine_cpu_reliable(&CLOSED_8));
    // A figure not read at all says nothing either way.
    for s in report.samples.iter_mut().filter(|s| s.point == CLOSED_8) {
        s.machine_cpu_us_per_connection = None;
    }
    assert!(report.machine_cpu_reliable(&CLOSED_8));
}

#[test]
fn a_throughput_cell_gives_both_paces_and_no_word() {
    let bound = Reading::Throughput {
        subject: Some(27_598.0),
        baseline: Some(34_806.0),
        client_bound: true,
    };
    let text = bound.cell(true);
    assert_eq!(text, "closed loop 27,598 vs 34,806 connections/s, client-bound");
    for word in ["wins", "ties", "loses", "inconclusive"] {
        assert!(!text.contains(word), "{text}");
    }
    let unbound = Reading::Throughput {
        subject: Some(11_810.0),
        baseline: None,
        client_bound: false,
    };
    assert_eq!(unbound.cell(false), "closed loop 11,810 vs n/a connections/s");
    assert!(
        Reading::Cost(vec![0.8, 0.8, 0.81])
            .cell(true)
            .contains("**wins**")
    );
}

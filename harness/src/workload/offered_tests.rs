//! Offered rates: keeping up, what a point served and still owes, and the rate a calibration sets.

use super::*;

fn flat(label: &str, rps: f64, cpu_us: Option<f64>) -> FlatOut {
    FlatOut {
        label: label.into(),
        requests_per_sec: rps,
        server_cpu_us: cpu_us,
        client_busy: 0.99,
        cpus: 1,
    }
}

#[test]
fn a_server_on_more_cpus_can_serve_as_many_times_more() {
    let one = flat("a", 1.0, Some(10.0));
    let four = FlatOut {
        cpus: 4,
        ..one.clone()
    };
    assert_eq!(one.capacity(), Some(100_000.0));
    assert_eq!(four.capacity(), Some(400_000.0));
}

#[test]
fn a_point_that_falls_behind_is_rejected() {
    assert!(keeps_up(50_000.0, 49_600.0, 0.0));
    assert!(keeps_up(50_000.0, 50_010.0, 0.0));
    assert!(!keeps_up(50_000.0, 49_400.0, 0.0), "98.8% served is a backlog");
    // 16 connections and 4 slices of 0.375 s: up to 43 requests/s still in flight.
    let in_flight = 16.0 * 4.0 / 1.5;
    assert!(
        keeps_up(1_000.0, 960.0, in_flight),
        "the last round trips are owed"
    );
    assert!(!keeps_up(1_000.0, 900.0, in_flight), "beyond them, a backlog");
}

#[test]
fn a_point_serves_the_answers_to_its_windows_requests_that_arrived_in_them() {
    let mut point = crate::load::blank_point("a", crate::load::LoadKind::Open);
    point.requests_per_sec = 60_000.0;
    let whole = Duration::from_millis(1250);
    assert_eq!(served(&point, whole), 60_000.0, "without the count, the rate");
    // 1.3% of the windows' requests answered after them: a backlog.
    point.answered_in_window = Some(74_000);
    assert_eq!(served(&point, whole), 59_200.0);
    assert!(!keeps_up(60_000.0, served(&point, whole), 0.0));
}

#[test]
fn a_point_owes_its_round_trips_and_one_request_per_window() {
    let mut point = crate::load::blank_point("a", crate::load::LoadKind::Open);
    point.connections = 4;
    point.requests_per_sec = 43.0;
    point.uncorrected_latency_us = Some(loadgen::run::Percentiles {
        mean: 20_000.0,
        ..Default::default()
    });
    let (slices, whole) = (4, Duration::from_millis(1500));
    let per_window = 4.0 / 1.5;
    let owed = owed(&point, slices, whole);
    assert!((owed - in_flight(&point, slices, whole) - per_window).abs() < 1e-9);
    // 43 uploads/s in 4 windows of 0.375 s: about 16 a window, and a server that kept
    // up answered 15 of them in some (40/s), one slot fewer than the schedule's mean.
    assert!(
        keeps_up(43.0, 40.0, owed),
        "one slot short per window is rounding"
    );
    assert!(
        !keeps_up(43.0, 36.0, owed),
        "a request a window more is a backlog"
    );
    // Beside thousands of small requests a window, one is nothing.
    assert!(!keeps_up(50_000.0, 49_000.0, per_window));
}

#[test]
fn what_is_in_flight_is_the_rate_times_the_round_trip_at_most_one_per_connection() {
    let mut point = crate::load::blank_point("a", crate::load::LoadKind::Open);
    point.connections = 16;
    point.requests_per_sec = 1_000.0;
    let (slices, whole) = (4, Duration::from_millis(1500));
    assert_eq!(
        in_flight(&point, slices, whole),
        0.0,
        "no open loop, nothing owed"
    );
    let trip = |mean| loadgen::run::Percentiles {
        mean,
        ..Default::default()
    };
    // 2 ms at 1000/s: 2 in flight per window.
    point.uncorrected_latency_us = Some(trip(2_000.0));
    assert!((in_flight(&point, slices, whole) - 2.0 * 4.0 / 1.5).abs() < 1e-9);
    // 100 in flight, but only 16 connections.
    point.uncorrected_latency_us = Some(trip(100_000.0));
    assert!((in_flight(&point, slices, whole) - 16.0 * 4.0 / 1.5).abs() < 1e-9);
}

#[test]
fn rates_are_shares_of_the_smallest_capacity() {
    // a: 10 µs per request, 100k/s per core; b: 20 µs, 50k/s: the smallest.
    let calibration = Calibration::new(
        "w",
        vec![flat("a", 90_000.0, Some(10.0)), flat("b", 50_000.0, Some(20.0))],
    );
    assert_eq!(calibration.smallest_capacity(), Some(("b", 50_000.0)));
    assert_eq!(calibration.rate(50), 25_000.0);
    assert_eq!(calibration.rate(25), 12_500.0);
    assert!(!calibration.capped(50));
    assert_eq!(calibration.slowest, 50_000.0);
    assert_eq!(calibration.slowest_label(), "b");
}

#[test]
fn a_rate_beyond_the_clients_reach_is_capped() {
    // Capacities 200k and 100k/s, but the client reached 60k/s with b.
    let calibration = Calibration::new(
        "w",
        vec![flat("a", 80_000.0, Some(5.0)), flat("b", 60_000.0, Some(10.0))],
    );
    assert_eq!(calibration.client_reach(), 60_000.0);
    assert!(
        calibration.capped(50),
        "100k of capacity is beyond the 60k reached"
    );
    assert_eq!(calibration.rate(50), 30_000.0);
    assert_eq!(calibration.rate(75), 45_000.0, "the shares stay distinct loads");
}

#[test]
fn a_server_without_a_cpu_figure_has_no_capacity() {
    let calibration = Calibration::new(
        "w",
        vec![flat("ext", 10_000.0, None), flat("a", 90_000.0, Some(10.0))],
    );
    assert_eq!(calibration.smallest_capacity(), Some(("a", 100_000.0)));
    assert!(
        calibration.capped(50),
        "100k of capacity is beyond the 10k reached"
    );
    assert_eq!(calibration.rate(50), 5_000.0);
}

#[test]
fn old_reports_keep_their_rates() {
    let json = r#"{"workload":"w","served":[["a",120000.0],["b",100000.0]],"slowest":100000.0}"#;
    let calibration: Calibration = serde_json::from_str(json).unwrap();
    assert!(calibration.flat_out.is_empty());
    assert_eq!(calibration.smallest_capacity(), None);
    assert!(!calibration.capped(75));
    assert_eq!(calibration.rate(50), 50_000.0);
    assert_eq!(calibration.slowest_label(), "b");
}

#[test]
fn every_offered_workload_names_a_base_that_saturates() {
    use super::super::{Shape, catalogue::WORKLOADS};
    for workload in WORKLOADS {
        if let Shape::Offered { of, percent } = workload.shape {
            let base = base(of);
            assert!(
                matches!(
                    base.shape,
                    Shape::KeepAlive { .. }
                        | Shape::Handler { .. }
                        | Shape::Echo { .. }
                        | Shape::Upload { .. }
                        | Shape::Response { .. }
                        | Shape::Files { .. }
                        | Shape::Churn { .. }
                        | Shape::ShortLived { .. }
                        | Shape::TlsKeepAlive { .. }
                        | Shape::TlsChurn { .. }
                ),
                "{}",
                workload.name
            );
            assert!(PERCENTS.contains(&percent), "{}", workload.name);
            assert!(workload.name.starts_with(of), "{}", workload.name);
        }
    }
}

#[test]
fn a_pair_sets_the_rate_and_the_others_may_fall_behind_it() {
    // a: 100k/s of capacity, b: 50k/s, c: 20k/s; the pair a and b sets the rate.
    let calibration = Calibration::new(
        "w",
        vec![
            flat("a", 90_000.0, Some(10.0)),
            flat("b", 48_000.0, Some(20.0)),
            flat("c", 19_000.0, Some(50.0)),
        ],
    )
    .comparing(vec!["a".into(), "b".into()]);
    assert!(calibration.by_pair());
    assert_eq!(calibration.smallest_capacity(), Some(("b", 50_000.0)));
    assert_eq!(calibration.reach(), ("b", 48_000.0));
    assert_eq!(
        calibration.rate(50),
        24_000.0,
        "capped by the client's reach with b"
    );
    assert!(calibration.capped(50));
    assert_eq!(calibration.capacity_of("c"), Some(20_000.0));
    let json = serde_json::to_string(&calibration).unwrap();
    let back: Calibration = serde_json::from_str(&json).unwrap();
    assert_eq!(back.compared, vec!["a", "b"]);
    let everyone = Calibration::new("w", calibration.flat_out.clone());
    assert!(!everyone.by_pair() && !serde_json::to_string(&everyone).unwrap().contains("compared"));
    assert_eq!(everyone.rate(50), 9_500.0, "every contender: c's reach");
}

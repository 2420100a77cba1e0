//! CPU at fixed offered rates: a saturated closed loop's CPU per request is the server's
//! busy share divided by a throughput the client sets, so it moves with the client as
//! much as with the server. An [`super::Shape::Offered`] workload instead offers every
//! contender the same open-loop rate, a share of the smallest contender's capacity (10^6
//! ÷ its server CPU µs per request flat out: what one core of it can serve,
//! [`super::calibrate`]), capped where the client could not drive it ([`CLIENT_REACH`]);
//! a point whose server served less than [`KEEP_UP`] of it is rejected ([`keeps_up`]): a
//! backlog is not a cost per request.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::Workload;
use super::catalogue::by_name;
use crate::load::Point;

/// The share of the offered rate a point must serve to count.
pub const KEEP_UP: f64 = 0.99;

/// The shares of capacity offered, in percent; the verdict's rows use [`VERDICT_PERCENT`].
pub const PERCENTS: [u32; 3] = [25, 50, 75];
pub const VERDICT_PERCENT: u32 = 50;

/// How long each contender runs flat out to calibrate.
pub const CALIBRATION: Duration = Duration::from_millis(1500);

/// What the client can drive, as a share of the slowest requests/s it reached flat out.
/// Where the smallest capacity is above it (on 2 CPUs, one client core cannot keep one
/// server core busy), the shares are taken of the client's reach instead, so every
/// offered rate stays one the client can hold and 25/50/75% stay distinct loads; the
/// report then gives each rate as a share of every server's capacity.
pub const CLIENT_REACH: f64 = 1.0;

/// Whether a point that served `achieved` requests/s kept up with `offered`, where
/// `owed` requests/s were still owed when its windows closed ([`owed`]): a server that
/// kept up owes the last round trips, a backlog shows as requests not yet sent. With
/// large answers or bodies whose round trips take milliseconds, those are a few percent
/// of a short window's requests; with small ones, a handful.
pub fn keeps_up(offered: f64, achieved: f64, owed: f64) -> bool {
    achieved + owed >= KEEP_UP * offered
}

/// What a server that kept up with an open-loop `point` may still owe when each of its
/// `slices` windows closed, as a rate over `duration` (the point's whole window), for
/// [`keeps_up`]: the requests in flight ([`in_flight`]), and one request per window for
/// where the schedule's slots fall: a window of w seconds at r requests/s holds ⌊r·w⌋ or
/// ⌈r·w⌉ of them. That is nothing beside a window of thousands of small requests, and
/// more than the 1% [`KEEP_UP`] leaves where a window holds a few dozen (20 MiB uploads).
pub fn owed(point: &Point, slices: usize, duration: Duration) -> f64 {
    in_flight(point, slices, duration) + slices.max(1) as f64 / duration.as_secs_f64()
}

/// The requests an open-loop `point` still had in flight when each of its `slices`
/// windows closed, as a rate over `duration` (the point's whole window): by Little's law
/// its rate times its mean round trip (from each request's actual send, which a backlog
/// does not lengthen), at most one per connection (loadgen sends one at a time on each).
/// None for a point without an open loop's figures.
pub fn in_flight(point: &Point, slices: usize, duration: Duration) -> f64 {
    let Some(round_trip) = point.uncorrected_latency_us.as_ref().map(|p| p.mean / 1e6) else {
        return 0.0;
    };
    let per_window = (point.requests_per_sec * round_trip).min(point.connections as f64);
    per_window * slices.max(1) as f64 / duration.as_secs_f64()
}

/// The workload an offered one takes its load from.
pub fn base(name: &str) -> Workload {
    by_name(name).unwrap_or_else(|| panic!("{name}: an offered workload's base is not in the catalogue"))
}

/// One contender flat out in a calibration run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FlatOut {
    pub label: String,
    /// What it served, requests/s (the client set this as much as the server).
    pub requests_per_sec: f64,
    /// Its server CPU µs per request; `None` where its CPU could not be read (an external
    /// server), so its capacity is unknown.
    pub server_cpu_us: Option<f64>,
    /// The client's CPU over the run's wall time and its CPUs (1.0: saturated).
    pub client_busy: f64,
    /// The server CPUs it ran on (one worker each); 1 in reports from before.
    #[serde(default = "one_cpu")]
    pub cpus: usize,
}

fn one_cpu() -> usize {
    1
}

impl FlatOut {
    /// What the server can serve on its CPUs, requests/s: CPUs × 10^6 ÷ its CPU µs per
    /// request (its CPU counts every thread, so µs per request are spread over them).
    pub fn capacity(&self) -> Option<f64> {
        let cpus = self.cpus.max(1) as f64;
        self.server_cpu_us
            .filter(|us| *us > 0.0)
            .map(|us| cpus * 1e6 / us)
    }
}

/// What each contender did flat out at a workload: the capacities the offered rates are
/// shares of.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Calibration {
    pub workload: String,
    /// (label, requests/s) per contender, in the order run.
    pub served: Vec<(String, f64)>,
    /// The least of `served`: what the client reached with every server.
    pub slowest: f64,
    /// Each contender's run in full, in the order run; empty in reports from before
    /// capacities, whose rates were shares of `slowest`.
    #[serde(default)]
    pub flat_out: Vec<FlatOut>,
}

impl Calibration {
    /// The calibration of `workload` over `flat_out` (at least one run).
    pub fn new(workload: &str, flat_out: Vec<FlatOut>) -> Calibration {
        let served: Vec<(String, f64)> = flat_out
            .iter()
            .map(|f| (f.label.clone(), f.requests_per_sec))
            .collect();
        let slowest = served.iter().map(|(_, rps)| *rps).fold(f64::INFINITY, f64::min);
        Calibration {
            workload: workload.into(),
            served,
            slowest,
            flat_out,
        }
    }

    /// The smallest capacity and whose it is; `None` where no capacity is known (a
    /// report from before them, or external servers only).
    pub fn smallest_capacity(&self) -> Option<(&str, f64)> {
        self.flat_out
            .iter()
            .filter_map(|f| Some((f.label.as_str(), f.capacity()?)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// The most the client could drive: [`CLIENT_REACH`] of `slowest`.
    pub fn client_reach(&self) -> f64 {
        (self.slowest * CLIENT_REACH).round()
    }

    /// `percent`% of the smallest capacity, before any cap (in reports from before
    /// capacities, `percent`% of `slowest`).
    fn uncapped(&self, percent: u32) -> f64 {
        let base = self
            .smallest_capacity()
            .map_or(self.slowest, |(_, capacity)| capacity);
        (base * f64::from(percent) / 100.0).round()
    }

    /// Whether the smallest capacity is more than the client could drive, so the shares
    /// are taken of [`Self::client_reach`] instead.
    pub fn capped(&self, percent: u32) -> bool {
        !self.flat_out.is_empty() && self.uncapped(percent) > self.client_reach() * f64::from(percent) / 100.0
    }

    /// The rate `percent`% of capacity stands for, in requests/s: the same for every
    /// server, `percent`% of the smallest capacity or of the client's reach, whichever is
    /// smaller, so at most `percent`% of any one server's capacity.
    pub fn rate(&self, percent: u32) -> f64 {
        if self.capped(percent) {
            (self.client_reach() * f64::from(percent) / 100.0).round()
        } else {
            self.uncapped(percent)
        }
    }

    /// Whose flat-out figure `slowest` is.
    pub fn slowest_label(&self) -> &str {
        self.served
            .iter()
            .find(|(_, rps)| *rps == self.slowest)
            .map_or("?", |(label, _)| label.as_str())
    }
}

#[cfg(test)]
mod tests {
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
                            | Shape::Echo { .. }
                            | Shape::Upload { .. }
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
}

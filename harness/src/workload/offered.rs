//! CPU at fixed offered rates: a saturated closed loop's CPU per request is the server's
//! busy share divided by a throughput the client sets, so it moves with the client as
//! much as with the server. An [`super::Shape::Offered`] workload instead offers every
//! contender the same open-loop rate, a share of the smaller capacity of io_uring_server
//! and its tokio baseline (10^6 ÷ its server CPU µs per request flat out: what one core of
//! it can serve, [`super::calibrate`], [`super::best::rate_pair`]), capped where the client
//! could not drive it with them ([`CLIENT_REACH`]);
//! a point whose server served less than [`KEEP_UP`] of it is rejected ([`keeps_up`]): a
//! backlog is not a cost per request.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::Workload;
use super::catalogue::by_name;
use super::client_probe::ClientProbe;
use crate::load::Point;

/// The share of the offered rate a point must serve to count.
pub const KEEP_UP: f64 = 0.99;

/// The shares of capacity offered, in percent; the verdict's rows use [`VERDICT_PERCENT`].
pub const PERCENTS: [u32; 3] = [25, 50, 75];
pub use super::VERDICT_PERCENT;

/// How long each contender runs flat out to calibrate.
pub const CALIBRATION: Duration = Duration::from_millis(1500);

/// Slices each contender's calibration is cut into, run in passes whose order reverses
/// ([`crate::slices`], `super::calibrate`), as the rounds' points are: run one after the other, a contender
/// that met a slow stretch of the VM got a capacity too low, and the rate with it.
pub const CALIBRATION_SLICES: usize = 4;

/// What the client can drive, as a share of the slowest requests/s it reached flat out
/// with the servers that set the rate. Where the smallest capacity is above it (on 2 CPUs, one client core cannot keep one
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

/// What an open-loop `point` served per second over its measured windows, `duration` in
/// all: the answers to the windows' own requests that arrived before they closed
/// (loadgen's `answered_in_window`; a point without it, its rate). loadgen sends every
/// request scheduled in a window, late if it must, and waits for the answers, so its
/// request count alone cannot tell a backlog.
pub fn served(point: &Point, duration: Duration) -> f64 {
    point
        .answered_in_window
        .map_or(point.requests_per_sec, |answered| {
            answered as f64 / duration.as_secs_f64()
        })
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
    /// The labels of the pair whose capacities set the rate: io_uring_server and the
    /// tokio configuration with the highest calibrated capacity, standing in for its
    /// cheapest ([`super::best::rate_pair`]). Empty in reports from before, whose rates
    /// were shares of every contender's smallest capacity.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub compared: Vec<String>,
    /// The client at the rate the capacities set, where it was probed
    /// ([`super::client_probe`]); `None` in reports from before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<ClientProbe>,
}

impl Calibration {
    /// The calibration of `workload` over `flat_out` (at least one run), every
    /// contender's capacity counting until [`Self::comparing`] names a pair.
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
            compared: Vec::new(),
            probe: None,
        }
    }

    /// The same calibration, its rates set by the contenders labelled `compared` alone
    /// (none: by every contender).
    pub fn comparing(self, compared: Vec<String>) -> Calibration {
        Calibration { compared, ..self }
    }

    /// The runs whose figures set the rate: those of [`Self::compared`], or every one.
    fn counted(&self) -> Vec<&FlatOut> {
        let pair: Vec<&FlatOut> = self
            .flat_out
            .iter()
            .filter(|f| self.compared.contains(&f.label))
            .collect();
        match pair.is_empty() {
            true => self.flat_out.iter().collect(),
            false => pair,
        }
    }

    /// Whether the rate is set by a pair ([`Self::compared`]) rather than by everyone.
    pub fn by_pair(&self) -> bool {
        self.counted().len() < self.flat_out.len()
    }

    /// `label`'s capacity, where it ran and its CPU was read.
    pub fn capacity_of(&self, label: &str) -> Option<f64> {
        self.flat_out.iter().find(|f| f.label == label)?.capacity()
    }

    /// The smallest capacity among those that set the rate, and whose it is; `None` where
    /// no capacity is known (a report from before them, or external servers only).
    pub fn smallest_capacity(&self) -> Option<(&str, f64)> {
        self.counted()
            .into_iter()
            .filter_map(|f| Some((f.label.as_str(), f.capacity()?)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// The slowest flat-out figure among those that set the rate, and whose it is: what
    /// the client reached with every one of them.
    pub fn reach(&self) -> (&str, f64) {
        if !self.by_pair() {
            return (self.slowest_label(), self.slowest);
        }
        self.counted()
            .into_iter()
            .map(|f| (f.label.as_str(), f.requests_per_sec))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap_or(("?", self.slowest))
    }

    /// The most the client could drive: [`CLIENT_REACH`] of [`Self::reach`].
    pub fn client_reach(&self) -> f64 {
        (self.reach().1 * CLIENT_REACH).round()
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
    /// server, `percent`% of the smallest capacity among those that set it or of the
    /// client's reach with them, whichever is smaller, so at most `percent`% of either's
    /// capacity (a contender with less may fall behind it).
    pub fn rate(&self, percent: u32) -> f64 {
        self.lowered(self.before_probe(percent))
    }

    /// [`Self::rate`] before the client probe lowered it.
    pub fn before_probe(&self, percent: u32) -> f64 {
        if self.capped(percent) {
            (self.client_reach() * f64::from(percent) / 100.0).round()
        } else {
            self.uncapped(percent)
        }
    }

    /// `rate`, or the client probe's cap where that is lower.
    fn lowered(&self, rate: f64) -> f64 {
        match self.probe.and_then(|p| p.cap()) {
            Some(cap) if cap < rate => cap,
            _ => rate,
        }
    }

    /// The same calibration with the client probed at its rate.
    pub fn probed(self, probe: ClientProbe) -> Calibration {
        Calibration {
            probe: Some(probe),
            ..self
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
#[path = "offered_tests.rs"]
mod tests;

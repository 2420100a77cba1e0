//! The client's two drivers side by side (issue 70): before, every study drove its
//! connections with loadgen's tokio driver, whose clock lets sends due within
//! [`loadgen::MIN_GAP`] of each other leave together; now loadgen's ring drives every run
//! it covers (kept-alive connections over plain TCP without files, [`Load::on_ring`]) and
//! sends each request close to its intended time. This study offers io_uring_server each
//! fixed-rate row of the workloads study that the ring covers, at the rate that study
//! offered it, once by each driver in the same rounds, and keeps what the client and the
//! server spent per request with each and how late the sends left.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use harness::load::{Load, Point};
use harness::machine::Machine;
use harness::workload::samples::WorkloadsReport;
use harness::workload::{SUBJECT, Shape, VERDICT_PERCENT, catalogue, offered};
use loadgen::run::Driver;

pub mod report;

/// The drivers compared, "before" first.
pub const DRIVERS: [Driver; 2] = [Driver::Tokio, Driver::Ring];

/// How the reports name `driver`.
pub fn driver_name(driver: Driver) -> &'static str {
    match driver {
        Driver::Tokio => "tokio",
        Driver::Ring => "ring",
        Driver::Auto => "auto",
    }
}

/// A fixed-rate row of the workloads study, the rate it was offered there, and whether
/// the ring drives it (else the tokio driver does, before and after).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub workload: String,
    pub rate: f64,
    pub on_ring: bool,
}

/// Every fixed-rate row at the verdict's share that `workloads` measured, in the
/// catalogue's order, with the rate it offered io_uring_server; `on_ring` tells from a
/// row's load whether the ring drives it.
pub fn fixed_rate_rows(workloads: &WorkloadsReport, on_ring: impl Fn(&str, f64) -> bool) -> Vec<Row> {
    catalogue::WORKLOADS
        .iter()
        .filter(|w| matches!(w.shape, Shape::Offered { percent, .. } if percent == VERDICT_PERCENT))
        .filter_map(|w| {
            let rate = workloads
                .samples
                .iter()
                .find(|s| s.workload == w.name && s.contender == SUBJECT.id)?
                .offered_per_sec?;
            Some(Row {
                workload: w.name.to_string(),
                rate,
                on_ring: on_ring(w.name, rate),
            })
        })
        .collect()
}

/// One driver's point on one row in one round.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Sample {
    pub workload: String,
    pub driver: String,
    pub round: usize,
    /// The answers that arrived within the measured windows, per second of them: what the
    /// open loop served on schedule, as the workloads study counts it ([`offered::served`]).
    pub served_per_sec: f64,
    /// io_uring_server's CPU per request, µs.
    pub server_cpu_us: Option<f64>,
    /// The client's CPU per request, µs: its busy share ÷ `served_per_sec`, as the
    /// workloads study's rates table reads it.
    pub client_cpu_us: f64,
    /// The client's CPU over the point's wall time (1.0: saturated).
    pub client_busy: f64,
    /// How late the client's sends left their intended times, p50, µs.
    pub send_lateness_p50_us: Option<f64>,
}

impl Sample {
    /// The sample of `point`, whose measured windows add up to `seconds`.
    pub fn of(workload: &str, driver: Driver, round: usize, point: &Point, seconds: f64) -> Sample {
        let served = offered::served(point, Duration::from_secs_f64(seconds));
        Sample {
            workload: workload.to_string(),
            driver: driver_name(driver).to_string(),
            round,
            served_per_sec: served,
            server_cpu_us: point.server_cpu_us_per_request,
            client_cpu_us: point.client_busy * 1e6 / served.max(f64::MIN_POSITIVE),
            client_busy: point.client_busy,
            send_lateness_p50_us: point.send_lateness_us.as_ref().map(|late| late.p50 as f64),
        }
    }
}

/// What `scripts/client_drivers.sh` measured: `results/client_drivers.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ClientDriversReport {
    pub machine: Machine,
    pub pinning: String,
    pub rounds: usize,
    pub seconds_per_point: f64,
    pub slices: usize,
    /// The commit of the workloads study whose rates were offered.
    pub rates_from: String,
    pub rows: Vec<Row>,
    pub samples: Vec<Sample>,
}

impl ClientDriversReport {
    /// The samples of `driver` on `workload`, by round.
    pub fn of<'a>(&'a self, workload: &'a str, driver: Driver) -> impl Iterator<Item = &'a Sample> + 'a {
        self.samples
            .iter()
            .filter(move |s| s.workload == workload && s.driver == driver_name(driver))
    }

    /// The same rounds' samples of the two drivers on `workload`, paired: (tokio, ring).
    pub fn paired<'a>(&'a self, workload: &'a str) -> Vec<(&'a Sample, &'a Sample)> {
        self.of(workload, DRIVERS[0])
            .filter_map(|before| {
                let after = self.of(workload, DRIVERS[1]).find(|s| s.round == before.round)?;
                Some((before, after))
            })
            .collect()
    }
}

/// The load a row's points run: its fixed-rate load, driven by `driver`.
pub fn driven(load: Load, driver: Driver) -> Load {
    Load { driver, ..load }
}

#[cfg(test)]
mod tests {
    use super::*;
    use harness::workload::samples::Sample as WorkloadSample;

    fn offered(workload: &str, contender: &str, rate: Option<f64>) -> WorkloadSample {
        WorkloadSample {
            offered_per_sec: rate,
            ..WorkloadSample::example(workload, contender, 0, 5.0)
        }
    }

    #[test]
    fn the_rows_are_the_fixed_rate_rows_measured_with_io_uring_servers_offered_rate() {
        let report = WorkloadsReport::over(vec![
            offered("keep-alive over TLS at a fixed rate", SUBJECT.id, Some(40_000.0)),
            offered(
                "keep-alive, small requests at a fixed rate",
                "tokio_codec",
                Some(1.0),
            ),
            offered(
                "keep-alive, small requests at a fixed rate",
                SUBJECT.id,
                Some(120_000.0),
            ),
            offered("keep-alive, small requests", SUBJECT.id, None),
        ]);
        let rows = fixed_rate_rows(&report, |name, _| !name.contains("TLS"));
        assert_eq!(
            rows,
            vec![
                Row {
                    workload: "keep-alive, small requests at a fixed rate".into(),
                    rate: 120_000.0,
                    on_ring: true,
                },
                Row {
                    workload: "keep-alive over TLS at a fixed rate".into(),
                    rate: 40_000.0,
                    on_ring: false,
                },
            ]
        );
    }

    fn sample(driver: Driver, round: usize, client_cpu_us: f64) -> Sample {
        Sample {
            workload: "w".into(),
            driver: driver_name(driver).into(),
            round,
            served_per_sec: 1000.0,
            server_cpu_us: Some(4.0),
            client_cpu_us,
            client_busy: client_cpu_us / 1000.0,
            send_lateness_p50_us: Some(10.0),
        }
    }

    #[test]
    fn the_drivers_are_paired_by_round_and_a_round_missing_one_is_left_out() {
        let report = ClientDriversReport {
            machine: Machine::example(),
            pinning: String::new(),
            rounds: 3,
            seconds_per_point: 1.0,
            slices: 2,
            rates_from: "abc1234".into(),
            rows: Vec::new(),
            samples: vec![
                sample(Driver::Ring, 0, 7.0),
                sample(Driver::Tokio, 0, 6.0),
                sample(Driver::Tokio, 1, 6.5),
                sample(Driver::Ring, 2, 7.5),
                sample(Driver::Tokio, 2, 6.2),
            ],
        };
        let pairs: Vec<(usize, f64, f64)> = report
            .paired("w")
            .iter()
            .map(|(before, after)| (before.round, before.client_cpu_us, after.client_cpu_us))
            .collect();
        assert_eq!(pairs, vec![(0, 6.0, 7.0), (2, 6.2, 7.5)]);
    }
}

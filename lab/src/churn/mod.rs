//! The churn study (`scripts/churn.sh`): a new connection per request, in both who-closes
//! patterns, at several loads: closed loops at several client counts and open loops at
//! fixed connection rates, every contender over rounds of freshly started servers in a
//! balanced order, with an A/A control.
//! The workloads study has one closed-loop point and one fixed rate per pattern (its 50%
//! load, the verdict's); this one shows how the cost of a connection moves with the load.
//! This module names the points and holds the samples; `measure` runs one point, `reading`
//! says what a cell may claim (a cost only at a fixed rate), `report` renders them and
//! `plot` draws them.

use std::net::IpAddr;

use loadgen::churn::Churn;
use serde::{Deserialize, Serialize};

use harness::format::group_thousands;
use harness::machine::Machine;
use harness::rounds;
use harness::servers::{AA_CONTROL, Contender, IO_URING, TOKIO_CODEC, TOKIO_HYPER};

pub mod measure;
pub mod plot;
pub mod reading;
pub mod report;

/// Both who-closes patterns, in the order the study runs them.
pub const PATTERNS: [Churn; 2] = [Churn::ServerCloses, Churn::ClientCloses];

/// Clients of the closed-loop points.
pub const CLIENT_COUNTS: [usize; 4] = [1, 8, 32, 128];

/// Connections per second of the open-loop points: light, middling, and about half of
/// what the client (on one CPU, it limits every contender here) makes flat out, which
/// every contender held in trial runs; faster rates some contenders missed.
pub const RATES: [u32; 3] = [1_000, 2_500, 5_000];

/// Clients sharing an open loop's rate: enough that connections held up for tens of
/// milliseconds do not run out of clients to start the next ones on time.
pub const OPEN_LOOP_CLIENTS: usize = 128;

/// An open-loop point held its rate when it completed at least this share of it.
pub const RATE_HELD: f64 = 0.95;

/// How a point starts its connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Drive {
    /// `clients` at once, each opening its next connection when the last one is done.
    Closed { clients: usize },
    /// `rate` connections a second shared by [`OPEN_LOOP_CLIENTS`] clients, each timed
    /// from when it was due (so a stall also charges the connections it held back).
    Open { rate: u32 },
}

/// One point of the study: who closes, and how connections are started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChurnPoint {
    pub closes: Churn,
    pub drive: Drive,
}

impl ChurnPoint {
    /// "server closes, 8 clients" or "client closes, 2,500 connections/s".
    pub fn name(&self) -> String {
        format!("{}, {}", pattern_name(self.closes), self.load_name())
    }

    /// "8 clients" or "2,500 connections/s".
    pub fn load_name(&self) -> String {
        match self.drive {
            Drive::Closed { clients: 1 } => "1 client".into(),
            Drive::Closed { clients } => format!("{clients} clients"),
            Drive::Open { rate } => format!("{} connections/s", group_thousands(rate.into())),
        }
    }

    /// The offered rate of an open-loop point.
    pub fn rate(&self) -> Option<f64> {
        match self.drive {
            Drive::Open { rate } => Some(rate.into()),
            Drive::Closed { .. } => None,
        }
    }
}

/// "server closes" or "client closes".
pub fn pattern_name(closes: Churn) -> &'static str {
    match closes {
        Churn::ServerCloses => "server closes",
        Churn::ClientCloses => "client closes",
    }
}

/// Every point, a pattern's closed loops then its open loops.
pub fn plan() -> Vec<ChurnPoint> {
    let closed = CLIENT_COUNTS.map(|clients| Drive::Closed { clients });
    let open = RATES.map(|rate| Drive::Open { rate });
    PATTERNS
        .iter()
        .flat_map(|&closes| {
            let drives = closed.iter().chain(&open);
            drives.map(move |&drive| ChurnPoint { closes, drive })
        })
        .collect()
}

/// The contender the study judges, and the baselines it is judged against (the
/// workloads study's order), the last the A/A control: a second process of the subject,
/// which the rule must find tied with it.
pub const SUBJECT: Contender = IO_URING;
pub const BASELINES: [Contender; 3] = [TOKIO_CODEC, TOKIO_HYPER, AA_CONTROL];

/// One contender's figures at one point in one round. Every connection counted was
/// answered in full and checked: a failed one fails the study.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Sample {
    #[serde(flatten)]
    pub point: ChurnPoint,
    pub contender: String,
    pub label: String,
    pub round: usize,
    pub connections_per_sec: f64,
    /// Over every connection of the run, the open loop's warm-up included.
    pub server_cpu_us_per_connection: Option<f64>,
    /// The whole machine's CPU per connection over the same run ([`harness::machine_cpu`]).
    pub machine_cpu_us_per_connection: Option<f64>,
    /// From the connect (the open loop: from when it was due) to the answer's last byte.
    pub p50_us: u64,
    pub p99_us: u64,
    /// Open loop only: how late the client started connections against the schedule, p99.
    pub client_lateness_p99_us: Option<u64>,
    /// The client's CPU over the run's wall time and its CPUs (1.0: saturated).
    #[serde(default)]
    pub client_busy: f64,
    pub bottleneck: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ChurnReport {
    pub machine: Machine,
    pub pinning: String,
    /// The addresses the client's connections were bound to in turn, per contender;
    /// empty: the kernel's choice.
    pub source_addrs: Vec<(String, Vec<IpAddr>)>,
    pub rounds: usize,
    /// Slices each point was cut into, alternated between the servers
    /// ([`harness::slices`]); 0 in reports from before slices (one go).
    #[serde(default)]
    pub slices: usize,
    pub seconds_per_point: f64,
    /// The open loop's warm-up before each measured window (each slice's), in seconds.
    pub open_loop_warmup_s: f64,
    pub samples: Vec<Sample>,
}

impl ChurnReport {
    /// The samples of `contender` at `point`, in round order.
    pub fn of<'a>(&'a self, point: &'a ChurnPoint, contender: &'a str) -> impl Iterator<Item = &'a Sample> {
        self.samples
            .iter()
            .filter(move |s| s.point == *point && s.contender == contender)
    }

    /// Subject ÷ `baseline` server CPU per connection at `point`, per round.
    pub fn ratios(&self, point: &ChurnPoint, baseline: &str) -> Vec<f64> {
        let by_round = |contender| {
            (0..self.rounds)
                .map(|round| {
                    let sample = self.of(point, contender).find(|s| s.round == round)?;
                    sample.server_cpu_us_per_connection
                })
                .collect::<Vec<_>>()
        };
        rounds::ratios(&by_round(SUBJECT.id), &by_round(baseline))
    }

    /// The points measured, in plan order.
    pub fn points(&self) -> Vec<ChurnPoint> {
        rounds::first_seen(self.samples.iter().map(|s| s.point))
    }

    /// The contenders measured, as (id, label), in the order first measured.
    pub fn contenders(&self) -> Vec<(String, String)> {
        rounds::first_seen(
            self.samples
                .iter()
                .map(|s| (s.contender.clone(), s.label.clone())),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_runs_both_patterns_at_every_count_and_rate() {
        let plan = plan();
        assert_eq!(plan.len(), PATTERNS.len() * (CLIENT_COUNTS.len() + RATES.len()));
        for closes in PATTERNS {
            for clients in CLIENT_COUNTS {
                let point = ChurnPoint {
                    closes,
                    drive: Drive::Closed { clients },
                };
                assert_eq!(plan.iter().filter(|p| **p == point).count(), 1, "{point:?}");
            }
            for rate in RATES {
                let point = ChurnPoint {
                    closes,
                    drive: Drive::Open { rate },
                };
                assert_eq!(plan.iter().filter(|p| **p == point).count(), 1, "{point:?}");
            }
        }
    }

    #[test]
    fn points_are_named_by_pattern_and_load() {
        let names: Vec<String> = plan().iter().map(ChurnPoint::name).collect();
        assert_eq!(names[0], "server closes, 1 client");
        assert_eq!(names[1], "server closes, 8 clients");
        assert!(names.contains(&"client closes, 2,500 connections/s".to_string()));
        let mut unique = names.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), names.len());
    }
}

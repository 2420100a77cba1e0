//! The concurrency scan (`scripts/scan.sh`): a closed loop of `GET /` at every connection
//! count a user runs, 1 to 1024, for every contender, io_uring_server with its batched
//! waits switched on, an A/A control (a second io_uring_server process), the floors and
//! nginx, in rounds of freshly started servers whose order is balanced. Each point keeps requests/s, server
//! CPU per request, p50/p99 and how busy the client was, so a point where the client and
//! not the server set the pace is marked as such. `calibrate` compares loadgen's cost per
//! request with wrk's on the same server; `report` renders the tables and the checks;
//! `plots` draws requests/s and CPU per request against connections.

use serde::{Deserialize, Serialize};

use harness::judge::Word;
use harness::load::Point;
use harness::machine::Machine;
use harness::rounds;
use harness::servers::{CONTENDERS, Contender, FLOORS, IO_URING, TOKIO_CODEC, io_uring_with};

pub mod calibrate;
pub mod plots;
pub mod report;
#[cfg(test)]
mod report_tests;

/// The closed loop's connection counts.
pub const CONNECTIONS: [usize; 10] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 1024];

/// A client this busy (share of its CPUs) sets the pace: the point is marked.
pub use harness::usage::CLIENT_SATURATED;

/// io_uring_server with its batched waits switched on (they are off by default).
pub const BATCHED: Contender = io_uring_with(
    "io_uring_server, batched waits (100 µs)",
    &["--batch-wait-us", "100"],
);

/// The default io_uring_server again, in a process of its own: how far it lands from the
/// first is the scan's own run-to-run spread.
pub use harness::servers::AA_CONTROL as CONTROL;

/// Everyone the scan runs (nginx is added when installed), in report order.
pub fn lineup() -> Vec<Contender> {
    let mut all = CONTENDERS.to_vec();
    all.extend([BATCHED, CONTROL]);
    all.extend(FLOORS);
    all
}

/// One measured point, with the round it ran in.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ScanPoint {
    pub round: usize,
    /// Its place in the round's order (0 ran first; with slices, in the first pass).
    pub order: usize,
    pub point: Point,
}

/// loadgen and wrk on the same server at the same load, one after the other.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Calibration {
    pub tool: String,
    pub connections: usize,
    pub requests_per_sec: f64,
    pub client_cpu_us_per_request: f64,
    pub server_cpu_us_per_request: Option<f64>,
    /// The client's CPU over the wall time and its CPUs.
    pub client_busy: f64,
}

/// Everything one scan measured, as written to `results/scan.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ScanReport {
    pub machine: Machine,
    pub pinning: String,
    pub seconds_per_point: f64,
    pub rounds: usize,
    /// Slices each point was cut into, alternated between the servers
    /// ([`harness::slices`]); 0 in reports from before slices (one go).
    #[serde(default)]
    pub slices: usize,
    /// The contenders' ids and labels in report order.
    pub contenders: Vec<(String, String)>,
    pub points: Vec<ScanPoint>,
    /// Against tokio_server (codec), at [`calibrate::CONNECTIONS`]; empty without wrk.
    pub calibration: Vec<Calibration>,
}

/// A figure of a point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    RequestsPerSec,
    CpuPerRequest,
    /// The whole machine's CPU per request ([`harness::machine_cpu`]).
    MachineCpuPerRequest,
    P50,
    P99,
}

impl Metric {
    pub fn of(self, point: &Point) -> Option<f64> {
        match self {
            Metric::RequestsPerSec => Some(point.requests_per_sec),
            Metric::CpuPerRequest => point.server_cpu_us_per_request,
            Metric::MachineCpuPerRequest => point.machine_cpu_us_per_request,
            Metric::P50 => Some(point.latency_us.p50 as f64),
            Metric::P99 => Some(point.latency_us.p99 as f64),
        }
    }
}

pub use Metric::{CpuPerRequest as CPU, RequestsPerSec as RPS};

impl ScanReport {
    /// `contender`'s points at `connections`, one per round in round order.
    pub fn points_at<'a>(
        &'a self,
        contender: &'a str,
        connections: usize,
    ) -> impl Iterator<Item = &'a ScanPoint> {
        (0..self.rounds).filter_map(move |round| {
            self.points.iter().find(|p| {
                p.round == round && p.point.contender == contender && p.point.connections == connections
            })
        })
    }

    /// `metric` per round (`None` where a round lacks it).
    pub fn per_round(&self, contender: &str, connections: usize, metric: Metric) -> Vec<Option<f64>> {
        (0..self.rounds)
            .map(|round| {
                self.points_at(contender, connections)
                    .find(|p| p.round == round)
                    .and_then(|p| metric.of(&p.point))
            })
            .collect()
    }

    /// The median of `metric` over the rounds.
    pub fn median(&self, contender: &str, connections: usize, metric: Metric) -> Option<f64> {
        let values: Vec<f64> = self
            .per_round(contender, connections, metric)
            .into_iter()
            .flatten()
            .collect();
        rounds::median(&values)
    }

    /// Whether the client was saturated in any round of `contender` at `connections`.
    pub fn client_bound(&self, contender: &str, connections: usize) -> bool {
        self.points_at(contender, connections)
            .any(|p| p.point.client_busy >= CLIENT_SATURATED)
    }

    /// Per-round cost ratios of `subject` ÷ `baseline` (lower is better for the subject):
    /// CPU per request as it is, requests/s inverted.
    pub fn cost_ratios(
        &self,
        (subject, baseline): (&str, &str),
        connections: usize,
        metric: Metric,
    ) -> Vec<f64> {
        let a = self.per_round(subject, connections, metric);
        let b = self.per_round(baseline, connections, metric);
        if metric == RPS {
            rounds::ratios(&b, &a)
        } else {
            rounds::ratios(&a, &b)
        }
    }

    /// `subject` against `baseline` at `connections` on `metric`, by the one rule
    /// ([`judge`]).
    pub fn judge(&self, pair: (&str, &str), connections: usize, metric: Metric) -> Word {
        Word::judge(&self.cost_ratios(pair, connections, metric))
    }

    /// The counts where the rule finds the default io_uring_server behind itself with
    /// batched waits, on requests/s or CPU per request.
    pub fn default_behind_batching(&self) -> Vec<usize> {
        CONNECTIONS
            .into_iter()
            .filter(|&c| {
                [RPS, CPU]
                    .into_iter()
                    .any(|m| self.judge((IO_URING.id, BATCHED.id), c, m) == Word::Loses)
            })
            .collect()
    }
}

/// The pair the scan answers for the mission: io_uring_server against the codec on tokio.
pub const VERSUS_CODEC: (&str, &str) = (IO_URING.id, TOKIO_CODEC.id);

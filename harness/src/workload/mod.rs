//! A workload and what it measures: the shapes of load the studies and `cargo bench`'s
//! verdict run ([`Shape`]), the unit each is judged in ([`Unit`]), one point of one
//! contender measured into a [`samples::Sample`] on a freshly started server
//! ([`measure`]), the offered rates set from each contender's capacity ([`calibrate`],
//! [`offered`], [`rates`]), rounds of them in a balanced order ([`run`]), and the verdict
//! table the one rule ([`crate::judge`]) decides from their per-round ratios ([`verdict`]),
//! but for requests/s cells the client bound ([`client_bound`]), over the workloads it
//! judges ([`scope`]).

use loadgen::churn::Churn;
use loadgen::tls::Handshakes;
use serde::Serialize;

use crate::servers::{Contender, IO_URING, TOKIO_CODEC, TOKIO_HYPER};

/// The share of capacity, in percent, every verdict row is offered at
/// ([`offered::PERCENTS`]).
pub const VERDICT_PERCENT: u32 = 50;

pub mod beside;
pub mod best;
pub mod calibrate;
pub mod catalogue;
pub mod cells;
pub mod chosen;
pub mod client_bound;
pub mod client_cost;
pub mod client_probe;
pub mod exempt;
pub mod further;
pub mod idle_fit;
pub mod measure;
pub mod offered;
pub mod page_cache;
pub mod provenance;
pub mod rates;
pub mod run;
pub mod samples;
pub mod scope;
pub mod verdict;
pub mod wakes;

/// How a workload loads a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Shape {
    /// `GET /` in a closed loop on kept-alive connections.
    KeepAlive { connections: usize },
    /// `GET /work/{micros}` in a closed loop on kept-alive connections: kept-alive small
    /// requests whose handler does `micros` µs of work (`http_core::work`), so the saving
    /// is read beside an application's own cost.
    Handler { micros: u64, connections: usize },
    /// `GET /` with `depth` requests in flight per connection.
    Pipelined { connections: usize, depth: usize },
    /// `GET /` on one kept-alive connection: the round trip (and, a second verdict row,
    /// the server CPU per request it costs); over TLS 1.3 when `tls` (its session resumed
    /// from a ticket at each slice's start). With `busy_poll` the client waits for each
    /// answer by busy-polling (loadgen's `--busy-poll`), so it never sleeps: beside the
    /// default point, how much of the round trip is the machine's wake-up.
    OneConnection { tls: bool, busy_poll: bool },
    /// `GET /` in a closed loop on a few kept-alive connections, judged on requests/s:
    /// what a small service's clients wait on is round trips, not the server's CPU.
    SmallService { connections: usize },
    /// `POST /payload` of `bytes`, echoed, in a closed loop; sent with Content-Length, or
    /// chunked in pieces of `chunk` bytes.
    Echo {
        bytes: usize,
        connections: usize,
        chunk: Option<usize>,
    },
    /// `GET /bytes/{bytes}` in a closed loop.
    Response { bytes: usize, connections: usize },
    /// `POST /upload` of `bytes` (Content-Length) in a closed loop, each answered with the
    /// receipt of its length and CRC32C: the server reads every byte as it arrives and
    /// keeps none, what a service taking large uploads does.
    Upload { bytes: usize, connections: usize },
    /// `GET /files/{name}` of the file corpus's `set` (`harness::corpus`, hot in the page
    /// cache), a file picked at random per request, in a closed loop: what
    /// io_uring_server's sendfile path is for. `cold`: the set's pages dropped right before
    /// each slice ([`page_cache`]), so each starts reading from storage.
    Files {
        set: &'static str,
        connections: usize,
        cold: bool,
    },
    /// `GET /` on a new connection each time, `clients` at once, closed by whom `closes` says.
    Churn { closes: Churn, clients: usize },
    /// `GET /` `requests` times on each new connection, one after another, then the
    /// client closes it; `clients` at once. Between churn and keep-alive: what most
    /// clients of a service do.
    ShortLived { requests: usize, clients: usize },
    /// `GET /` in a closed loop on kept-alive TLS 1.3 connections (every server with its
    /// runtime's rustls adapter, one configuration: `server_kit::tls`): what encrypting
    /// every byte leaves of the I/O model's share.
    TlsKeepAlive { connections: usize },
    /// `GET /` on a new TLS 1.3 connection each time, `clients` at once, closed by the
    /// client (with `close_notify`) after the answer; every handshake full, or resumed
    /// from a ticket an earlier connection received.
    TlsChurn { handshakes: Handshakes, clients: usize },
    /// `count` kept-alive connections that each made one request and now wait, held by a
    /// freshly started server while `active` connections run a closed loop of `GET /`.
    Idle { count: usize, active: usize },
    /// The load of the workload named `of` (keep-alive, echo, uploads, large responses,
    /// files, churn or short-lived connections, plain or over TLS) as an open loop at `percent`% of the smaller capacity of
    /// io_uring_server and its tokio baseline for it (10^6 ÷ its server CPU µs per request
    /// flat out, [`offered`]): every contender serves the same requests per second, so CPU
    /// per request compares servers rather than how fast the client drove each one.
    Offered { of: &'static str, percent: u32 },
}

/// What is compared: lower is better, but for requests/s, whose ratios are inverted so
/// that a cell below 1 favours io_uring_server in every row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Unit {
    CpuPerRequest,
    CpuPerConnection,
    LatencyP50,
    /// The open loop's p99, from each request's intended send (corrected for coordinated
    /// omission): the tail at a fixed rate, a second row of the keep-alive cost row.
    LatencyP99,
    BytesPerIdleConnection,
    RequestsPerSec,
}

impl Unit {
    /// A figure in this unit as a table shows it.
    pub fn show(self, value: f64) -> String {
        match self {
            Unit::BytesPerIdleConnection | Unit::RequestsPerSec | Unit::LatencyP99 => {
                format!("{value:.0}")
            }
            _ => format!("{value:.1}"),
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Unit::CpuPerRequest => "server CPU µs per request",
            Unit::CpuPerConnection => "server CPU µs per connection",
            Unit::LatencyP50 => "median round trip, µs",
            Unit::LatencyP99 => "p99 latency, µs",
            Unit::BytesPerIdleConnection => "server memory bytes per idle connection",
            Unit::RequestsPerSec => "requests/s (the cell is the baseline's ÷ io_uring_server's)",
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct Workload {
    pub name: &'static str,
    pub shape: Shape,
}

impl Workload {
    pub fn unit(&self) -> Unit {
        match self.shape {
            Shape::Offered { of, .. } => offered::base(of).unit(),
            Shape::OneConnection { .. } => Unit::LatencyP50,
            Shape::SmallService { .. } => Unit::RequestsPerSec,
            Shape::Churn { .. } | Shape::TlsChurn { .. } => Unit::CpuPerConnection,
            Shape::Idle { .. } => Unit::BytesPerIdleConnection,
            _ => Unit::CpuPerRequest,
        }
    }

    /// What its verdict row measures, in words: the unit, and for CPU how the load was
    /// offered (a fixed rate, or a saturated closed loop whose figure is a capacity one).
    pub fn measure(&self) -> String {
        let unit = self.unit();
        match (self.shape, unit) {
            (Shape::Offered { .. }, _) => format!("{}, fixed open-loop rate", unit.describe()),
            (_, Unit::CpuPerRequest | Unit::CpuPerConnection) if self.saturates() => {
                format!("{}, saturated closed loop", unit.describe())
            }
            _ => unit.describe().into(),
        }
    }

    /// Whether it drives every server as fast as the client can (a closed loop of many
    /// connections, or churn), so its CPU figure also depends on how fast that was.
    fn saturates(&self) -> bool {
        !matches!(
            self.shape,
            Shape::OneConnection { .. } | Shape::Idle { .. } | Shape::Offered { .. }
        )
    }

    /// The units of its verdict rows: its own, for one connection a second in server
    /// CPU per request, and for kept-alive small requests at the verdict's offered rate
    /// a second in p99 latency ([`Self::judges_tail`]).
    pub fn verdict_units(&self) -> Vec<Unit> {
        let mut units = vec![self.unit()];
        if matches!(self.shape, Shape::OneConnection { .. }) {
            units.push(Unit::CpuPerRequest);
        }
        if self.judges_tail() {
            units.push(Unit::LatencyP99);
        }
        units
    }

    /// Whether its tail latency is a verdict row: kept-alive small requests at the
    /// verdict's offered rate, whose rounds also meter the platform's hiccups (the floor
    /// a p99 is read against, [`crate::noise`]).
    pub fn judges_tail(&self) -> bool {
        match self.shape {
            Shape::Offered { of, percent } => {
                percent == offered::VERDICT_PERCENT
                    && matches!(offered::base(of).shape, Shape::KeepAlive { .. })
            }
            _ => false,
        }
    }

    /// `sample`'s figure in `unit`, one of its verdict units: its own value, server CPU
    /// per request, or the p99 of a point that kept up with its rate.
    pub fn figure(&self, unit: Unit, sample: &samples::Sample) -> Option<f64> {
        match unit {
            _ if unit == self.unit() => sample.value,
            Unit::LatencyP99 => sample.value.map(|_| sample.p99_us as f64),
            _ => sample.server_cpu_us,
        }
    }

    /// Over TLS, with which handshake per new connection; `None`: plain HTTP.
    pub fn tls(&self) -> Option<Handshakes> {
        match self.shape {
            Shape::TlsKeepAlive { .. } | Shape::OneConnection { tls: true, .. } => Some(Handshakes::Resumed),
            Shape::TlsChurn { handshakes, .. } => Some(handshakes),
            Shape::Offered { of, .. } => offered::base(of).tls(),
            _ => None,
        }
    }

    /// Whether it asks for files (the corpus must be served): [`Shape::Files`], or an
    /// offered load of it.
    pub fn serves_files(&self) -> bool {
        match self.shape {
            Shape::Offered { of, .. } => offered::base(of).serves_files(),
            shape => matches!(shape, Shape::Files { .. }),
        }
    }

    /// Whether it serves files large enough to go by sendfile where a server can
    /// (`http_core::files::SENDFILE_MIN`): below that, tokio's `--sendfile` engine runs the
    /// very code of the plain codec engine, so it is no other configuration there.
    pub fn sends_by_sendfile(&self) -> bool {
        match self.shape {
            Shape::Offered { of, .. } => offered::base(of).sends_by_sendfile(),
            Shape::Files { set, .. } => http_core::files::CORPUS
                .iter()
                .any(|s| s.label == set && s.size as u64 >= http_core::files::SENDFILE_MIN),
            _ => false,
        }
    }

    /// Whether syscalls per request are counted for it (in a separate run, first round only).
    pub fn counts_syscalls(&self) -> bool {
        matches!(
            self.shape,
            Shape::KeepAlive { .. }
                | Shape::OneConnection { .. }
                | Shape::Churn { .. }
                | Shape::ShortLived { .. }
        )
    }
}

/// The contender every verdict judges, and the baselines it is judged against.
pub const SUBJECT: Contender = IO_URING;
pub const BASELINES: [Contender; 2] = [TOKIO_CODEC, TOKIO_HYPER];

//! The profiling study (`scripts/profiles.sh`): why the numbers differ. Every contender
//! serves the load of each workload while perf samples the server CPUs: a workload that
//! explains a verdict row runs that row's load at that row's rate ([`Shape::Row`], rates
//! from [`rate`]), and its totals are set beside the row's ([`against_verdict`]). Each
//! sample of the server is put in one [`classify::Category`], and a category's share of
//! the samples times the server CPU per request measured in the same run (from /proc)
//! gives what that category costs per request. This module names the workloads and holds
//! the figures; `record` runs perf and folds its stacks, `classify` is the category table,
//! `measure` runs one profile, `flame` draws it, `report` writes the tables and `summary`
//! BENCHMARKS.md's section.

use serde::{Deserialize, Serialize};

use harness::machine::Machine;
use harness::workload::catalogue::by_name;
use harness::workload::samples::WorkloadsReport;
use harness::workload::{Shape as RowShape, Unit};

pub mod against_verdict;
pub mod classify;
pub mod counts;
pub mod difference;
pub mod flame;
pub mod measure;
pub mod rate;
pub mod reach;
pub mod ready_extra;
pub mod record;
pub mod report;
pub mod summary;
#[cfg(test)]
mod test_profiles;

use classify::Category;
use record::Stack;

/// How a workload loads a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Shape {
    /// The load of the verdict row `explains` names (a workload of
    /// [`harness::workload::catalogue`]) at that row's rate: an offered row's open loop at
    /// its share of the capacity [`harness::workload::calibrate`] measures, a saturated
    /// row's closed loop (pipelining, the large responses), so each contender serves what
    /// it can and only the per-request figures compare.
    Row { explains: &'static str },
    /// `GET /files/{name}`, a random file of the corpus set labelled `set`, its pages
    /// cached (the file study's hot case), open loop at [`RATE_SHARE`] of the slowest
    /// contender's peak, a rate of its own rather than a verdict row's; or, `flat_out`, a
    /// closed loop flat out, as the wrk cross-check runs it
    /// (`scripts/files_wrk.py`): a capacity figure, profiled to show where it goes.
    File {
        set: &'static str,
        connections: usize,
        flat_out: bool,
    },
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct Workload {
    pub name: &'static str,
    /// Its part of the flame graphs' file names.
    pub slug: &'static str,
    pub shape: Shape,
}

impl Workload {
    /// The verdict row it explains, by its catalogue name; `None`: it has none.
    pub fn explains(&self) -> Option<&'static str> {
        match self.shape {
            Shape::Row { explains } => Some(explains),
            Shape::File { .. } => None,
        }
    }

    /// The catalogue workload of the verdict row it explains, whose load it runs.
    pub fn row(&self) -> Option<harness::workload::Workload> {
        self.explains().map(|name| {
            by_name(name).unwrap_or_else(|| panic!("{name}: a profile explains no verdict row of that name"))
        })
    }

    /// Whether every contender gets the same offered rate (else each runs flat out).
    pub fn is_open_loop(&self) -> bool {
        match self.shape {
            Shape::File { flat_out, .. } => !flat_out,
            Shape::Row { .. } => self
                .row()
                .is_some_and(|row| matches!(row.shape, RowShape::Offered { .. })),
        }
    }

    /// What one unit of work is, for the tables.
    pub fn unit(&self) -> &'static str {
        match self.row().map(|row| row.unit()) {
            Some(Unit::CpuPerConnection) => "connection",
            _ => "request",
        }
    }

    /// Whether its load speaks TLS: only the contenders that do serve it, started with the
    /// harness's certificate.
    pub fn tls(&self) -> bool {
        self.row().is_some_and(|row| row.tls().is_some())
    }

    /// Its name as the tables show it: a file workload says how it is driven ("4 KiB
    /// files, hot, 256 connections, open loop at 65% of the slowest peak"), so it does not
    /// read as the verdict's file rows, which run other rates (one name, one workload); a
    /// verdict row's profile is named after that row and runs its load.
    pub fn label(&self) -> String {
        match self.shape {
            Shape::File { flat_out: true, .. } => format!("{} (closed loop)", self.name),
            Shape::File { .. } => format!(
                "{}, open loop at {:.0}% of the slowest peak",
                self.name,
                RATE_SHARE * 100.0
            ),
            Shape::Row { .. } => self.name.to_string(),
        }
    }

    /// The corpus set a file workload serves.
    pub fn file_set(&self) -> Option<&'static str> {
        match self.shape {
            Shape::File { set, .. } => Some(set),
            Shape::Row { .. } => None,
        }
    }
}

/// A profile of the verdict row `explains`, named after it.
const fn row(explains: &'static str, slug: &'static str) -> Workload {
    Workload {
        name: explains,
        slug,
        shape: Shape::Row { explains },
    }
}

pub const WORKLOADS: [Workload; 12] = [
    row("keep-alive, small requests at a fixed rate", "keepalive"),
    row("keep-alive over TLS at a fixed rate", "tls_keepalive"),
    row("TLS churn, full handshakes at a fixed rate", "tls_churn_full"),
    row("pipelined 16 deep", "pipelined"),
    row("64 KiB echo at a fixed rate", "echo64k"),
    row("256 KiB responses", "response256k"),
    row("20 MiB uploads at a fixed rate", "uploads20m"),
    row("churn, server closes at a fixed rate", "churn_server_closes"),
    row("churn, client closes at a fixed rate", "churn_client_closes"),
    file("4 KiB files, hot, 256 connections", "files4k", ("4k", 256), false),
    file(
        "4 KiB files, hot, 256 connections, flat out",
        "files4k_flat",
        ("4k", 256),
        true,
    ),
    file("1 MiB files, hot, 16 connections", "files1m", ("1m", 16), false),
];

/// A profile of hot files of the corpus set `set` over `connections`.
const fn file(
    name: &'static str,
    slug: &'static str,
    (set, connections): (&'static str, usize),
    flat_out: bool,
) -> Workload {
    Workload {
        name,
        slug,
        shape: Shape::File {
            set,
            connections,
            flat_out,
        },
    }
}

/// A file workload's offered rate (a rate of its own, not a verdict row's), as a share of the slowest
/// contender's closed-loop peak; a verdict row's profile takes that row's rate instead.
pub const RATE_SHARE: f64 = 0.65;

/// A profile counts only where its contender served at least this share of the offered
/// rate: one that fell behind was overloaded, and its figures would describe a backlog.
pub const KEPT_UP: f64 = 0.99;

/// When a contender falls behind, every contender is profiled again at the rate times
/// this, at most [`RETRIES`] times.
pub const LOWER_BY: f64 = 0.8;
pub const RETRIES: usize = 3;

/// One contender's profile at one workload.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Profile {
    pub workload: String,
    pub contender: String,
    pub label: String,
    /// Requests (or connections) per second offered; `None`: closed loop.
    pub offered_per_sec: Option<f64>,
    pub served_per_sec: f64,
    /// Requests (or connections) served over the whole recorded window, the open loop's
    /// warm-up included: perf's samples and /proc's CPU both cover that window.
    pub requests: u64,
    pub p99_us: u64,
    /// Server CPU per request (or connection), from /proc over the same run.
    pub server_cpu_us: f64,
    pub breakdown: Breakdown,
    /// µs per unit of work by category, in [`Category::ALL`] order: the category's share
    /// of the server's samples × `server_cpu_us`.
    pub cost_us: [f64; classify::COUNT],
    /// The flame graph, relative to `results/`.
    pub flame_graph: String,
    /// The share of its periods the sampling timer delivered a sample for, on every task
    /// of the recorded CPUs, from the first sample to the last: `cpu-clock` samples from
    /// a timer, and a tick that fires late records one sample for all the periods it
    /// missed. A check on one reason perf could count short. `None` where not measured.
    pub timer_delivered: Option<f64>,
    /// The client's share of its CPUs over the run (1.0: all of them busy); `None` in older
    /// results.
    #[serde(default)]
    pub client_busy: Option<f64>,
    /// System calls, io_uring completions and context switches per request, from a short
    /// run of their own ([`counts`]); `None` in older results or where perf cannot count.
    #[serde(default)]
    pub counts: Option<counts::Counts>,
}

/// How perf's samples of the server CPUs split.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Breakdown {
    /// Samples of the server process, by category in [`Category::ALL`] order.
    pub server: [u64; classify::COUNT],
    /// Samples of the idle task.
    pub idle: u64,
    /// Samples of other processes (other builds, perf, kernel threads).
    pub others: u64,
}

impl Breakdown {
    /// Counts `stacks` (weights in ns of CPU, `period_ns` per sample) for the server `pid`.
    pub fn of(stacks: &[Stack], pid: u32, period_ns: u64) -> Breakdown {
        let mut breakdown = Breakdown::default();
        for stack in stacks {
            let samples = stack.weight / period_ns.max(1);
            if stack.pid == pid {
                breakdown.server[classify::classify(&stack.frames).index()] += samples;
            } else if stack.pid == 0 {
                breakdown.idle += samples;
            } else {
                breakdown.others += samples;
            }
        }
        breakdown
    }

    pub fn server_samples(&self) -> u64 {
        self.server.iter().sum()
    }

    /// Every sample taken on the server's CPUs, of every task and the idle one.
    pub fn all_samples(&self) -> u64 {
        self.server_samples() + self.idle + self.others
    }

    /// The server's share of every sample taken on its CPUs.
    pub fn server_share(&self) -> f64 {
        self.server_samples() as f64 / self.all_samples().max(1) as f64
    }

    /// `category`'s share of the server's samples.
    pub fn share(&self, category: Category) -> f64 {
        self.server[category.index()] as f64 / self.server_samples().max(1) as f64
    }
}

impl Breakdown {
    /// µs per unit of work by category: each share × `server_cpu_us`.
    pub fn costs(&self, server_cpu_us: f64) -> [f64; classify::COUNT] {
        Category::ALL.map(|category| self.share(category) * server_cpu_us)
    }
}

impl Profile {
    /// µs per unit of work spent in `category`.
    pub fn cost(&self, category: Category) -> f64 {
        self.cost_us[category.index()]
    }

    /// Server CPU per unit of work as perf's samples of the server count it: a check on
    /// /proc's figure, which the shares are scaled to.
    pub fn sampled_cpu_us(&self) -> f64 {
        (self.breakdown.server_samples() * record::PERIOD_NS) as f64 / 1e3 / self.requests.max(1) as f64
    }

    /// [`Self::sampled_cpu_us`] with the periods the timer missed given back, in the
    /// server's share: what perf would have counted from a timer that never fired late.
    pub fn sampled_cpu_us_restored(&self) -> Option<f64> {
        self.timer_delivered
            .filter(|d| *d > 0.0)
            .map(|delivered| self.sampled_cpu_us() / delivered)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProfilesReport {
    pub machine: Machine,
    pub pinning: String,
    pub seconds_per_profile: f64,
    /// Per open-loop workload, what each contender sustained flat out in the calibration
    /// run its rate was taken from.
    pub calibration: Vec<(String, Vec<(String, f64)>)>,
    pub profiles: Vec<Profile>,
    /// The verdict's rounds (`results/workloads.json`) whose rows the profiles explain,
    /// read when the report is written; `None`: no verdict run to set them beside.
    #[serde(skip)]
    pub verdict: Option<WorkloadsReport>,
}

impl ProfilesReport {
    /// The profiles of `workload`, in the order they were taken.
    pub fn of<'a>(&'a self, workload: &'a str) -> impl Iterator<Item = &'a Profile> {
        self.profiles.iter().filter(move |p| p.workload == workload)
    }
}

//! The scaling study: how each server's flat-out requests/s and CPU per request change
//! with the cores it is given. At each core count (1, 2, 4, ... up to the server CPUs the
//! run is given, and that number itself), every contender runs one worker per core (the
//! thread-per-core servers one ring or runtime per core, each with its own `SO_REUSEPORT`
//! listener; tokio_server its current-thread scheduler on one core, the multi-thread one
//! from two) and is driven flat out by kept-alive small requests,
//! [`CONNECTIONS_PER_CORE`] connections per core, from the client CPUs. A saturated closed
//! loop's figures are taken at the pace the server and client reach together, not at a
//! fixed rate; a point whose client was at least 90% busy shows the client's pace, and
//! says so.

use serde::{Deserialize, Serialize};

use harness::affinity::CpuSet;
use harness::load::Point;
use harness::machine::Machine;
use harness::servers::{CONTENDERS, Contender, SCHEDULER};

pub mod report;

/// Kept-alive connections per server core: enough to keep every worker busy.
pub const CONNECTIONS_PER_CORE: usize = 64;

/// The contenders at every core count: ours, the ready runtimes and tokio's default
/// scheduler (nginx's anchor runs one worker, so it does not scale here).
pub fn contenders() -> Vec<Contender> {
    CONTENDERS.iter().chain(&SCHEDULER).copied().collect()
}

/// The core counts a run with `server_cpus` measures: powers of two below their number,
/// then their number.
pub fn core_counts(server_cpus: usize) -> Vec<usize> {
    let mut counts: Vec<usize> = std::iter::successors(Some(1usize), |n| n.checked_mul(2))
        .take_while(|&n| n < server_cpus)
        .collect();
    counts.push(server_cpus.max(1));
    counts
}

/// The first `cores` CPUs of `server`, where a point with that many cores runs.
pub fn first_cpus(server: &CpuSet, cores: usize) -> CpuSet {
    CpuSet(server.0.iter().copied().take(cores).collect())
}

/// One contender at one core count in one round (its slices merged).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Sample {
    pub cores: usize,
    pub contender: String,
    pub label: String,
    pub round: usize,
    pub requests_per_sec: f64,
    pub server_cpu_us_per_request: Option<f64>,
    /// The client's CPU over the point's wall time and its CPUs (1.0: saturated).
    pub client_busy: f64,
}

impl Sample {
    pub fn of(cores: usize, round: usize, point: &Point) -> Sample {
        Sample {
            cores,
            contender: point.contender.clone(),
            label: point.label.clone(),
            round,
            requests_per_sec: point.requests_per_sec,
            server_cpu_us_per_request: point.server_cpu_us_per_request,
            client_busy: point.client_busy,
        }
    }
}

/// The study's run: where it ran, how, and every sample.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ScalingReport {
    pub machine: Machine,
    /// The whole split the run was given (the server CPUs the largest count uses).
    pub pinning: String,
    /// The server CPUs the run was given, and the client's.
    pub server_cpus: usize,
    pub client_cpus: usize,
    pub rounds: usize,
    pub seconds_per_point: f64,
    pub slices: usize,
    pub counts: Vec<usize>,
    pub samples: Vec<Sample>,
}

impl ScalingReport {
    /// The contenders measured, in the order first seen: (id, label).
    pub fn contenders(&self) -> Vec<(String, String)> {
        harness::rounds::first_seen(
            self.samples
                .iter()
                .map(|s| (s.contender.clone(), s.label.clone())),
        )
    }

    /// `contender`'s samples at `cores`.
    pub fn at(&self, contender: &str, cores: usize) -> impl Iterator<Item = &Sample> {
        self.samples
            .iter()
            .filter(move |s| s.contender == contender && s.cores == cores)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_core_counts_double_up_to_the_cpus_given_and_end_on_them() {
        assert_eq!(core_counts(1), vec![1]);
        assert_eq!(core_counts(2), vec![1, 2]);
        assert_eq!(core_counts(6), vec![1, 2, 4, 6]);
        assert_eq!(core_counts(8), vec![1, 2, 4, 8]);
        assert_eq!(core_counts(0), vec![1]);
    }

    #[test]
    fn a_count_runs_on_the_first_cpus_of_the_server_set() {
        let set = CpuSet(vec![4, 5, 6, 7]);
        assert_eq!(first_cpus(&set, 2), CpuSet(vec![4, 5]));
        assert_eq!(first_cpus(&set, 4), set);
    }
}

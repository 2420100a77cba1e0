//! The large-body study: every contender echoes 64 KiB and 1 MiB bodies, each sent with
//! Content-Length and chunked in 512-byte pieces, over rounds of freshly started
//! servers whose order is balanced (no one always runs first), with an A/A control. The measure
//! is server CPU per request; the ratios are taken within a round, since only figures
//! from the same period of this machine compare.

use serde::Serialize;

use harness::load::Post;
use harness::machine::Machine;
pub use harness::rounds::{median, spread};
use harness::servers::{AA_CONTROL, Contender, IO_URING, TOKIO_CODEC, TOKIO_HYPER};

pub mod report;

/// Bytes per chunk of the chunked workloads.
pub const CHUNK: usize = 512;

/// One body workload.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Workload {
    pub name: &'static str,
    pub post: Post,
    pub connections: usize,
}

pub const WORKLOADS: [Workload; 4] = [
    Workload {
        name: "64 KiB echo",
        post: Post {
            bytes: 64 << 10,
            chunk: None,
        },
        connections: 16,
    },
    Workload {
        name: "64 KiB echo, chunked",
        post: Post {
            bytes: 64 << 10,
            chunk: Some(CHUNK),
        },
        connections: 16,
    },
    Workload {
        name: "1 MiB echo",
        post: Post {
            bytes: 1 << 20,
            chunk: None,
        },
        connections: 4,
    },
    Workload {
        name: "1 MiB echo, chunked",
        post: Post {
            bytes: 1 << 20,
            chunk: Some(CHUNK),
        },
        connections: 4,
    },
];

/// The contender whose ratios the study reports, and those it is compared with.
pub const SUBJECT: Contender = IO_URING;
/// The last is the A/A control, a second process of the subject: the rule must find them tied.
pub const BASELINES: [Contender; 3] = [TOKIO_HYPER, TOKIO_CODEC, AA_CONTROL];

/// One contender's figures for one workload in one round.
#[derive(Debug, Clone, Serialize)]
pub struct Sample {
    pub workload: &'static str,
    pub contender: String,
    pub label: String,
    pub round: usize,
    pub requests_per_sec: f64,
    pub server_cpu_us_per_request: Option<f64>,
    /// The whole machine's CPU per request over the same run ([`harness::machine_cpu`]).
    #[serde(default)]
    pub machine_cpu_us_per_request: Option<f64>,
    pub bottleneck: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct BodiesReport {
    pub machine: Machine,
    pub pinning: String,
    pub rounds: usize,
    /// Slices each point was cut into, alternated between the servers
    /// ([`harness::slices`]); 0 in reports from before slices (one go).
    #[serde(default)]
    pub slices: usize,
    pub seconds_per_point: f64,
    pub samples: Vec<Sample>,
}

impl BodiesReport {
    /// Server CPU µs per request of `contender` at `workload`, by round.
    pub fn cpu(&self, workload: &str, contender: &str) -> Vec<Option<f64>> {
        (0..self.rounds)
            .map(|round| {
                self.samples
                    .iter()
                    .find(|s| s.workload == workload && s.contender == contender && s.round == round)
                    .and_then(|s| s.server_cpu_us_per_request)
            })
            .collect()
    }

    /// `a / b` per round, for the rounds where both were measured.
    pub fn ratios(&self, (workload_a, a): (&str, &str), (workload_b, b): (&str, &str)) -> Vec<f64> {
        harness::rounds::ratios(&self.cpu(workload_a, a), &self.cpu(workload_b, b))
    }

    /// The contenders in the order they were first measured.
    pub fn contenders(&self) -> Vec<(String, String)> {
        let mut seen: Vec<(String, String)> = Vec::new();
        for s in &self.samples {
            if !seen.iter().any(|(id, _)| *id == s.contender) {
                seen.push((s.contender.clone(), s.label.clone()));
            }
        }
        seen
    }
}

/// Each workload sent with Content-Length, paired with the same body sent chunked.
pub fn chunked_pairs() -> impl Iterator<Item = (Workload, Workload)> {
    WORKLOADS
        .into_iter()
        .filter(|w| w.post.chunk.is_none())
        .filter_map(|plain| {
            WORKLOADS
                .into_iter()
                .find(|w| w.post.chunk.is_some() && w.post.bytes == plain.post.bytes)
                .map(|chunked| (plain, chunked))
        })
}

/// `64 KiB`, `1 MiB`: a body size for headings.
pub fn size_text(bytes: usize) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} B"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_plain_body_has_its_chunked_twin() {
        let sizes: Vec<String> = chunked_pairs()
            .map(|(plain, _)| size_text(plain.post.bytes))
            .collect();
        assert_eq!(sizes, ["64 KiB", "1 MiB"]);
    }
}

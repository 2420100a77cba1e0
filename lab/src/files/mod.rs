//! The file study: every contender, nginx (sendfile) as the outside anchor and an A/A
//! control serve `GET /files/{name}` from the study corpus (`http_core::files::CORPUS`),
//! each request a file of one set picked uniformly at random, at 4 KiB, 64 KiB and 1 MiB,
//! with the set's pages cached (hot) or dropped (cold), at 16 and 256 connections. Rounds
//! of freshly started servers in a balanced order, each point cut into slices alternated
//! between the servers; the measure is server CPU per request (every thread of the
//! process), beside requests/s, latency, the bytes the server read from disk and the most
//! threads it ran. The ratios are taken within a round.

use serde::{Deserialize, Serialize};

use harness::load::Point;
use harness::machine::Machine;
use harness::process_watch::Watched;
pub use harness::rounds::{median, spread};
use harness::servers::{
    AA_CONTROL, CONTENDERS, Contender, IO_URING, NGINX, TOKIO_CODEC, TOKIO_CODEC_IO_URING_FS,
    TOKIO_CODEC_SENDFILE, TOKIO_HYPER, TOKIO_HYPER_IO_URING_FS, io_uring_with,
};
use http_core::files::{CORPUS, CorpusSet};

pub use crate::bodies::size_text;

pub mod report;
#[cfg(test)]
mod report_tests;
mod tables;

/// The page cache's state for a point's set, set up right before each slice of each
/// server (outside the measured window).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Cache {
    /// Every file of the set read once: its pages are cached.
    Hot,
    /// `posix_fadvise(POSIX_FADV_DONTNEED)` on every file of the set: its pages dropped.
    Cold,
}

impl Cache {
    pub fn name(self) -> &'static str {
        match self {
            Cache::Hot => "hot",
            Cache::Cold => "cold",
        }
    }
}

/// One point: files of one corpus set, in one cache state, at one connection count
/// (closed loop: each connection asks for its next file when the last has arrived).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Workload {
    pub set: CorpusSet,
    pub cache: Cache,
    pub connections: usize,
}

impl Workload {
    /// "4 KiB hot, 256 connections".
    pub fn name(&self) -> String {
        format!(
            "{} {}, {} connections",
            size_text(self.set.size),
            self.cache.name(),
            self.connections
        )
    }
}

/// `name` ("4 KiB hot, 256 connections", the key in the results) as the tables show it:
/// "4 KiB files, hot, closed loop, 256 connections", so it reads as the load it is, not as
/// the verdict's fixed-rate *4 KiB files* row (one name, one workload).
pub fn label(name: &str) -> String {
    for cache in [Cache::Hot, Cache::Cold] {
        if let Some((size, rest)) = name.split_once(&format!(" {}, ", cache.name())) {
            return format!("{size} files, {}, closed loop, {rest}", cache.name());
        }
    }
    name.to_string()
}

/// The connection counts every set and cache state is measured at.
pub const CONNECTIONS: [usize; 2] = [16, 256];

/// Every point, by set, then cache state, then connections: 12.
pub fn plan() -> Vec<Workload> {
    let mut plan = Vec::new();
    for set in CORPUS {
        for cache in [Cache::Hot, Cache::Cold] {
            for connections in CONNECTIONS {
                plan.push(Workload {
                    set,
                    cache,
                    connections,
                });
            }
        }
    }
    plan
}

/// The contender whose targets the study reports.
pub const SUBJECT: Contender = IO_URING;
/// Its baselines in the verdict cells: tokio's engines (tokio's io_uring file path among
/// them, so the report says where the hand-rolled loop is ahead of it), the two controls
/// of its sendfile path (tokio sending files the same way: what io_uring adds beyond
/// zero-copy; its own read path: what sendfile adds); the last is the A/A control.
pub const BASELINES: [Contender; 6] = [
    TOKIO_CODEC,
    TOKIO_CODEC_SENDFILE,
    TOKIO_CODEC_IO_URING_FS,
    TOKIO_HYPER,
    IO_URING_READS,
    AA_CONTROL,
];

/// tokio's io_uring fs path beside its epoll twin: `(io-uring-fs contender, twin)`, the
/// same engine built with `--cfg tokio_unstable` and tokio's `io-uring` feature.
pub const FS_TWINS: [(Contender, Contender); 2] = [
    (TOKIO_CODEC_IO_URING_FS, TOKIO_CODEC),
    (TOKIO_HYPER_IO_URING_FS, TOKIO_HYPER),
];

/// io_uring_server reading every file through the ring (`--no-sendfile`): the copy path
/// its sendfile path replaces for large cached files, so the report shows what that buys.
pub const IO_URING_READS: Contender = io_uring_with(
    "io_uring_server reading files (--no-sendfile)",
    &["--no-sendfile"],
);

/// The study's servers: every contender, the io-uring-fs contenders ([`FS_TWINS`]), the
/// codec engine's sendfile ([`TOKIO_CODEC_SENDFILE`]), io_uring_server's read path
/// ([`IO_URING_READS`]) and the A/A control (nginx joins when
/// installed: `with_anchors`).
pub fn lineup() -> Vec<Contender> {
    let mut all = CONTENDERS.to_vec();
    all.extend(FS_TWINS.iter().map(|(fs, _)| *fs));
    all.push(TOKIO_CODEC_SENDFILE);
    all.push(IO_URING_READS);
    all.push(AA_CONTROL);
    all
}

/// `lineup` narrowed to the contenders named by the comma-separated `filter`: each word
/// an id (`io_uring`, `tokio_codec`, `nginx`, ...) or `aa` for the A/A control (all of
/// them without a filter).
pub fn only_servers(lineup: Vec<Contender>, filter: Option<&str>) -> Vec<Contender> {
    let Some(filter) = filter else {
        return lineup;
    };
    let words: Vec<&str> = filter
        .split(',')
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .collect();
    lineup
        .into_iter()
        .filter(|c| {
            words
                .iter()
                .any(|&w| w == c.id || (w == "aa" && c.id == AA_CONTROL.id))
        })
        .collect()
}

/// One contender's figures at one point in one round (its slices merged).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Sample {
    pub workload: String,
    pub set: String,
    pub file_bytes: usize,
    pub cache: Cache,
    pub connections: usize,
    pub contender: String,
    pub label: String,
    pub round: usize,
    pub requests: u64,
    pub requests_per_sec: f64,
    pub server_cpu_us_per_request: Option<f64>,
    pub p50_us: u64,
    pub p99_us: u64,
    /// Bytes the server read from disk over the point, its slices together; `None` for
    /// a server not started here.
    pub watched: Option<Watched>,
    pub bottleneck: String,
}

impl Sample {
    /// The sample of `point` (a contender's slices of `workload` merged) in `round`, with
    /// what was watched of the server meanwhile.
    pub fn of(workload: &Workload, round: usize, point: &Point, watched: Option<Watched>) -> Sample {
        Sample {
            workload: workload.name(),
            set: workload.set.label.into(),
            file_bytes: workload.set.size,
            cache: workload.cache,
            connections: workload.connections,
            contender: point.contender.clone(),
            label: point.label.clone(),
            round,
            requests: point.requests_in_window,
            requests_per_sec: point.requests_per_sec,
            server_cpu_us_per_request: point.server_cpu_us_per_request,
            p50_us: point.latency_us.p50,
            p99_us: point.latency_us.p99,
            watched,
            bottleneck: point.bottleneck.clone(),
        }
    }

    /// How busy the client was over the point (1.0: saturated), as its bottleneck line
    /// says it (`harness::usage`: "..., client N% busy"); `None` where the line has none.
    pub fn client_busy(&self) -> Option<f64> {
        let (_, rest) = self.bottleneck.rsplit_once("client ")?;
        let percent: f64 = rest.split('%').next()?.trim().parse().ok()?;
        Some(percent / 100.0)
    }

    /// Of the bytes the server sent as file bodies, the share it read from disk.
    pub fn from_disk(&self) -> Option<f64> {
        let served = self.requests as f64 * self.file_bytes as f64;
        let watched = self.watched?;
        (served > 0.0).then(|| watched.disk_read_bytes as f64 / served)
    }
}

/// An io-uring-fs contender and its epoll twin, by id, as the run measured them.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Twin {
    pub io_uring_fs: String,
    pub epoll: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FilesReport {
    pub machine: Machine,
    pub pinning: String,
    pub rounds: usize,
    pub slices: usize,
    pub seconds_per_point: f64,
    /// Round `r` draws its files from seed `seed + r`.
    pub seed: u64,
    pub twins: Vec<Twin>,
    pub samples: Vec<Sample>,
}

impl FilesReport {
    /// Server CPU µs per request of `contender` at `workload`, by round.
    pub fn cpu(&self, workload: &str, contender: &str) -> Vec<Option<f64>> {
        (0..self.rounds)
            .map(|round| {
                self.sample(workload, contender, round)
                    .and_then(|s| s.server_cpu_us_per_request)
            })
            .collect()
    }

    pub fn sample(&self, workload: &str, contender: &str, round: usize) -> Option<&Sample> {
        self.samples
            .iter()
            .find(|s| s.workload == workload && s.contender == contender && s.round == round)
    }

    /// `a / b` of CPU per request at `workload`, per round where both were measured.
    pub fn ratios(&self, workload: &str, a: &str, b: &str) -> Vec<f64> {
        harness::rounds::ratios(&self.cpu(workload, a), &self.cpu(workload, b))
    }

    /// How busy the client was, the most in any round, where it reached
    /// [`harness::usage::CLIENT_SATURATED`] while `a` or `b` served `workload`: the closed loop then ran
    /// at the client's pace, so their CPU per request is no cost to compare (the verdict's
    /// client-bound rule); `None`: the rule decides.
    pub fn client_bound(&self, workload: &str, (a, b): (&str, &str)) -> Option<f64> {
        harness::workload::client_bound::busiest(
            self.samples
                .iter()
                .filter(|s| s.workload == workload && (s.contender == a || s.contender == b))
                .filter_map(Sample::client_busy),
        )
    }

    /// The median over rounds of `contender`'s CPU per request at `workload`.
    pub fn median_cpu(&self, workload: &str, contender: &str) -> Option<f64> {
        let measured: Vec<f64> = self.cpu(workload, contender).into_iter().flatten().collect();
        median(&measured)
    }

    /// The contenders in the order first measured, as (id, label).
    pub fn contenders(&self) -> Vec<(String, String)> {
        harness::rounds::first_seen(
            self.samples
                .iter()
                .map(|s| (s.contender.clone(), s.label.clone())),
        )
    }

    /// The workloads in the order measured.
    pub fn workloads(&self) -> Vec<String> {
        harness::rounds::first_seen(self.samples.iter().map(|s| s.workload.clone()))
    }

    /// Whether nginx was measured.
    pub fn has_nginx(&self) -> bool {
        self.samples.iter().any(|s| s.contender == NGINX.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_covers_every_size_cache_state_and_connection_count() {
        let names: Vec<String> = plan().iter().map(Workload::name).collect();
        assert_eq!(names.len(), 12);
        assert_eq!(names[0], "4 KiB hot, 16 connections");
        assert_eq!(names[3], "4 KiB cold, 256 connections");
        assert_eq!(names[11], "1 MiB cold, 256 connections");
    }

    #[test]
    fn the_lineup_has_every_contender_and_the_control_and_filters_by_id() {
        let ids: Vec<&str> = lineup().iter().map(|c| c.id).collect();
        assert_eq!(ids.len(), CONTENDERS.len() + FS_TWINS.len() + 3);
        assert!(ids.contains(&TOKIO_CODEC_SENDFILE.id) && ids.contains(&IO_URING_READS.id));
        assert_eq!(ids.last(), Some(&AA_CONTROL.id));
        let some = only_servers(lineup(), Some("tokio_codec, io_uring"));
        let ids: Vec<&str> = some.iter().map(|c| c.id).collect();
        assert_eq!(ids, ["tokio_codec", "io_uring"], "tokio_uring is not io_uring");
        assert_eq!(only_servers(lineup(), Some("aa")), [AA_CONTROL]);
        assert_eq!(only_servers(lineup(), None).len(), lineup().len());
        assert_eq!(only_servers(vec![NGINX], Some("nginx")), [NGINX]);
    }
}

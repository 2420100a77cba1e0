//! What a run is configured by: the environment variables users set, with their defaults.
//!
//! | variable | default | meaning |
//! |---|---|---|
//! | `BENCH_PROFILE` | `quick` | `full` measures longer (see [`Timing`]) |
//! | `BENCH_SERVER_CPUS` | `0` | CPUs the servers are pinned to (one server thread per CPU) |
//! | `BENCH_CLIENT_CPUS` | every other CPU | CPUs the bench's client runs on |
//! | `BENCH_TOKIO_URL`, `BENCH_TOKIO_CODEC_URL`, `BENCH_URING_URL`, `BENCH_TOKIO_URING_URL` | unset | bench a server you started yourself instead of starting one |

use std::net::SocketAddr;
use std::time::Duration;

use crate::affinity::CpuSet;

/// criterion's timing settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timing {
    pub profile: &'static str,
    pub warm_up: Duration,
    pub measurement: Duration,
    pub sample_size: usize,
    /// criterion's bootstrap resamples; its default (100,000) costs seconds per benchmark.
    pub resamples: usize,
}

impl Timing {
    /// `cargo bench`'s default: with the build, within 10 minutes on a fresh clone of a
    /// 2-CPU machine (the short verdict's rounds are the decision; these passes only
    /// describe).
    pub const QUICK: Timing = Timing {
        profile: "quick",
        warm_up: Duration::from_millis(300),
        measurement: Duration::from_secs(1),
        sample_size: 20,
        resamples: 10_000,
    };
    pub const FULL: Timing = Timing {
        profile: "full",
        warm_up: Duration::from_secs(3),
        measurement: Duration::from_secs(15),
        sample_size: 60,
        resamples: 100_000,
    };

    pub fn from_env() -> Timing {
        match std::env::var("BENCH_PROFILE").as_deref() {
            Ok("full") => Timing::FULL,
            _ => Timing::QUICK,
        }
    }
}

/// Where servers and client run. `None` sets mean no pinning (a 1-CPU machine).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pinning {
    pub server: Option<CpuSet>,
    pub client: Option<CpuSet>,
    /// Why the run is not pinned, for the report's warning.
    pub warning: Option<String>,
    /// The servers run on another host, started by its agent at this address on these
    /// CPUs of that host (`server` is then `None`: nothing here is pinned for them).
    pub remote: Option<(SocketAddr, CpuSet)>,
}

impl Pinning {
    pub fn from_env() -> Result<Pinning, String> {
        let available = CpuSet::current();
        let read = |name: &str| std::env::var(name).ok().map(|v| CpuSet::parse(&v)).transpose();
        let (server, client) = (read("BENCH_SERVER_CPUS")?, read("BENCH_CLIENT_CPUS")?);
        Ok(Pinning::choose(&available, server, client))
    }

    /// Server on the first available CPU and client on the rest, unless overridden; no
    /// pinning at all with one CPU.
    pub fn choose(available: &CpuSet, server: Option<CpuSet>, client: Option<CpuSet>) -> Pinning {
        if available.0.len() < 2 && server.is_none() && client.is_none() {
            let warning = "only one CPU is available: server and client share it, so every figure \
                           includes the other side's work";
            return Pinning {
                server: None,
                client: None,
                warning: Some(warning.into()),
                remote: None,
            };
        }
        let server = server.unwrap_or_else(|| CpuSet(vec![available.0[0]]));
        let client = client.unwrap_or_else(|| {
            let rest: Vec<usize> = available
                .0
                .iter()
                .copied()
                .filter(|c| !server.0.contains(c))
                .collect();
            CpuSet(if rest.is_empty() {
                available.0.clone()
            } else {
                rest
            })
        });
        let warning = server
            .0
            .iter()
            .any(|c| client.0.contains(c))
            .then(|| "server and client CPUs overlap".to_string());
        Pinning {
            server: Some(server),
            client: Some(client),
            warning,
            remote: None,
        }
    }

    /// The servers on another host, started by the agent at `agent` on `cpus` of that
    /// host; the client here on `client` (default: every CPU this process may use).
    pub fn remote(agent: SocketAddr, cpus: CpuSet, client: Option<CpuSet>) -> Pinning {
        Pinning {
            server: None,
            client: Some(client.unwrap_or_else(CpuSet::current)),
            warning: None,
            remote: Some((agent, cpus)),
        }
    }

    /// CPUs the client runs on: the client set, or every CPU this process may use.
    pub fn client_cpus(&self) -> usize {
        self.client
            .as_ref()
            .map_or_else(|| CpuSet::current().0.len(), |set| set.0.len())
    }

    /// CPUs the servers run on (one thread each), here or on the agent's host; 1 when not
    /// pinned.
    pub fn server_cpus(&self) -> usize {
        match &self.remote {
            Some((_, cpus)) => cpus.0.len(),
            None => self.server.as_ref().map_or(1, |set| set.0.len()),
        }
    }

    /// Pins the calling thread (the bench's client) to the client CPUs, if any.
    pub fn pin_client(&self) -> Result<(), String> {
        match &self.client {
            Some(client) => client
                .pin_current_thread()
                .map_err(|e| format!("cannot pin the client to CPU {client}: {e}")),
            None => Ok(()),
        }
    }

    pub fn describe(&self) -> String {
        if let (Some((agent, cpus)), Some(client)) = (&self.remote, &self.client) {
            return format!(
                "server on CPU {cpus} of the host of the agent at {agent}, client on CPU {client} here"
            );
        }
        match (&self.server, &self.client) {
            (Some(server), Some(client)) => format!("server on CPU {server}, client on CPU {client}"),
            _ => "not pinned".to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_pinning_splits_server_from_client() {
        let pinning = Pinning::choose(&CpuSet(vec![0, 1, 2]), None, None);
        assert_eq!(pinning.server, Some(CpuSet(vec![0])));
        assert_eq!(pinning.client, Some(CpuSet(vec![1, 2])));
        assert_eq!(pinning.warning, None);
    }

    #[test]
    fn one_cpu_means_no_pinning_and_a_warning() {
        let pinning = Pinning::choose(&CpuSet(vec![0]), None, None);
        assert_eq!((pinning.server, pinning.client), (None, None));
        assert!(pinning.warning.is_some());
    }

    #[test]
    fn overrides_win_and_overlap_is_flagged() {
        let pinning = Pinning::choose(&CpuSet(vec![0, 1]), Some(CpuSet(vec![1])), Some(CpuSet(vec![1])));
        assert_eq!(pinning.server, Some(CpuSet(vec![1])));
        assert!(pinning.warning.unwrap().contains("overlap"));
    }
}

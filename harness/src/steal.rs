//! Steal time: how long the hypervisor ran something else while a CPU of this guest
//! wanted to run (`/proc/stat`, the `cpuN` lines' eighth figure, in 10 ms ticks). Read
//! for the server's and the client's CPUs around a point, as a share of the point's wall
//! time; a point above [`STEAL_LIMIT`] measured the neighbours as much as the servers.
//! A failed or unreadable read is an error, never zero.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::affinity::CpuSet;
use crate::machine_cpu::TICK;
use crate::settings::Pinning;

/// Above this share of wall time stolen, a point should be measured again.
pub const STEAL_LIMIT: f64 = 0.05;

/// Share of the point's wall time stolen from the server's and the client's CPUs
/// (averaged over the CPUs of each set).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Steal {
    pub server: f64,
    pub client: f64,
}

impl Steal {
    /// The larger of the two shares.
    pub fn worst(&self) -> f64 {
        self.server.max(self.client)
    }

    /// Whether the point should be measured again.
    pub fn too_high(&self) -> bool {
        self.worst() > STEAL_LIMIT
    }
}

/// Steal ticks of the server's and the client's CPUs at the start of a point.
pub struct StealWatch {
    server: Vec<usize>,
    client: Vec<usize>,
    before: (u64, u64),
    start: Instant,
}

impl StealWatch {
    /// Reads the steal of the CPUs `pinning` names (every CPU of this process where it
    /// names none).
    pub fn start(pinning: &Pinning) -> Result<StealWatch, String> {
        let cpus = |set: &Option<CpuSet>| set.clone().unwrap_or_else(CpuSet::current).0;
        let (server, client) = (cpus(&pinning.server), cpus(&pinning.client));
        let before = (read_ticks(&server)?, read_ticks(&client)?);
        Ok(StealWatch {
            server,
            client,
            before,
            start: Instant::now(),
        })
    }

    /// Reads the steal of every CPU this process may use: for a whole run.
    pub fn start_all() -> Result<StealWatch, String> {
        StealWatch::start(&Pinning {
            server: None,
            client: None,
            warning: None,
            remote: None,
        })
    }

    /// The share of wall time stolen since [`StealWatch::start`].
    pub fn read(&self) -> Result<Steal, String> {
        let after = (read_ticks(&self.server)?, read_ticks(&self.client)?);
        let wall = self.start.elapsed();
        Ok(Steal {
            server: share(after.0.saturating_sub(self.before.0), self.server.len(), wall),
            client: share(after.1.saturating_sub(self.before.1), self.client.len(), wall),
        })
    }
}

/// `ticks` of steal spread over `cpus` CPUs, as a share of `wall`.
fn share(ticks: u64, cpus: usize, wall: Duration) -> f64 {
    let stolen = TICK.as_secs_f64() * ticks as f64;
    stolen / (wall.as_secs_f64() * cpus.max(1) as f64).max(1e-9)
}

/// The steal ticks of `cpus`, summed, read from `/proc/stat`.
fn read_ticks(cpus: &[usize]) -> Result<u64, String> {
    let path = "/proc/stat";
    let stat = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    cpus.iter()
        .map(|&cpu| steal_ticks(&stat, cpu).map_err(|e| format!("{path}: {e}")))
        .sum()
}

/// The steal ticks of `cpu` in the text of `/proc/stat`.
pub fn steal_ticks(stat: &str, cpu: usize) -> Result<u64, String> {
    let name = format!("cpu{cpu}");
    let line = stat
        .lines()
        .find(|line| line.split_whitespace().next() == Some(name.as_str()))
        .ok_or_else(|| format!("no {name} line"))?;
    // user nice system idle iowait irq softirq steal: steal is the eighth figure.
    line.split_whitespace()
        .nth(8)
        .and_then(|ticks| ticks.parse().ok())
        .ok_or_else(|| format!("no steal figure in {line:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const STAT: &str = "cpu  1098168 166459 977814 3108565 504307 0 354734 9342 0 0\n\
                        cpu0 470976 77760 475637 1542391 366406 0 165682 4612 0 0\n\
                        cpu1 627192 88699 502176 1566173 137900 0 189052 4730 0 0\n\
                        cpu10 1 2 3 4 5 6 7 99 0 0\n\
                        intr 12345\n";

    #[test]
    fn reads_the_steal_column_of_the_named_cpu() {
        assert_eq!(steal_ticks(STAT, 0), Ok(4612));
        assert_eq!(steal_ticks(STAT, 1), Ok(4730));
        assert_eq!(steal_ticks(STAT, 10), Ok(99));
        assert!(steal_ticks(STAT, 2).unwrap_err().contains("no cpu2 line"));
        assert!(
            steal_ticks("cpu0 1 2 3\n", 0)
                .unwrap_err()
                .contains("no steal figure")
        );
    }

    #[test]
    fn steal_is_a_share_of_wall_time_per_cpu() {
        // 30 ticks (300 ms) over 2 CPUs in 3 s: 5% of each CPU's time.
        assert!((share(30, 2, Duration::from_secs(3)) - 0.05).abs() < 1e-12);
        let steal = Steal {
            server: 0.01,
            client: 0.06,
        };
        assert!((steal.worst() - 0.06).abs() < 1e-12 && steal.too_high());
        assert!(
            !Steal {
                server: 0.05,
                client: 0.0
            }
            .too_high()
        );
    }

    #[test]
    fn a_watch_reads_this_machines_cpus_and_a_missing_cpu_is_an_error() {
        let pinning = Pinning::choose(&CpuSet::current(), None, None);
        let steal = StealWatch::start(&pinning).unwrap().read().unwrap();
        assert!(steal.server >= 0.0 && steal.client >= 0.0);
        let missing = Pinning {
            server: Some(CpuSet(vec![4095])),
            ..pinning
        };
        assert!(
            StealWatch::start(&missing)
                .err()
                .unwrap()
                .contains("no cpu4095 line")
        );
    }
}

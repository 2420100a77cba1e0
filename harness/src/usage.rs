//! What one measured run cost each side: requests, wall time and CPU time of the server
//! and of the client, and from them CPU per request and which side was the bottleneck.

use serde::{Deserialize, Serialize};

/// Work done by both sides over one run (for `cargo bench`, inside criterion's timed
/// routine, warm-up included, criterion's own analysis excluded).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    pub requests: u64,
    pub wall_s: f64,
    /// `None` for a server the bench did not start.
    pub server_cpu_s: Option<f64>,
    pub client_cpu_s: f64,
    /// Every CPU's busy time, all CPUs together, less the machine's idle baseline
    /// ([`crate::machine_cpu::net_of_idle`]); `None` when that could not be read.
    pub machine_cpu_s: Option<f64>,
    pub server_cpus: usize,
    pub client_cpus: usize,
}

/// A side counts as the bottleneck when its CPUs are at least this busy.
const SATURATED: f64 = 0.8;

/// The client counts as saturated, for reading an open loop's send lateness, when its
/// CPUs are at least this busy.
pub const CLIENT_SATURATED: f64 = 0.9;

/// Whose lateness an open loop's late sends are: the client's only where its CPUs were
/// saturated ([`CLIENT_SATURATED`]); otherwise a request left late because the answers
/// before it had not come back (every connection busy), the server's backlog.
pub fn lateness_cause(client_busy: f64) -> &'static str {
    if client_busy >= CLIENT_SATURATED {
        "client saturated"
    } else {
        "server backlog"
    }
}

impl Usage {
    /// Two runs' work as one: their requests, wall and CPU times added (a figure one of
    /// them lacks is unknown for both).
    pub fn plus(self, other: Usage) -> Usage {
        let sum = |a: Option<f64>, b: Option<f64>| Some(a? + b?);
        Usage {
            requests: self.requests + other.requests,
            wall_s: self.wall_s + other.wall_s,
            server_cpu_s: sum(self.server_cpu_s, other.server_cpu_s),
            client_cpu_s: self.client_cpu_s + other.client_cpu_s,
            machine_cpu_s: sum(self.machine_cpu_s, other.machine_cpu_s),
            ..self
        }
    }

    pub fn server_us_per_request(&self) -> Option<f64> {
        self.server_cpu_s
            .map(|cpu| cpu * 1e6 / self.requests.max(1) as f64)
    }

    pub fn client_us_per_request(&self) -> f64 {
        self.client_cpu_s * 1e6 / self.requests.max(1) as f64
    }

    /// The whole machine's CPU per request: server, client and kernel on every CPU.
    pub fn machine_us_per_request(&self) -> Option<f64> {
        self.machine_cpu_s
            .map(|cpu| cpu * 1e6 / self.requests.max(1) as f64)
    }

    /// The client's CPU time over the wall time and its CPUs (1.0: all of them busy).
    pub fn client_busy(&self) -> f64 {
        self.client_cpu_s / (self.wall_s * self.client_cpus.max(1) as f64)
    }

    /// Which side limited the run, from how busy each side's CPUs were.
    pub fn bottleneck(&self) -> String {
        let busy = |cpu: f64, cpus: usize| cpu / (self.wall_s * cpus.max(1) as f64);
        let client = self.client_busy();
        let Some(server) = self.server_cpu_s.map(|cpu| busy(cpu, self.server_cpus)) else {
            return format!("unknown (external server; client {:.0}% busy)", client * 100.0);
        };
        let both = format!(
            "server {:.0}%, client {:.0}% busy",
            server * 100.0,
            client * 100.0
        );
        match (server >= SATURATED, client >= SATURATED) {
            (true, false) => format!("server ({both})"),
            (false, true) => format!("client ({both})"),
            (true, true) if server >= client => format!("server ({both})"),
            (true, true) => format!("client ({both})"),
            (false, false) => format!("neither: round trips ({both})"),
        }
    }
}

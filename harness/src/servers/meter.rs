//! What a server has consumed, wherever it runs: read from `/proc` for a process started
//! on this host, or asked of the agent for one it started on the server host (the same
//! figures, read there from that host's `/proc`: `remote::protocol::ProcessUsage`). A
//! server we did not start has none. The certificate its HTTPS presents comes from the
//! same place: the harness's own, or the agent's.

use super::server::{Process, Server};
use super::tls;
use crate::cpu::Snapshot;
use crate::io_workers::IoWorkers;
use crate::process_watch::{reset_peak_rss, status_number};

impl Server {
    /// Its CPU time so far, every thread (exited ones included); `None` for a server we
    /// did not start.
    pub fn cpu_snapshot(&self) -> Option<Result<Snapshot, String>> {
        match self.process.as_ref()? {
            Process::Remote(server) => Some(server.usage(false).map(|usage| usage.cpu)),
            _ => self.pid().map(Snapshot::take),
        }
    }

    /// Its threads' voluntary context switches so far ([`crate::switches`]); `None` for a
    /// server on another host or one we did not start, or where they cannot be read.
    pub fn voluntary_switches(&self) -> Option<u64> {
        match self.process.as_ref()? {
            Process::Remote(_) => None,
            _ => crate::switches::voluntary(self.pid()?).ok(),
        }
    }

    /// Restarts its peak resident memory (VmHWM) from its size now, so that the next
    /// reading is the peak of what came in between.
    pub fn reset_peak_memory(&self) -> Result<(), String> {
        match self.process.as_ref() {
            Some(Process::Remote(server)) => server.usage(true).map(drop),
            _ => self.pid().map_or(Ok(()), reset_peak_rss),
        }
    }

    /// Its peak resident memory since the last [`Server::reset_peak_memory`], KiB.
    pub fn peak_memory_kib(&self) -> Option<Result<u64, String>> {
        match self.process.as_ref()? {
            Process::Remote(server) => Some(server.usage(false).map(|usage| usage.peak_rss_kib)),
            _ => self.pid().map(|pid| status_number(pid, "VmHWM")),
        }
    }

    /// Its resident memory now, KiB.
    pub fn memory_kib(&self) -> Option<Result<u64, String>> {
        match self.process.as_ref()? {
            Process::Remote(server) => Some(server.usage(false).map(|usage| usage.rss_kib)),
            _ => self.pid().map(|pid| status_number(pid, "VmRSS")),
        }
    }

    /// Its io_uring worker threads now; `None` where they cannot be read.
    pub fn io_workers(&self) -> Option<IoWorkers> {
        match self.process.as_ref()? {
            Process::Remote(server) => server.usage(false).ok().map(|usage| usage.io_workers),
            _ => self.pid().map(IoWorkers::of),
        }
    }

    /// The certificate (PEM) its HTTPS presents, which the client trusts alone: the
    /// agent's for a server on its host, else this process's ([`tls::identity`]).
    pub fn cert_pem(&self) -> Result<String, String> {
        match self.process.as_ref() {
            Some(Process::Remote(server)) => Ok(server.cert_pem()),
            _ => Ok(tls::identity()?.cert_pem.clone()),
        }
    }
}

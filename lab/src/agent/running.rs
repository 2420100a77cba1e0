//! The servers one session started, by pid: each started by the harness
//! ([`harness::servers::Server::start_at`]: pinned to the agent's CPUs, in a process group
//! of its own, the kernel's SIGTERM should the agent die), listening on the agent's IP,
//! and measured from `/proc` as a study measures its own ([`harness::cpu`],
//! [`harness::process_watch`], [`harness::io_workers`], perf's syscall count). A server
//! is stopped (SIGTERM to its process group, SIGKILL should it linger, and waited for)
//! when the study asks, and every one still running when the session ends: dropping a
//! [`Running`] stops them all.

use std::net::SocketAddr;

use harness::cpu::Snapshot;
use harness::io_workers::IoWorkers;
use harness::load::reset_peak_rss;
use harness::perf::SyscallCounter;
use harness::process_watch::{io_field, status_number};
use harness::remote::protocol::{Answer, Counting, ProcessUsage, Request, Started, Stopped, SyscallCount};
use harness::servers::Server;

use super::Agent;

/// The most servers one session may run at once. Default is 32.
pub const MAX_SERVERS: usize = 32;

/// The most threads a server may be asked to run. Default is 256.
pub const MAX_THREADS: usize = 256;

/// The servers of one session.
#[derive(Default)]
pub struct Running {
    servers: Vec<Hosted>,
}

/// One server, and its syscall count while one runs.
struct Hosted {
    server: Server,
    syscalls: Option<SyscallCounter>,
}

impl Hosted {
    fn is(&self, pid: u32) -> bool {
        self.server.pid() == Some(pid)
    }
}

impl Drop for Hosted {
    /// Ends the syscall count (perf) first; the server is stopped right after, as its
    /// field is dropped.
    fn drop(&mut self) {
        if let Some(counter) = self.syscalls.take() {
            let _ = counter.stop();
        }
    }
}

impl Running {
    /// Does what `request` asks; the answer, or why not.
    pub fn answer(&mut self, request: Request, agent: &Agent) -> Result<Answer, String> {
        match request {
            Request::Start {
                contender,
                port,
                threads,
            } => self.start(agent, &contender, port, threads).map(Answer::Started),
            Request::Usage { pid, reset_peak } => {
                self.find(pid)?;
                usage_of(pid, reset_peak).map(Answer::Usage)
            }
            Request::CountSyscalls { pid } => {
                let hosted = self.find(pid)?;
                if let Some(earlier) = hosted.syscalls.take() {
                    let _ = earlier.stop();
                }
                hosted.syscalls = SyscallCounter::start(pid);
                let counting = hosted.syscalls.is_some();
                Ok(Answer::Counting(Counting { counting }))
            }
            Request::Syscalls { pid } => {
                let counter = self.find(pid)?.syscalls.take();
                let counter = counter.ok_or_else(|| format!("pid {pid}: ask count_syscalls first"))?;
                let syscalls = counter.stop();
                Ok(Answer::Syscalls(SyscallCount { syscalls }))
            }
            Request::Stop { pid } => {
                self.find(pid)?;
                self.servers.retain(|hosted| !hosted.is(pid));
                eprintln!("agent: stopped pid {pid}");
                Ok(Answer::Stopped(Stopped { pid }))
            }
        }
    }

    /// Starts the server offered as `name` on `port` of the agent's IP (0: a free one).
    fn start(
        &mut self,
        agent: &Agent,
        name: &str,
        port: u16,
        threads: Option<usize>,
    ) -> Result<Started, String> {
        let contender = agent.offers.find(name)?;
        if self.servers.len() >= MAX_SERVERS {
            let full = format!("this session runs {MAX_SERVERS} servers already; stop one first");
            return Err(full);
        }
        let threads = threads.unwrap_or(agent.cpus.0.len());
        if !(1..=MAX_THREADS).contains(&threads) {
            return Err(format!("threads {threads}: from 1 to {MAX_THREADS}"));
        }
        let at = SocketAddr::new(agent.host, port);
        let settings = (threads, None, false);
        let server = Server::start_at(at, contender, &agent.binaries, Some(&agent.cpus), settings)?;
        let (Some(pid), Some(addr)) = (server.pid(), server.addr()) else {
            return Err(format!("{name} started with no process to measure"));
        };
        eprintln!("agent: started {name} (pid {pid}) on {addr}");
        self.servers.push(Hosted {
            server,
            syscalls: None,
        });
        Ok(Started { pid, addr })
    }

    /// The server `pid` of this session; never another process.
    fn find(&mut self, pid: u32) -> Result<&mut Hosted, String> {
        self.servers
            .iter_mut()
            .find(|hosted| hosted.is(pid))
            .ok_or_else(|| format!("no server with pid {pid} in this session"))
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if !self.servers.is_empty() {
            eprintln!("agent: stopping the session's {} servers", self.servers.len());
        }
    }
}

/// What process `pid` has consumed so far; with `reset_peak`, its peak memory restarts
/// after it is read.
fn usage_of(pid: u32, reset_peak: bool) -> Result<ProcessUsage, String> {
    let usage = ProcessUsage {
        cpu: Snapshot::take(pid)?,
        rss_kib: status_number(pid, "VmRSS")?,
        peak_rss_kib: status_number(pid, "VmHWM")?,
        threads: status_number(pid, "Threads")?,
        disk_read_bytes: io_field(pid, "read_bytes").ok(),
        io_workers: IoWorkers::of(pid),
    };
    if reset_peak {
        reset_peak_rss(pid)?;
    }
    Ok(usage)
}

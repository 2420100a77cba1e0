//! The servers one session started, by pid: each started by the harness
//! ([`harness::servers::Server::start_at`]: pinned to the agent's CPUs, in a process group
//! of its own, the kernel's SIGTERM should the agent die), listening on the agent's IP at
//! a port the agent picks, and measured from `/proc` as a study measures its own
//! ([`harness::cpu`], [`harness::process_watch`], [`harness::io_workers`], perf's syscall
//! count). A server is stopped (SIGTERM to its process group, then SIGKILL to what is
//! left of it, and waited for) when the study asks, and every one still running when the
//! session ends: dropping a [`Running`] tells them all first, then waits for them
//! together. The kernel's SIGTERM (`PR_SET_PDEATHSIG`) comes when the thread that started
//! a server ends, not only the process: the session's thread starts its servers and has
//! stopped them before it ends.

use harness::machine::Machine;
use harness::perf::SyscallCounter;
use harness::remote::protocol::{
    Answer, Counting, Hello, ProcessUsage, Request, Started, Stopped, SyscallCount,
};
use harness::servers::{Server, tls};

use super::{Agent, note};

/// The most servers one session may run at once. Default is 32.
pub const MAX_SERVERS: usize = 32;

/// The most threads a server may be asked to run. Default is 256.
pub const MAX_THREADS: usize = 256;

/// The most threads a session's servers may be asked to run together, per CPU the agent
/// pins them to. A study keeps a round's every server running while its points alternate
/// (the workloads study: up to 13 at one thread per CPU each). Default is 16.
pub const THREADS_PER_CPU: usize = 16;

/// The servers of one session.
#[derive(Default)]
pub struct Running {
    servers: Vec<Hosted>,
}

/// One server, the threads it was asked for, and its syscall count while one runs.
struct Hosted {
    server: Server,
    threads: usize,
    syscalls: Option<SyscallCounter>,
}

impl Hosted {
    fn is(&self, pid: u32) -> bool {
        self.server.pid() == Some(pid)
    }

    /// Ends the syscall count (perf), if one runs.
    fn stop_counting(&mut self) {
        if let Some(counter) = self.syscalls.take() {
            let _ = counter.stop();
        }
    }
}

impl Drop for Hosted {
    /// Ends the syscall count first; the server is stopped right after, as its field is
    /// dropped.
    fn drop(&mut self) {
        self.stop_counting();
    }
}

impl Running {
    /// Does what `request` asks; the answer, or why not.
    pub fn answer(&mut self, request: Request, agent: &Agent) -> Result<Answer, String> {
        match request {
            Request::Hello => Ok(Answer::Hello(Hello {
                cpus: agent.cpus.0.clone(),
                version: env!("CARGO_PKG_VERSION").to_string(),
                cert_pem: tls::identity()?.cert_pem.clone(),
                machine: Some(Machine::detect()),
            })),
            Request::Start {
                contender,
                port,
                threads,
                https,
                files,
            } => {
                let files = files.then(|| agent.files_dir()).transpose()?;
                let serving = (threads, files, https);
                self.start(agent, &contender, port, serving).map(Answer::Started)
            }
            Request::Usage { pid, reset_peak } => {
                self.find(pid)?;
                ProcessUsage::read(pid, reset_peak).map(Answer::Usage)
            }
            Request::CountSyscalls { pid } => {
                let hosted = self.find(pid)?;
                hosted.stop_counting();
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
                note(format_args!("stopped pid {pid}"));
                Ok(Answer::Stopped(Stopped { pid }))
            }
        }
    }

    /// Starts the server offered as `name` on a free port of the agent's IP (`port` must
    /// be 0, the study's word for "any"), with `threads` threads, serving `/files/` from
    /// `files` when given and HTTPS when `https`.
    fn start(
        &mut self,
        agent: &Agent,
        name: &str,
        port: u16,
        (threads, files, https): (Option<usize>, Option<&std::path::Path>, bool),
    ) -> Result<Started, String> {
        if port != 0 {
            return Err(format!(
                "port {port}: the agent picks a free port itself; send 0 or no port"
            ));
        }
        let contender = agent.offers.find(name)?;
        if self.servers.len() >= MAX_SERVERS {
            let full = format!("this session runs {MAX_SERVERS} servers already; stop one first");
            return Err(full);
        }
        let threads = threads.unwrap_or(agent.cpus.0.len().min(MAX_THREADS));
        if !(1..=MAX_THREADS).contains(&threads) {
            return Err(format!("threads {threads}: from 1 to {MAX_THREADS}"));
        }
        let cap = THREADS_PER_CPU * agent.cpus.0.len();
        let running: usize = self.servers.iter().map(|hosted| hosted.threads).sum();
        if running + threads > cap {
            return Err(format!(
                "threads {threads}: this session's servers run {running} already, and {cap} at \
                 most ({THREADS_PER_CPU} per CPU the agent pins them to); stop one first"
            ));
        }
        let settings = (threads, files, https);
        let cpus = Some(&agent.cpus);
        let server = Server::start_at(agent.host, contender, &agent.binaries, cpus, settings)?;
        let (Some(pid), Some(addr)) = (server.pid(), server.addr()) else {
            return Err(format!("{name} started with no process to measure"));
        };
        note(format_args!("started {name} (pid {pid}) on {addr}"));
        self.servers.push(Hosted {
            server,
            threads,
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
    /// Tells every server to stop first, then waits for them: together, within one grace
    /// period, not one after another.
    fn drop(&mut self) {
        if self.servers.is_empty() {
            return;
        }
        note(format_args!(
            "stopping the session's {} servers",
            self.servers.len()
        ));
        for hosted in &mut self.servers {
            hosted.stop_counting();
            hosted.server.terminate();
        }
        self.servers.clear();
    }
}

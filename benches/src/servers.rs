//! The contenders: building their binaries, starting each pinned to the server CPUs
//! (or using a server the user started, via an environment variable), and stopping them.
//! Beside them stands nginx, an outside anchor (`nginx.rs`): started the same way when it
//! is installed, measured where it can serve the workload, never part of a verdict.
//!
//! No server outlives the bench: each is killed when its guard drops (also while a panic
//! unwinds), and each child asks the kernel for SIGTERM should the bench die abruptly
//! (Ctrl-C, SIGKILL): `PR_SET_PDEATHSIG`.

use std::collections::HashMap;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use server_kit::ServerProcess;

use crate::affinity::CpuSet;
use crate::nginx::{self, Nginx};
use crate::settings::Pinning;

/// How a contender is started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Launch {
    /// The binary of the cargo package [`Contender::package`], with [`Contender::args`].
    Cargo,
    /// The system's nginx with the repository's `nginx/nginx.conf` (`nginx.rs`).
    Nginx,
}

/// One server configuration under test: a binary and its flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Contender {
    /// Stable id used in benchmark names and JSON.
    pub id: &'static str,
    /// How the report names it.
    pub label: &'static str,
    /// The cargo package that builds it, and the binary of that package it runs.
    pub package: &'static str,
    pub binary: &'static str,
    pub args: &'static [&'static str],
    /// Set this variable to a base URL to bench a server you started yourself; `None`:
    /// always started here.
    pub url_env: Option<&'static str>,
    pub launch: Launch,
}

impl Contender {
    /// Whether it stands outside the comparison (an [`ANCHORS`] row): measured beside the
    /// contenders, never in a ratio or a verdict.
    pub fn is_anchor(&self) -> bool {
        ANCHORS.contains(self)
    }
}

pub const TOKIO_HYPER: Contender = Contender {
    id: "tokio_hyper",
    label: "tokio_server (hyper)",
    package: "tokio_server",
    binary: "tokio_server",
    args: &["--engine", "hyper"],
    url_env: Some("BENCH_TOKIO_URL"),
    launch: Launch::Cargo,
};

pub const TOKIO_CODEC: Contender = Contender {
    id: "tokio_codec",
    label: "tokio_server (codec)",
    package: "tokio_server",
    binary: "tokio_server",
    args: &["--engine", "codec"],
    url_env: Some("BENCH_TOKIO_CODEC_URL"),
    launch: Launch::Cargo,
};

/// The codec on tokio reading into a buffer per thread, not per connection: not in
/// [`CONTENDERS`]; it stands beside the others where memory per idle connection is
/// measured, to tell what is io_uring's doing from what is the server's design.
pub const TOKIO_CODEC_SHARED: Contender = Contender {
    id: "tokio_codec_shared",
    label: "tokio_server (codec, shared buffer)",
    package: "tokio_server",
    binary: "tokio_server",
    args: &["--engine", "codec-shared"],
    url_env: None,
    launch: Launch::Cargo,
};

pub const IO_URING: Contender = Contender {
    id: "io_uring",
    label: "io_uring_server",
    package: "io_uring_server",
    binary: "io_uring_server",
    args: &[],
    url_env: Some("BENCH_URING_URL"),
    launch: Launch::Cargo,
};

pub const TOKIO_URING: Contender = Contender {
    id: "tokio_uring",
    label: "tokio_uring_server",
    package: "tokio_uring_server",
    binary: "tokio_uring_server",
    args: &[],
    url_env: Some("BENCH_TOKIO_URING_URL"),
    launch: Launch::Cargo,
};

/// io_uring_server with `args`, named (and identified) by `label`; always started here.
pub const fn io_uring_with(label: &'static str, args: &'static [&'static str]) -> Contender {
    Contender {
        id: label,
        label,
        args,
        url_env: None,
        ..IO_URING
    }
}

/// A floor, not a contender: the cheapest `GET /` answer of one stack (the `floors`
/// crate), measured beside the contenders so each engine's distance from its stack's
/// floor is a column. Labels start with "floor: ".
const fn floor(id: &'static str, label: &'static str) -> Contender {
    Contender {
        id,
        label,
        package: "floors",
        binary: id,
        args: &[],
        url_env: None,
        launch: Launch::Cargo,
    }
}

pub const FLOOR_HYPER: Contender = floor("bare_hyper", "floor: bare hyper");
pub const FLOOR_TOKIO: Contender = floor("bare_tokio", "floor: bare tokio loop");
pub const FLOOR_URING: Contender = floor("bare_uring", "floor: bare io_uring loop");

/// The floors, in report order.
pub const FLOORS: [Contender; 3] = [FLOOR_HYPER, FLOOR_TOKIO, FLOOR_URING];

impl Contender {
    pub fn is_floor(&self) -> bool {
        self.package == "floors"
    }

    /// The floor of this contender's stack: bare hyper under the hyper engine, the bare
    /// tokio loop under the codec engines, and the bare io_uring loop under
    /// io_uring_server and also under tokio_uring_server, whose requests go through the
    /// same kernel interface (what it costs above that floor is tokio-uring's runtime
    /// and the codec). `None` for a floor.
    pub fn floor(&self) -> Option<Contender> {
        match self.package {
            "io_uring_server" | "tokio_uring_server" => Some(FLOOR_URING),
            "tokio_server" if self.args.contains(&"hyper") => Some(FLOOR_HYPER),
            "tokio_server" => Some(FLOOR_TOKIO),
            _ => None,
        }
    }
}

/// The contender or floor with this id, among the [`CONTENDERS`] and [`FLOORS`].
pub fn by_id(id: &str) -> Option<Contender> {
    CONTENDERS.iter().chain(&FLOORS).copied().find(|c| c.id == id)
}

/// The contenders of `cargo bench`, the sweep and the large-body study, in report order.
/// The ablation's rows are contenders too (io_uring_server with flags, see `ablation`).
pub const CONTENDERS: [Contender; 4] = [TOKIO_HYPER, TOKIO_CODEC, IO_URING, TOKIO_URING];

/// nginx, one worker (`nginx/nginx.conf`): where a widely used epoll server lands on this
/// machine. It cannot echo a body, so it sits out the echo workloads.
pub const NGINX: Contender = Contender {
    id: "nginx",
    label: "nginx (outside anchor)",
    package: "nginx",
    binary: "nginx",
    args: &[],
    url_env: None,
    launch: Launch::Nginx,
};

/// The outside anchors the sweep and the workloads study measure beside the contenders.
pub const ANCHORS: [Contender; 1] = [NGINX];

/// A server being benchmarked: started by us (with a pid to measure) or external.
pub struct Server {
    pub contender: Contender,
    pub base_url: String,
    process: Option<Process>,
}

/// A server we started, stopped when dropped.
enum Process {
    Cargo(ServerProcess),
    Nginx(Nginx),
}

impl Server {
    /// The pid of the process that serves (for nginx, its worker) when we started it;
    /// `None` for an external server.
    pub fn pid(&self) -> Option<u32> {
        self.process.as_ref().map(|process| match process {
            Process::Cargo(server) => server.pid(),
            Process::Nginx(nginx) => nginx.worker_pid(),
        })
    }

    /// Starts `contender` from its binary, pinned to `cpus` with `threads` server threads,
    /// unless the user pointed the bench at their own server.
    pub fn start(
        contender: Contender,
        binaries: &HashMap<String, PathBuf>,
        cpus: Option<&CpuSet>,
        threads: usize,
    ) -> Result<Server, String> {
        if let Some(url) = contender.url_env.and_then(|name| std::env::var(name).ok()) {
            let base_url = url.trim_end_matches('/').to_string();
            return Ok(Server {
                contender,
                base_url,
                process: None,
            });
        }
        let (addr, process) = match contender.launch {
            Launch::Cargo => {
                let binary = binaries
                    .get(contender.binary)
                    .ok_or_else(|| format!("no binary {} was built", contender.binary))?;
                let mut command = pinned_command(binary, cpus);
                command.args(contender.args);
                command.args(["--threads", &threads.to_string()]);
                let process = ServerProcess::spawn(command, contender.label.to_string())?;
                (process.addr(), Process::Cargo(process))
            }
            Launch::Nginx => {
                let binary = nginx::binary().ok_or(nginx::NOT_INSTALLED)?;
                let nginx = Nginx::start(&binary, cpus)?;
                (nginx.addr(), Process::Nginx(nginx))
            }
        };
        Ok(Server {
            contender,
            base_url: format!("http://{addr}"),
            process: Some(process),
        })
    }
}

/// A command for `program` that runs pinned to `cpus` (threads and processes it starts
/// inherit the pinning) and receives SIGTERM should this process die.
pub(crate) fn pinned_command(program: &Path, cpus: Option<&CpuSet>) -> Command {
    let mut command = Command::new(program);
    let pin = cpus.cloned();
    // SAFETY: runs between fork and exec; it only makes async-signal-safe syscalls
    // (sched_setaffinity, prctl) and allocates nothing.
    unsafe {
        command.pre_exec(move || {
            if let Some(set) = &pin {
                set.pin_current_thread()?;
            }
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
            Ok(())
        });
    }
    command
}

/// The workspace root, the parent of `benches/`.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("benches/ has a parent")
        .to_path_buf()
}

/// A run's servers, started pinned, with the workspace the run writes into and the pinning
/// its client keeps to.
pub struct Lineup {
    pub workspace: PathBuf,
    pub pinning: Pinning,
    /// Threads each server runs: one per server CPU unless the run asked otherwise.
    pub server_threads: usize,
    pub servers: Vec<Server>,
    binaries: HashMap<String, PathBuf>,
}

impl Lineup {
    /// Reads the pinning from the environment, then as [`Lineup::start_with`] with one
    /// server thread per server CPU.
    pub fn start(contenders: &[Contender]) -> Result<Lineup, String> {
        Lineup::start_with(contenders, Pinning::from_env()?, None)
    }

    /// Pins this thread (the client) to the client CPUs, then builds and starts
    /// `contenders` pinned to the server CPUs, each with `server_threads` threads (default
    /// one per server CPU).
    pub fn start_with(
        contenders: &[Contender],
        pinning: Pinning,
        server_threads: Option<usize>,
    ) -> Result<Lineup, String> {
        let workspace = workspace_root();
        pinning.pin_client()?;
        let server_threads = server_threads.unwrap_or_else(|| pinning.server_cpus());
        let binaries = binaries_of(&workspace, contenders)?;
        let servers = contenders
            .iter()
            .map(|&contender| Server::start(contender, &binaries, pinning.server.as_ref(), server_threads))
            .collect::<Result<_, _>>()?;
        Ok(Lineup {
            workspace,
            pinning,
            server_threads,
            servers,
            binaries,
        })
    }

    /// A new process of `contender` (one of those the lineup was started with), pinned
    /// as the others are: for a measure that must start from a fresh server.
    pub fn start_fresh(&self, contender: Contender) -> Result<Server, String> {
        Server::start(
            contender,
            &self.binaries,
            self.pinning.server.as_ref(),
            self.server_threads,
        )
    }
}

/// The contenders' binaries, built (none when every contender is an external server).
fn binaries_of(workspace: &Path, contenders: &[Contender]) -> Result<HashMap<String, PathBuf>, String> {
    let external = contenders
        .iter()
        .all(|c| c.launch != Launch::Cargo || c.url_env.is_some_and(|name| std::env::var(name).is_ok()));
    if external {
        Ok(HashMap::new())
    } else {
        build_binaries(workspace, contenders)
    }
}

/// Builds the contenders' packages with the bench profile; returns binary name ->
/// executable.
fn build_binaries(workspace: &Path, contenders: &[Contender]) -> Result<HashMap<String, PathBuf>, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(workspace)
        .args([
            "build",
            "--profile",
            "bench",
            "--message-format=json-render-diagnostics",
        ])
        .stderr(Stdio::inherit());
    let mut packages: Vec<&str> = contenders
        .iter()
        .filter(|c| c.launch == Launch::Cargo)
        .map(|c| c.package)
        .collect();
    packages.sort_unstable();
    packages.dedup();
    for package in packages {
        command.args(["-p", package]);
    }
    let output = command
        .output()
        .map_err(|e| format!("cannot run cargo build: {e}"))?;
    if !output.status.success() {
        return Err("cargo build of the servers failed (see above)".into());
    }
    let mut binaries = HashMap::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if let (Some(name), Some(path)) = (message["target"]["name"].as_str(), message["executable"].as_str())
        {
            binaries.insert(name.to_string(), PathBuf::from(path));
        }
    }
    Ok(binaries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_contender_stands_on_a_floor_and_floors_on_none() {
        let floors: Vec<&str> = CONTENDERS.iter().map(|c| c.floor().unwrap().id).collect();
        assert_eq!(floors, ["bare_hyper", "bare_tokio", "bare_uring", "bare_uring"]);
        assert_eq!(TOKIO_CODEC_SHARED.floor(), Some(FLOOR_TOKIO));
        assert!(FLOORS.iter().all(|f| f.is_floor() && f.floor().is_none()));
        assert!(!CONTENDERS.iter().any(Contender::is_floor));
        assert_eq!(by_id("bare_uring"), Some(FLOOR_URING));
    }
}

//! The servers under test (`catalogue`: the contenders, floors and anchor): building their
//! binaries, starting each pinned to the server CPUs (or using a server the user started,
//! via an environment variable), and stopping them.
//! Beside them stands nginx, an outside anchor (`nginx.rs`): started the same way when it
//! is installed, measured where it can serve the workload, never part of a verdict; and
//! any server of the user's, named by the command that starts it (`outside.rs`). One
//! server, started and stopped: `server.rs`; what it consumed, read here or through the
//! agent that started it on another host: `meter.rs`.
//!
//! No server outlives the bench: each is killed when its guard drops (also while a panic
//! unwinds), and each child asks the kernel for SIGTERM should the bench die abruptly
//! (Ctrl-C, SIGKILL): `PR_SET_PDEATHSIG`. That SIGTERM reaches the child alone (for a
//! server in a process group of its own, the group's leader), not what it started.

use std::collections::HashMap;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::affinity::CpuSet;
use crate::remote::RemoteServer;
use crate::remote::server::{SharedAgent, lock_agent};
use crate::settings::Pinning;

mod catalogue;
mod group;
mod meter;
pub mod nginx;
pub mod outside;
mod server;
pub mod tls;
pub use catalogue::*;
pub use server::Server;

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

/// The workspace root, the parent of `harness/`.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("harness/ has a parent")
        .to_path_buf()
}

/// A run's servers, started pinned, with the workspace the run writes into and the pinning
/// its client keeps to.
pub struct Lineup {
    pub workspace: PathBuf,
    pub pinning: Pinning,
    /// Threads each server runs: one per server CPU unless the run asked otherwise.
    pub server_threads: usize,
    /// The directory every server started from now on serves `/files/` from (the file
    /// study's corpus); `None`, the default: no `--files-dir`.
    pub files_dir: Option<PathBuf>,
    pub servers: Vec<Server>,
    /// The agent that starts every server on its host (`--server-host`); `None`: they
    /// start here.
    pub remote: Option<SharedAgent>,
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
        let mut lineup = Lineup::prepare(contenders, pinning, server_threads)?;
        lineup.servers = contenders
            .iter()
            .map(|&contender| lineup.start_fresh(contender))
            .collect::<Result<_, _>>()?;
        Ok(lineup)
    }

    /// As [`Lineup::start_with`], but starts no server: for a study that starts every
    /// server afresh for each point ([`Lineup::start_fresh`]).
    pub fn prepare(
        contenders: &[Contender],
        pinning: Pinning,
        server_threads: Option<usize>,
    ) -> Result<Lineup, String> {
        let workspace = workspace_root();
        pinning.pin_client()?;
        let server_threads = server_threads.unwrap_or_else(|| pinning.server_cpus());
        let binaries = binaries_of(&workspace, contenders)?;
        Ok(Lineup {
            workspace,
            pinning,
            server_threads,
            files_dir: None,
            servers: Vec::new(),
            remote: None,
            binaries,
        })
    }

    /// As [`Lineup::prepare`], for servers the agent of `agent` starts on its host, each
    /// with one thread per CPU it pins them to: `contenders` must be ones it offers
    /// ([`offered_name`]). This thread (the client) is pinned to `client`, or to none.
    pub fn prepare_remote(
        contenders: &[Contender],
        agent: SharedAgent,
        client: Option<CpuSet>,
    ) -> Result<Lineup, String> {
        if let Some(refused) = contenders.iter().find(|c| offered_name(c).is_none()) {
            return Err(format!(
                "{}: the agent starts only the catalogue's servers, by id",
                refused.label
            ));
        }
        let addr = lock_agent(&agent).addr();
        let cpus = CpuSet(lock_agent(&agent).hello().cpus.clone());
        let pinning = Pinning::remote(addr, cpus, client);
        pinning.pin_client()?;
        Ok(Lineup {
            workspace: workspace_root(),
            server_threads: pinning.server_cpus(),
            pinning,
            files_dir: None,
            servers: Vec::new(),
            remote: Some(agent),
            binaries: HashMap::new(),
        })
    }

    /// Stops every server, then starts each afresh in the same order: for a study whose
    /// rounds must sample process start too (memory layout, address randomisation), not
    /// only time.
    pub fn restart(&mut self) -> Result<(), String> {
        // Each old server is dropped (stopped) as its contender is taken from it.
        let contenders: Vec<Contender> = self.servers.drain(..).map(|s| s.contender).collect();
        self.servers = contenders
            .into_iter()
            .map(|contender| self.start_fresh(contender))
            .collect::<Result<_, _>>()?;
        Ok(())
    }

    /// A new process of `contender` (one of those the lineup was built for), pinned as
    /// the others are: for a measure that must start from a fresh server.
    pub fn start_fresh(&self, contender: Contender) -> Result<Server, String> {
        self.start_fresh_serving(contender, false)
    }

    /// As [`Lineup::start_fresh`], serving HTTPS when `https`: here, or through the agent
    /// when the lineup has one (serving its own copy of the file corpus where this lineup
    /// serves files).
    pub fn start_fresh_serving(&self, contender: Contender, https: bool) -> Result<Server, String> {
        if let Some(agent) = &self.remote {
            let name = offered_name(&contender)
                .ok_or_else(|| format!("{}: the agent does not offer it", contender.label))?;
            let serving = (https, self.files_dir.is_some());
            let threads = Some(self.server_threads);
            let started = RemoteServer::start(agent, name, threads, serving)?;
            return Ok(Server::remote(contender, started, https));
        }
        Server::start(
            contender,
            &self.binaries,
            self.pinning.server.as_ref(),
            (self.server_threads, self.files_dir.as_deref(), https),
        )
    }
}

/// The contenders' binaries, built (none when every contender is an external server):
/// [`Contender::binary_key`] -> executable, what [`Server::start`] takes.
pub fn binaries_of(workspace: &Path, contenders: &[Contender]) -> Result<HashMap<String, PathBuf>, String> {
    let external = contenders
        .iter()
        .all(|c| !c.launch.is_cargo() || c.url_env.is_some_and(|name| std::env::var(name).is_ok()));
    if external {
        Ok(HashMap::new())
    } else {
        build_binaries(workspace, contenders)
    }
}

/// Builds the binaries of the [`Launch::Cargo`] contenders with the bench profile, and the
/// [`Launch::CargoTokioIoUringFs`] ones apart ([`TOKIO_IO_URING_FS_BUILD`]); returns
/// [`Contender::binary_key`] -> executable.
///
/// The build `cargo bench` makes, whichever binaries it asks for: cargo unifies the
/// dependencies' features over the packages a build selects, and with the dev-dependencies
/// whenever it builds a bench. So the whole workspace is selected and its bench built
/// (already built under `cargo bench`), and the servers' dependencies compile once, with
/// the same features for every study. No dev-dependency turns on a feature of theirs (no
/// tokio `test-util`, whose clock would sit in every server); the other members' normal
/// dependencies add a few the servers never call (hyper's client, for the harness's
/// reqwest).
fn build_binaries(workspace: &Path, contenders: &[Contender]) -> Result<HashMap<String, PathBuf>, String> {
    let mut binaries = HashMap::new();
    let cargo = contenders.iter().filter(|c| c.launch == Launch::Cargo);
    let wanted = crate::rounds::first_seen(cargo.map(|c| c.binary));
    if !wanted.is_empty() {
        let mut command = cargo_build(workspace);
        command.args(["--profile", "bench", "--workspace", "--benches"]);
        for binary in wanted {
            command.args(["--bin", binary]);
        }
        binaries.extend(built_executables(command)?);
    }
    if contenders.iter().any(|c| c.launch == Launch::CargoTokioIoUringFs) {
        let build = TOKIO_IO_URING_FS_BUILD;
        let mut command = cargo_build(workspace);
        command
            .env("RUSTFLAGS", build.rustflags)
            // It would take precedence over RUSTFLAGS.
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .args(["--release", "-p", build.package, "--features", build.features])
            .arg("--target-dir")
            .arg(workspace.join(build.target_dir));
        for (name, path) in built_executables(command)? {
            binaries.insert(format!("{name} (io-uring-fs)"), path);
        }
    }
    Ok(binaries)
}

/// `cargo build` in `workspace`, reporting built executables as JSON on stdout.
fn cargo_build(workspace: &Path) -> Command {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(workspace)
        .args(["build", "--message-format=json-render-diagnostics"])
        .stderr(Stdio::inherit());
    command
}

/// Runs a [`cargo_build`] command; returns binary name -> executable.
fn built_executables(mut command: Command) -> Result<HashMap<String, PathBuf>, String> {
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
#[path = "mod_tests.rs"]
mod tests;

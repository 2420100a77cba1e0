//! The contenders: building their binaries, starting each pinned to the server CPUs
//! (or using a server the user started, via an environment variable), and stopping them.
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
use crate::settings::Pinning;

/// One server configuration under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Contender {
    /// Stable id used in benchmark names and JSON.
    pub id: &'static str,
    /// How the report names it.
    pub label: &'static str,
    pub package: &'static str,
    pub args: &'static [&'static str],
    /// Set this variable to a base URL to bench a server you started yourself.
    pub url_env: &'static str,
}

pub const CONTENDERS: [Contender; 4] = [
    Contender {
        id: "tokio_hyper",
        label: "tokio_server (hyper)",
        package: "tokio_server",
        args: &["--engine", "hyper"],
        url_env: "BENCH_TOKIO_URL",
    },
    Contender {
        id: "tokio_codec",
        label: "tokio_server (codec)",
        package: "tokio_server",
        args: &["--engine", "codec"],
        url_env: "BENCH_TOKIO_CODEC_URL",
    },
    Contender {
        id: "io_uring",
        label: "io_uring_server",
        package: "io_uring_server",
        args: &[],
        url_env: "BENCH_URING_URL",
    },
    Contender {
        id: "tokio_uring",
        label: "tokio_uring_server",
        package: "tokio_uring_server",
        args: &[],
        url_env: "BENCH_TOKIO_URING_URL",
    },
];

/// A server being benchmarked: started by us (with a pid to measure) or external.
pub struct Server {
    pub contender: Contender,
    pub base_url: String,
    process: Option<ServerProcess>,
}

impl Server {
    /// The server's pid when we started it; `None` for an external server.
    pub fn pid(&self) -> Option<u32> {
        self.process.as_ref().map(ServerProcess::pid)
    }

    /// Starts `contender` from `binary`, pinned to `cpus` with one thread per CPU, unless
    /// the user pointed the bench at their own server.
    pub fn start(
        contender: Contender,
        binaries: &HashMap<String, PathBuf>,
        cpus: Option<&CpuSet>,
    ) -> Result<Server, String> {
        if let Ok(url) = std::env::var(contender.url_env) {
            let base_url = url.trim_end_matches('/').to_string();
            return Ok(Server {
                contender,
                base_url,
                process: None,
            });
        }
        let binary = binaries
            .get(contender.package)
            .ok_or_else(|| format!("no binary was built for {}", contender.package))?;
        let mut command = Command::new(binary);
        command.args(contender.args);
        let threads = cpus.map_or(1, |set| set.0.len());
        command.args(["--threads", &threads.to_string()]);
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
        let process = ServerProcess::spawn(command, contender.label.to_string())?;
        let base_url = format!("http://{}", process.addr());
        Ok(Server {
            contender,
            base_url,
            process: Some(process),
        })
    }
}

/// The workspace root, the parent of `benches/`.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("benches/ has a parent")
        .to_path_buf()
}

/// Pins this process to the client CPUs, builds the servers (unless every contender is an
/// external server) and starts every contender pinned to the server CPUs.
pub fn start_contenders(workspace: &Path, pinning: &Pinning) -> Result<Vec<Server>, String> {
    if let Some(client) = &pinning.client {
        client
            .pin_current_thread()
            .map_err(|e| format!("cannot pin the client to CPU {client}: {e}"))?;
    }
    let external = CONTENDERS.iter().all(|c| std::env::var(c.url_env).is_ok());
    let binaries = if external {
        HashMap::new()
    } else {
        build_binaries(workspace)?
    };
    CONTENDERS
        .iter()
        .map(|&contender| Server::start(contender, &binaries, pinning.server.as_ref()))
        .collect()
}

/// Builds the server binaries with the bench profile; returns package name -> executable.
pub fn build_binaries(workspace: &Path) -> Result<HashMap<String, PathBuf>, String> {
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
    for package in unique_packages() {
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

fn unique_packages() -> Vec<&'static str> {
    let mut packages: Vec<&str> = CONTENDERS.iter().map(|c| c.package).collect();
    packages.dedup();
    packages
}

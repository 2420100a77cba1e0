//! nginx as an outside anchor: the system's nginx (`scripts/nginx.sh` installs Debian's)
//! started with the repository's `nginx/nginx.conf`, one worker pinned to the server CPUs,
//! on a free port, in a run directory of its own that holds its config, logs, pid file,
//! temporary files and the `GET /bytes/{n}` bodies (http_core's pattern, one file per size
//! the workloads ask for); `GET /files/{name}` is served from the directory a run names
//! (the file study's corpus), or from an empty one. Its worker is where CPU and memory are measured; dropping the
//! guard stops master and worker and removes the run directory.

use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use http_core::routes::{HELLO, STUDIED_BODY_SIZES, TEXT_PLAIN, pattern};

use crate::affinity::CpuSet;
use crate::servers::{ANCHORS, Contender, pinned_command};

/// The one line a run prints when nginx is missing.
pub const NOT_INSTALLED: &str = "nginx not installed: scripts/nginx.sh installs it; its rows are skipped";

/// What a report says of nginx's rows.
pub const ANCHOR_NOTE: &str = "nginx (outside anchor) is the system's nginx (Debian's here) with one worker and the \
    repository's `nginx/nginx.conf` (`scripts/nginx.sh` installs it): where a widely used epoll \
    server lands on this machine, outside every ratio and verdict.";

/// The configuration template, with `@NAME@` placeholders.
const TEMPLATE: &str = include_str!("../../../nginx/nginx.conf");

/// How long nginx may take to accept connections and show its worker.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(10);

/// How long the master may take to stop its worker and exit after SIGTERM.
const STOP_TIMEOUT: Duration = Duration::from_secs(3);

/// Attempts at startup: the free port is found by binding and releasing it, so another
/// process may take it before nginx binds it.
const ATTEMPTS: usize = 3;

/// Connections the worker may hold, at most: its descriptor limit and
/// `worker_connections`, below the hard limit when that is lower.
const MAX_CONNECTIONS: u64 = 65_536;

/// `contenders`, then the anchors that can run here (nginx when installed; when it is
/// not, one line says so and its rows are skipped).
pub fn with_anchors(contenders: &[Contender]) -> Vec<Contender> {
    let mut all = contenders.to_vec();
    match binary() {
        Some(_) => all.extend(ANCHORS),
        None => eprintln!("{NOT_INSTALLED}"),
    }
    all
}

/// The nginx binary: on the PATH, or where Debian installs it (`/usr/sbin` is not on
/// every user's PATH).
pub fn binary() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("nginx"))
        .chain([PathBuf::from("/usr/sbin/nginx")])
        .find(|candidate| candidate.is_file())
}

/// A running nginx: master (our child) and its one worker.
pub struct Nginx {
    master: Child,
    worker: u32,
    addr: SocketAddr,
    run_dir: PathBuf,
}

impl Nginx {
    /// Starts nginx from `binary` pinned to `cpus`, serving `/files/` from `files_dir`
    /// (an empty directory when `None`), and waits until it accepts connections and its
    /// worker is running.
    pub fn start(binary: &Path, cpus: Option<&CpuSet>, files_dir: Option<&Path>) -> Result<Nginx, String> {
        let run_dir = run_dir()?;
        let files_dir = files_dir.map_or_else(|| run_dir.join("www").join("files"), Path::to_path_buf);
        let started = prepare(&run_dir).and_then(|()| {
            let mut failures = Vec::new();
            for _ in 0..ATTEMPTS {
                match launch(pinned_command(binary, cpus), (&run_dir, &files_dir)) {
                    Ok(running) => return Ok(running),
                    Err(failure) => failures.push(failure),
                }
            }
            Err(format!("nginx did not start: {}", failures.join("; ")))
        });
        match started {
            Ok((master, worker, addr)) => Ok(Nginx {
                master,
                worker,
                addr,
                run_dir,
            }),
            Err(error) => {
                let _ = std::fs::remove_dir_all(&run_dir);
                Err(error)
            }
        }
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The worker's pid: the process that serves, whose CPU and memory are measured.
    pub fn worker_pid(&self) -> u32 {
        self.worker
    }
}

impl Drop for Nginx {
    /// SIGTERM is nginx's fast shutdown: the master stops its worker, then exits. Should
    /// it not within [`STOP_TIMEOUT`], both are killed.
    fn drop(&mut self) {
        signal(self.master.id(), libc::SIGTERM);
        if !exited_within(&mut self.master, STOP_TIMEOUT) {
            signal(self.worker, libc::SIGKILL);
            let _ = self.master.kill();
        }
        let _ = self.master.wait();
        let _ = std::fs::remove_dir_all(&self.run_dir);
    }
}

/// A fresh directory for one nginx under the system's temporary directory.
fn run_dir() -> Result<PathBuf, String> {
    static STARTED: AtomicUsize = AtomicUsize::new(0);
    let name = format!(
        "uring-vs-tokio-nginx-{}-{}",
        std::process::id(),
        STARTED.fetch_add(1, Ordering::Relaxed)
    );
    let dir = std::env::temp_dir().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir)
}

/// Writes the `/bytes/{n}` bodies into `run_dir/www/bytes/`, and makes the empty
/// `run_dir/www/files/`.
fn prepare(run_dir: &Path) -> Result<(), String> {
    let files = run_dir.join("www").join("files");
    std::fs::create_dir_all(&files).map_err(|e| format!("{}: {e}", files.display()))?;
    let bytes = run_dir.join("www").join("bytes");
    std::fs::create_dir_all(&bytes).map_err(|e| format!("{}: {e}", bytes.display()))?;
    for size in STUDIED_BODY_SIZES {
        let body = pattern(size).ok_or_else(|| format!("no /bytes body of {size} bytes"))?;
        let path = bytes.join(size.to_string());
        std::fs::write(&path, body).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

/// One attempt: a config on a free port, nginx started with it, and its readiness.
fn launch(
    mut command: Command,
    (run_dir, files_dir): (&Path, &Path),
) -> Result<(Child, u32, SocketAddr), String> {
    let addr = free_port()?;
    let config = run_dir.join("nginx.conf");
    let text = render_config((run_dir, files_dir), addr.port(), max_connections());
    std::fs::write(&config, text).map_err(|e| format!("{}: {e}", config.display()))?;
    let mut master = command
        .arg("-p")
        .arg(run_dir)
        .arg("-c")
        .arg(&config)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot start nginx: {e}"))?;
    match wait_ready(&mut master, addr) {
        Ok(worker) => Ok((master, worker, addr)),
        Err(error) => {
            let _ = master.kill();
            let _ = master.wait();
            let log = std::fs::read_to_string(run_dir.join("error.log")).unwrap_or_default();
            Err(format!("{error}; error.log: {}", log.trim()))
        }
    }
}

/// The template with every placeholder filled in.
fn render_config((run_dir, files_dir): (&Path, &Path), port: u16, max_connections: u64) -> String {
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    TEMPLATE
        .replace("@RUN_DIR@", &run_dir.display().to_string())
        .replace("@FILES_DIR@", &files_dir.display().to_string())
        .replace("@PORT@", &port.to_string())
        .replace("@MAX_CONNECTIONS@", &max_connections.to_string())
        .replace("@HELLO@", &text(HELLO))
        .replace("@TEXT_PLAIN@", &text(TEXT_PLAIN))
}

/// A loopback port nothing listens on now.
pub(crate) fn free_port() -> Result<SocketAddr, String> {
    free_port_on(IpAddr::V4(Ipv4Addr::LOCALHOST))
}

/// A port of `ip` nothing listens on now.
pub(crate) fn free_port_on(ip: IpAddr) -> Result<SocketAddr, String> {
    let listener = TcpListener::bind((ip, 0)).map_err(|e| format!("bind {ip}: {e}"))?;
    listener.local_addr().map_err(|e| e.to_string())
}

/// [`MAX_CONNECTIONS`], or the descriptor hard limit when that is lower.
fn max_connections() -> u64 {
    // SAFETY: getrlimit writes only into the struct we pass.
    let hard = unsafe {
        let mut limit: libc::rlimit = std::mem::zeroed();
        match libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) {
            0 => limit.rlim_max,
            _ => MAX_CONNECTIONS,
        }
    };
    hard.min(MAX_CONNECTIONS)
}

/// Waits until nginx accepts on `addr` and its worker runs; returns the worker's pid.
fn wait_ready(master: &mut Child, addr: SocketAddr) -> Result<u32, String> {
    let deadline = Instant::now() + STARTUP_TIMEOUT;
    while Instant::now() < deadline {
        if let Some(status) = master.try_wait().map_err(|e| e.to_string())? {
            return Err(format!("nginx exited at startup ({status})"));
        }
        let accepts = TcpStream::connect_timeout(&addr, Duration::from_millis(100)).is_ok();
        if let Some(worker) = accepts.then(|| child_of(master.id())).flatten() {
            return Ok(worker);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Err(format!(
        "nginx did not accept on {addr} within {STARTUP_TIMEOUT:?}"
    ))
}

/// A child process of `parent`, from the parent pid in each `/proc/PID/stat`.
fn child_of(parent: u32) -> Option<u32> {
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|entry| {
        let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
        // After the command name (which may hold spaces): state, then the parent's pid.
        let ppid: u32 = stat.rsplit_once(')')?.1.split_whitespace().nth(1)?.parse().ok()?;
        (ppid == parent).then_some(pid)
    })
}

fn signal(pid: u32, signal: i32) {
    // SAFETY: kill(2) on a process we started; no memory is shared.
    unsafe {
        libc::kill(pid as libc::pid_t, signal);
    }
}

pub(crate) fn exited_within(child: &mut Child, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if matches!(child.try_wait(), Ok(Some(_))) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_config_fills_every_placeholder_from_the_contract() {
        let config = render_config((Path::new("/run/x"), Path::new("/c/orpus")), 4321, 1000);
        let mut directives = config.lines().filter(|line| !line.trim_start().starts_with('#'));
        assert!(directives.all(|line| !line.contains('@')), "{config}");
        assert!(config.contains("listen 127.0.0.1:4321 backlog=4096;"));
        assert!(config.contains("worker_connections 1000;"));
        assert!(config.contains("return 200 \"Hello, World!\";"));
        assert!(config.contains("default_type \"text/plain; charset=utf-8\";"));
        assert!(config.contains("root /run/x/www;"));
        assert!(config.contains("worker_processes 1;"));
        assert!(config.contains("location /files/ {\n            alias /c/orpus/;"));
    }

    #[test]
    fn a_child_is_found_by_its_parent() {
        // The shell forks `sleep` (a command it must wait for, then run `true` after).
        let mut shell = Command::new("sh").args(["-c", "sleep 5; true"]).spawn().unwrap();
        let deadline = Instant::now() + Duration::from_secs(5);
        let mut found = None;
        while found.is_none() && Instant::now() < deadline {
            found = child_of(shell.id());
            std::thread::sleep(Duration::from_millis(10));
        }
        let sleeper = found.expect("the shell's child");
        let comm = std::fs::read_to_string(format!("/proc/{sleeper}/comm")).unwrap();
        assert_eq!(comm.trim(), "sleep");
        assert_eq!(child_of(sleeper), None);
        signal(sleeper, libc::SIGKILL);
        let _ = shell.kill();
        let _ = shell.wait();
    }
}

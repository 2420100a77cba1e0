//! Your own server beside ours: `--server 'NAME=COMMAND {port}'` names a server by the
//! command that starts it, with `{port}` where it takes the port to listen on
//! (127.0.0.1). The harness starts it as it starts its own (pinned to the server CPUs,
//! SIGTERM should the bench die), on a free port, waits until it accepts connections and
//! measures the process it started: `{files_dir}` in the command names the directory a
//! file workload serves `/files/` from (an empty one where the run serves no files), and
//! `{threads}` the threads ours run (one per server CPU). The command runs through
//! `sh -c 'exec COMMAND'`, so
//! that process is the server itself and all of its threads count. A server that forks
//! its workers into other processes would be measured short: run it with one process (as
//! nginx's anchor runs one worker) or in the foreground; a wrapper script must `exec` it
//! too. The server runs in a process group of its own, stopped whole when it is dropped:
//! SIGTERM to the group, then SIGKILL to whatever is left of it. Should the harness (or
//! the agent) be killed with SIGKILL, no drop runs: `PR_SET_PDEATHSIG` sends SIGTERM to the
//! server alone, the group's leader, and a process it started in its group is stopped
//! only if the server stops it on that SIGTERM.
//! It must serve the routes the workloads ask for (`GET /`, `GET /bytes/{n}`, `POST
//! /payload` echoed) and answer them as `http_core` does; the client checks every byte, so
//! a different answer fails the run.

use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::affinity::CpuSet;
use crate::servers::group;
use crate::servers::nginx::free_port_on;
use crate::servers::{Contender, Launch, pinned_command};

/// How long the server may take to accept connections.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(20);

/// How long it may take to exit after SIGTERM before its group is killed.
const STOP_TIMEOUT: Duration = Duration::from_secs(3);

/// What `--server` takes, for messages.
pub const USAGE: &str = "--server takes NAME=COMMAND with {port} in the command, e.g. \
    --server 'my_server=./target/release/my_server --listen 127.0.0.1:{port}'";

/// The contender `spec` (`NAME=COMMAND {port}`) names: its id and label are NAME, and it
/// is started by [`Outside::start`]. The strings live as long as the run (a run parses a
/// few of them, once).
pub fn parse(spec: &str) -> Result<Contender, String> {
    let (name, command) = spec.split_once('=').ok_or(USAGE)?;
    let (name, command) = (name.trim(), command.trim());
    if name.is_empty() || name.contains(',') || !command.contains("{port}") {
        return Err(format!("{USAGE} (a name without commas); got {spec:?}"));
    }
    let name: &'static str = Box::leak(name.to_string().into_boxed_str());
    let command: &'static str = Box::leak(command.to_string().into_boxed_str());
    Ok(Contender {
        id: name,
        label: name,
        package: OUTSIDE_PACKAGE,
        binary: "sh",
        args: &[],
        url_env: None,
        launch: Launch::Command(command),
    })
}

/// The `package` of every outside contender: none of ours.
pub const OUTSIDE_PACKAGE: &str = "(your server)";

/// The outside contenders of `specs`, in order; an error names the one that is wrong.
pub fn parse_all(specs: &[String]) -> Result<Vec<Contender>, String> {
    let contenders: Vec<Contender> = specs.iter().map(|s| parse(s)).collect::<Result<_, _>>()?;
    for (i, c) in contenders.iter().enumerate() {
        if contenders[..i].iter().any(|d| d.id == c.id) {
            return Err(format!("--server: two servers named {:?}", c.id));
        }
    }
    Ok(contenders)
}

/// A running outside server, stopped (SIGTERM, then SIGKILL) when dropped.
pub struct Outside {
    child: Child,
    addr: SocketAddr,
    /// When its group was sent SIGTERM ([`Outside::terminate`]), once it was.
    terminated: Option<Instant>,
}

impl Outside {
    /// Starts `command` ([`command_line`]) pinned to `cpus`, in a process group of its
    /// own (so whatever it starts is stopped with it), and waits until it accepts
    /// connections.
    pub fn start(
        command: &str,
        cpus: Option<&CpuSet>,
        settings: (Option<&Path>, usize),
    ) -> Result<Outside, String> {
        Outside::start_at(IpAddr::V4(Ipv4Addr::LOCALHOST), command, cpus, settings)
    }

    /// As [`Outside::start`], with `{port}` a port free on `ip` (chosen here: a port
    /// another process listens on would pass the readiness probe), and ready once it
    /// accepts connections there: the command must listen on `ip`.
    pub fn start_at(
        ip: IpAddr,
        command: &str,
        cpus: Option<&CpuSet>,
        (files_dir, threads): (Option<&Path>, usize),
    ) -> Result<Outside, String> {
        let addr = free_port_on(ip)?;
        let files_dir = match files_dir {
            Some(dir) => dir.to_path_buf(),
            None => no_files()?,
        };
        let fill = Fill {
            port: addr.port(),
            files_dir: &files_dir,
            threads,
        };
        let line = command_line(command, &fill);
        let child = pinned_command("sh".as_ref(), cpus)
            .args(["-c", &line])
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start {line:?}: {e}"))?;
        // From here on, dropping it stops the group.
        let mut server = Outside {
            child,
            addr,
            terminated: None,
        };
        let exited = |server: &mut Outside| match server.child.try_wait() {
            Ok(None) => Ok(()),
            Ok(Some(status)) => Err(format!("{line:?} exited at startup ({status})")),
            Err(e) => Err(e.to_string()),
        };
        let deadline = Instant::now() + STARTUP_TIMEOUT;
        while Instant::now() < deadline {
            exited(&mut server)?;
            if TcpStream::connect_timeout(&addr, Duration::from_millis(100)).is_ok() {
                // What accepted may be another process that took the port first, the
                // server then failing to listen: it must still be running.
                exited(&mut server)?;
                return Ok(server);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Err(format!(
            "{line:?} did not accept on {addr} within {STARTUP_TIMEOUT:?}"
        ))
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The pid of the server (the shell exec'd into it).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends SIGTERM to its whole group (the server and anything it started), once, and
    /// returns: dropping it then waits for the server only what is left of
    /// [`STOP_TIMEOUT`] from now, so many servers told first stop together.
    pub fn terminate(&mut self) {
        if self.terminated.is_none() {
            group::signal(self.child.id(), libc::SIGTERM);
            self.terminated = Some(Instant::now());
        }
    }
}

impl Drop for Outside {
    /// SIGTERM to the whole group (unless [`Outside::terminate`] sent it), up to
    /// [`STOP_TIMEOUT`] after it for the server to exit, then SIGKILL to the group
    /// always (a process the server started may outlive it), and the server reaped. It is
    /// reaped only after the SIGKILL: until then its pid, the group's id, cannot be given
    /// to another process.
    fn drop(&mut self) {
        self.terminate();
        let deadline = self.terminated.unwrap_or_else(Instant::now) + STOP_TIMEOUT;
        while Instant::now() < deadline && !group::has_exited(self.child.id()) {
            std::thread::sleep(Duration::from_millis(20));
        }
        group::signal(self.child.id(), libc::SIGKILL);
        let _ = self.child.wait();
    }
}

/// What a command's placeholders stand for.
pub struct Fill<'a> {
    pub port: u16,
    pub files_dir: &'a Path,
    pub threads: usize,
}

/// The shell line that starts `command`: `exec` (so the process started is the server),
/// `{port}`, `{files_dir}` and `{threads}` replaced by what `fill` gives.
pub fn command_line(command: &str, fill: &Fill) -> String {
    let command = command
        .replace("{port}", &fill.port.to_string())
        .replace("{files_dir}", &fill.files_dir.to_string_lossy())
        .replace("{threads}", &fill.threads.to_string());
    format!("exec {command}")
}

/// Whether a server started by `command` is told where the files are.
pub fn takes_files_dir(command: &str) -> bool {
    command.contains("{files_dir}")
}

/// Whether `contender`, started by the harness, is told where the files are: ours and
/// nginx are given the directory, a server of yours only where its command names
/// `{files_dir}`.
pub fn is_told_files_dir(contender: &Contender) -> bool {
    match contender.launch {
        Launch::Command(command) => takes_files_dir(command),
        _ => true,
    }
}

/// An empty directory, for `{files_dir}` in a run that serves no files.
fn no_files() -> Result<PathBuf, String> {
    let dir = std::env::temp_dir().join("uring-vs-tokio-no-files");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_names_its_server_and_keeps_its_command() {
        let c = parse("before = target/before/io_uring_server --addr 127.0.0.1:{port}").unwrap();
        assert_eq!((c.id, c.label), ("before", "before"));
        assert_eq!(
            c.launch,
            Launch::Command("target/before/io_uring_server --addr 127.0.0.1:{port}")
        );
        assert_eq!(c.floor(), None);
        assert!(!c.launch.is_cargo() && !c.is_anchor());
    }

    #[test]
    fn a_spec_without_a_name_a_port_or_with_a_taken_name_is_refused() {
        for bad in [
            "server {port}",
            "=srv {port}",
            "x=srv --port 80",
            "a,b=srv {port}",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        let twice = ["x=a {port}".to_string(), "x=b {port}".to_string()];
        assert!(parse_all(&twice).unwrap_err().contains("two servers named"));
    }

    #[test]
    fn the_command_line_execs_the_server_on_its_port() {
        let fill = Fill {
            port: 8080,
            files_dir: Path::new("/srv/files"),
            threads: 4,
        };
        let line = command_line(
            "srv --listen 127.0.0.1:{port} --root {files_dir} -j {threads} --port-file x",
            &fill,
        );
        assert_eq!(
            line,
            "exec srv --listen 127.0.0.1:8080 --root /srv/files -j 4 --port-file x"
        );
        assert!(takes_files_dir("srv {port} {files_dir}") && !takes_files_dir("srv {port}"));
    }

    #[test]
    fn the_server_is_started_on_its_port_measured_as_itself_and_stopped() {
        // A listener that does nothing else (python3 is there wherever .ci/run runs:
        // scripts/import_cycles.py needs it).
        let command = "python3 -c 'import socket,sys,time; s=socket.socket(); \
                       s.bind((\"127.0.0.1\",int(sys.argv[1]))); s.listen(); time.sleep(30)' {port}";
        let server = Outside::start(command, None, (None, 1)).unwrap();
        let comm = std::fs::read_to_string(format!("/proc/{}/comm", server.pid())).unwrap();
        assert!(comm.starts_with("python3"), "{comm}");
        assert!(TcpStream::connect(server.addr()).is_ok());
        let pid = server.pid();
        drop(server);
        assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists());
    }
}

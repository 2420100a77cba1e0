//! The other end of the ready line: a server binary started by a test or a benchmark,
//! on port 0, its real address read from its ready line, stopped (SIGKILL) when dropped
//! so no process outlives its harness.

use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::process::{Child, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// How long a server may take to print its ready line.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);

/// A running server binary and the address it listens on.
pub struct ServerProcess {
    child: Child,
    addr: SocketAddr,
    label: String,
}

impl ServerProcess {
    /// Starts `binary` with `args` plus `--addr 127.0.0.1:0` and waits for its ready line.
    pub fn start(binary: &str, args: &[&str]) -> ServerProcess {
        let mut command = Command::new(binary);
        command.args(args);
        let label = format!(
            "{} {}",
            binary.rsplit('/').next().unwrap_or(binary),
            args.join(" ")
        );
        ServerProcess::spawn(command, label).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Starts a prepared command (e.g. pinned to CPUs) with `--addr 127.0.0.1:0` added,
    /// and waits for its ready line.
    pub fn spawn(mut command: Command, label: String) -> Result<ServerProcess, String> {
        let mut child = command
            .args(["--addr", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start {label}: {e}"))?;
        let stdout = child.stdout.take().expect("stdout is piped");
        match read_ready_line(stdout) {
            Some(addr) => Ok(ServerProcess { child, addr, label }),
            None => {
                let _ = child.kill();
                let status = child.wait().ok();
                Err(format!(
                    "{label} printed no ready line within {STARTUP_TIMEOUT:?} (exit: {status:?})"
                ))
            }
        }
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The binary and flags, for messages.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Sends a signal (e.g. `libc::SIGTERM`) to the server.
    pub fn signal(&self, signal: i32) {
        // SAFETY: kill(2) on a pid we spawned and have not yet reaped; no memory is shared.
        let rc = unsafe { libc::kill(self.child.id() as libc::pid_t, signal) };
        assert_eq!(rc, 0, "kill({}, {signal}) failed", self.child.id());
    }

    /// Waits up to `limit` for the server to exit on its own.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<ExitStatus> {
        let deadline = std::time::Instant::now() + limit;
        while std::time::Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    /// Whether the server process is still running.
    pub fn is_running(&mut self) -> bool {
        self.child.try_wait().expect("try_wait").is_none()
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads stdout on a helper thread (so a silent server cannot hang the test) until the
/// ready line, then keeps draining it so the server never blocks on a full pipe.
fn read_ready_line(stdout: ChildStdout) -> Option<SocketAddr> {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        let mut line = String::new();
        while reader.read_line(&mut line).unwrap_or(0) > 0 {
            if let Some(addr) = crate::ready::parse_ready_line(line.trim_end()) {
                let _ = sender.send(addr);
                break;
            }
            line.clear();
        }
        let _ = std::io::copy(&mut reader.into_inner().take(u64::MAX), &mut std::io::sink());
    });
    receiver.recv_timeout(STARTUP_TIMEOUT).ok()
}

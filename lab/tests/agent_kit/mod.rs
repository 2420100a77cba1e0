//! What the agent's tests share (`agent_refusals.rs`, `agent_servers.rs`): an `agent`
//! binary on loopback that offers no catalogue contender (nothing is built) and two
//! listed commands in python3 (there wherever `.ci/run` runs: `scripts/import_cycles.py`
//! needs it): a listener that does nothing else, and one that spins on one thread. Raw
//! lines go where the client (`harness::remote`) cannot send a wrong one. Each test file
//! uses part of it.
#![allow(dead_code)]

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use harness::remote::{AgentClient, Token};

pub const TOKEN: &str = "a-test-token-of-32-characters-ok";

/// A listener that does nothing else.
const LISTENER: &str = "listener=python3 -c 'import socket,sys,time; s=socket.socket(); \
    s.bind((\"127.0.0.1\",int(sys.argv[1]))); s.listen(); time.sleep(60)' {port}";

/// A listener that spins on one thread once it listens (`any` never meets a true value).
const SPINNER: &str = "spinner=python3 -c 'import socket,sys; s=socket.socket(); \
    s.bind((\"127.0.0.1\",int(sys.argv[1]))); s.listen(); any(iter(int, 1))' {port}";

/// How long anything the agent should do promptly may take here.
pub const PROMPTLY: Duration = Duration::from_secs(10);

/// A request line with the token, for `request`'s fields (`"request":"stop","pid":1`).
pub fn with_token(request: &str) -> String {
    format!(r#"{{"token":"{TOKEN}",{request}}}"#)
}

/// A token file of `mode` for test `test`.
pub fn token_file(test: &str, mode: u32) -> PathBuf {
    let path = std::env::temp_dir().join(format!("agent-{}-{test}.token", std::process::id()));
    std::fs::write(&path, format!("{TOKEN}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    path
}

/// An agent on 127.0.0.1 taking connections from `client` only, killed when dropped.
pub struct TestAgent {
    child: Child,
    pub addr: SocketAddr,
    /// Its token file and its log (stderr).
    files: [PathBuf; 2],
}

impl TestAgent {
    pub fn start(test: &str, client: &str) -> TestAgent {
        TestAgent::start_with(test, client, &[])
    }

    /// As [`TestAgent::start`], with `flags` added.
    pub fn start_with(test: &str, client: &str, flags: &[&str]) -> TestAgent {
        let token_file = token_file(test, 0o600);
        let log = std::env::temp_dir().join(format!("agent-{}-{test}.log", std::process::id()));
        let mut child = Command::new(env!("CARGO_BIN_EXE_agent"))
            .args(["--listen", "127.0.0.1:0", "--client", client])
            .args(["--contenders", "none", "--allow", LISTENER, "--allow", SPINNER])
            .arg("--token-file")
            .arg(&token_file)
            .args(flags)
            .stdout(Stdio::piped())
            .stderr(File::create(&log).unwrap())
            .spawn()
            .unwrap();
        // The agent's one line on stdout, once it listens (or nothing, should it fail).
        let mut ready = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut ready)
            .unwrap();
        let addr = ready
            .split("listening on ")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|addr| addr.parse::<SocketAddr>().ok());
        let Some(addr) = addr else {
            let said = std::fs::read_to_string(&log).unwrap_or_default();
            panic!("no ready line from the agent: {ready:?}; it said: {said}");
        };
        TestAgent {
            child,
            addr,
            files: [token_file, log],
        }
    }

    /// A session through the client, once the agent takes one (the previous session may
    /// still be ending: the client tries a busy agent again, for a while).
    pub fn session(&self) -> AgentClient {
        let deadline = Instant::now() + PROMPTLY;
        loop {
            match AgentClient::connect(self.addr, Token::new(TOKEN).unwrap()) {
                Ok(client) => return client,
                Err(e) if Instant::now() < deadline => eprintln!("not yet: {e}"),
                Err(e) => panic!("no session: {e}"),
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// A raw connection to the agent, replies read with a timeout.
    pub fn raw(&self) -> (TcpStream, BufReader<TcpStream>) {
        let stream = TcpStream::connect(self.addr).unwrap();
        stream.set_read_timeout(Some(PROMPTLY)).unwrap();
        let reader = BufReader::new(stream.try_clone().unwrap());
        (stream, reader)
    }

    /// A raw connection whose first `line` was read by a session, not refused because
    /// the previous session was still ending; the reply to it.
    pub fn raw_session(&self, line: &str) -> (TcpStream, BufReader<TcpStream>, String) {
        let deadline = Instant::now() + PROMPTLY;
        loop {
            let (mut stream, mut reader) = self.raw();
            let answer = exchange(&mut stream, &mut reader, line);
            let busy = answer.is_empty() || answer.contains("refused: busy");
            if !busy || Instant::now() > deadline {
                return (stream, reader, answer);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Sends `signal` to the agent and waits for it to exit.
    pub fn stop_with(&mut self, signal: libc::c_int) -> ExitStatus {
        let pid = libc::pid_t::try_from(self.child.id()).unwrap();
        // SAFETY: kill(2) on our own child, not yet reaped; no memory is shared.
        let sent = unsafe { libc::kill(pid, signal) };
        assert_eq!(sent, 0, "kill({pid}, {signal})");
        let deadline = Instant::now() + PROMPTLY;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("the agent did not exit within {PROMPTLY:?} of signal {signal}");
    }
}

impl Drop for TestAgent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        for file in &self.files {
            let _ = std::fs::remove_file(file);
        }
    }
}

/// What the agent said when it exited at startup, given `flags` beside a client, no
/// contenders and a token file of `mode`; it must exit within [`PROMPTLY`] with status 2
/// and one line on stderr.
pub fn refused_at_startup(test: &str, flags: &[&str], mode: u32) -> String {
    let token = token_file(test, mode);
    let mut child = Command::new(env!("CARGO_BIN_EXE_agent"))
        .args(["--client", "127.0.0.1", "--contenders", "none"])
        .arg("--token-file")
        .arg(&token)
        .args(flags)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + PROMPTLY;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the agent started with {flags:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let _ = std::fs::remove_file(&token);
    let mut said = String::new();
    child.stderr.take().unwrap().read_to_string(&mut said).unwrap();
    assert_eq!(status.code(), Some(2), "{flags:?}: {said}");
    assert_eq!(said.lines().count(), 1, "{flags:?}: {said}");
    assert!(said.starts_with("agent: error: "), "{said}");
    said
}

/// Sends `line` and its newline, and reads the one reply line ("" if none came).
pub fn exchange(stream: &mut TcpStream, reader: &mut BufReader<TcpStream>, line: &str) -> String {
    // A refusal may close the connection before the line is sent.
    let _ = stream.write_all(format!("{line}\n").as_bytes());
    reply(reader)
}

/// The next reply line ("" if the connection ended or failed first).
pub fn reply(reader: &mut BufReader<TcpStream>) -> String {
    let mut line = String::new();
    match reader.read_line(&mut line) {
        Ok(_) => line,
        Err(_) => String::new(),
    }
}

/// Whether the agent has closed the connection (its end reached, or a reset), whatever
/// came before the end; false when the read timed out with the connection open.
pub fn closed(reader: &mut BufReader<TcpStream>) -> bool {
    let mut rest = Vec::new();
    match reader.read_to_end(&mut rest) {
        Ok(_) => true,
        Err(e) => e.kind() == std::io::ErrorKind::ConnectionReset,
    }
}

pub fn alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// Whether every one of `pids` is gone within [`PROMPTLY`].
pub fn all_gone(pids: &[u32]) -> bool {
    let deadline = Instant::now() + PROMPTLY;
    while pids.iter().any(|&pid| alive(pid)) {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

//! The agent's refusals, and its promise that no server outlives a session, checked
//! against the `agent` binary on loopback. Each test runs an agent of its own that offers
//! no catalogue contender (nothing is built) and one listed command, a listener in
//! python3 (there wherever `.ci/run` runs: `scripts/import_cycles.py` needs it). The
//! refusals are sent as raw lines, since the client (`harness::remote`) cannot send a
//! wrong one; what a study does goes through the client.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use harness::remote::protocol::MAX_REQUEST_LINE;
use harness::remote::{AgentClient, RemoteServer, Token};

const TOKEN: &str = "a-test-token-of-32-characters-ok";

/// The one command the agent is allowed: a listener that does nothing else.
const LISTENER: &str = "listener=python3 -c 'import socket,sys,time; s=socket.socket(); \
    s.bind((\"127.0.0.1\",int(sys.argv[1]))); s.listen(); time.sleep(60)' {port}";

/// How long anything the agent should do promptly may take here.
const PROMPTLY: Duration = Duration::from_secs(10);

/// An agent on 127.0.0.1 taking connections from `client` only, killed when dropped.
struct TestAgent {
    child: Child,
    addr: SocketAddr,
    /// Its token file and its log (stderr).
    files: [PathBuf; 2],
}

impl TestAgent {
    fn start(test: &str, client: &str) -> TestAgent {
        let stem = format!("agent-{}-{test}", std::process::id());
        let file = |kind: &str| std::env::temp_dir().join(format!("{stem}.{kind}"));
        let (token_file, log) = (file("token"), file("log"));
        std::fs::write(&token_file, format!("{TOKEN}\n")).unwrap();
        std::fs::set_permissions(&token_file, std::fs::Permissions::from_mode(0o600)).unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_agent"))
            .args(["--listen", "127.0.0.1:0", "--client", client])
            .args(["--contenders", "none", "--allow", LISTENER])
            .arg("--token-file")
            .arg(&token_file)
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
    /// still be ending).
    fn session(&self) -> AgentClient {
        let deadline = Instant::now() + PROMPTLY;
        loop {
            let mut client = AgentClient::connect(self.addr, Token::new(TOKEN).unwrap()).unwrap();
            match client.stop(0) {
                Err(e) if e.contains("no server with pid 0") => return client,
                Err(e) if Instant::now() < deadline => eprintln!("not yet: {e}"),
                other => panic!("no session: {other:?}"),
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// A raw connection to the agent, replies read with a timeout.
    fn raw(&self) -> (TcpStream, BufReader<TcpStream>) {
        let stream = TcpStream::connect(self.addr).unwrap();
        stream.set_read_timeout(Some(PROMPTLY)).unwrap();
        let reader = BufReader::new(stream.try_clone().unwrap());
        (stream, reader)
    }

    /// A raw connection whose first `line` was read by a session, not refused at the
    /// door because the previous session was still ending; the reply to it.
    fn raw_session(&self, line: &str) -> (TcpStream, BufReader<TcpStream>, String) {
        let deadline = Instant::now() + PROMPTLY;
        loop {
            let (mut stream, mut reader) = self.raw();
            let answer = exchange(&mut stream, &mut reader, line);
            let refused_at_door = answer.is_empty() || answer.contains("refused: busy");
            if !refused_at_door || Instant::now() > deadline {
                return (stream, reader, answer);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Sends SIGTERM to the agent and waits for it to exit.
    fn terminate(&mut self) -> ExitStatus {
        let pid = libc::pid_t::try_from(self.child.id()).unwrap();
        // SAFETY: kill(2) on our own child, not yet reaped; no memory is shared.
        let sent = unsafe { libc::kill(pid, libc::SIGTERM) };
        assert_eq!(sent, 0, "kill({pid}, SIGTERM)");
        let deadline = Instant::now() + PROMPTLY;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("the agent did not exit within {PROMPTLY:?} of SIGTERM");
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

/// Sends `line` and its newline, and reads the one reply line ("" if none came).
fn exchange(stream: &mut TcpStream, reader: &mut BufReader<TcpStream>, line: &str) -> String {
    // A refusal at the door may close the connection before the line is sent.
    let _ = stream.write_all(format!("{line}\n").as_bytes());
    reply(reader)
}

/// The next reply line ("" if the connection ended or failed first).
fn reply(reader: &mut BufReader<TcpStream>) -> String {
    let mut line = String::new();
    match reader.read_line(&mut line) {
        Ok(_) => line,
        Err(_) => String::new(),
    }
}

/// Whether the agent has closed the connection (end of stream, or reset).
fn closed(reader: &mut BufReader<TcpStream>) -> bool {
    let mut rest = Vec::new();
    match reader.read_to_end(&mut rest) {
        Ok(_) => rest.is_empty(),
        Err(e) => e.kind() == std::io::ErrorKind::ConnectionReset,
    }
}

fn alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// Whether every one of `pids` is gone within [`PROMPTLY`].
fn all_gone(pids: &[u32]) -> bool {
    let deadline = Instant::now() + PROMPTLY;
    while pids.iter().any(|&pid| alive(pid)) {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

#[test]
fn a_connection_from_an_address_not_given_is_refused_and_closed() {
    let agent = TestAgent::start("peer", "127.0.0.2");
    let (_stream, mut reader) = agent.raw();
    let refusal = reply(&mut reader);
    assert!(refusal.starts_with(r#"{"error":"refused: "#), "{refusal}");
    assert!(refusal.contains("127.0.0.1"), "{refusal}");
    assert!(closed(&mut reader));
}

#[test]
fn a_missing_or_wrong_token_is_refused_and_ends_the_session() {
    let agent = TestAgent::start("token", "127.0.0.1");
    // Through the client, as a study with the wrong token file would see it.
    let other = Token::new("another-token-of-32-characters!!").unwrap();
    let mut study = AgentClient::connect(agent.addr, other).unwrap();
    let error = study.stop(1).unwrap_err();
    assert!(error.contains("refused: wrong token"), "{error}");
    drop(study);
    // Raw lines, which the client never sends.
    let refused = |line: &str| {
        let (_stream, mut reader, refusal) = agent.raw_session(line);
        assert!(closed(&mut reader), "{line} left the session open");
        refusal
    };
    let missing = refused(r#"{"request":"start","contender":"listener"}"#);
    assert!(missing.contains("refused: no token"), "{missing}");
    let wrong = format!(r#"{{"token":"{TOKEN}x","request":"stop","pid":1}}"#);
    assert!(refused(&wrong).contains("refused: wrong token"));
    let short = format!(r#"{{"token":"{}","request":"stop","pid":1}}"#, &TOKEN[..31]);
    assert!(refused(&short).contains("refused: wrong token"));
    assert!(refused("start listener").contains("refused: not a JSON request"));
}

#[test]
fn an_unknown_command_is_refused_and_the_session_goes_on() {
    let agent = TestAgent::start("unknown", "127.0.0.1");
    let mut client = agent.session();
    for name in ["sh", "io_uring", "python3", "listener; sh"] {
        let error = client.start(name, 0, None).unwrap_err();
        assert!(error.contains(&format!("unknown contender {name:?}")), "{error}");
        assert!(error.contains("this agent starts only listener"), "{error}");
    }
    let error = client.stop(1).unwrap_err();
    assert!(error.contains("no server with pid 1 in this session"), "{error}");
    drop(client);
    let exec = format!(r#"{{"token":"{TOKEN}","request":"exec","command":"id"}}"#);
    let (mut stream, mut reader, answer) = agent.raw_session(&exec);
    assert!(answer.contains("not a request this agent serves"), "{answer}");
    let stop = format!(r#"{{"token":"{TOKEN}","request":"stop","pid":1}}"#);
    let answer = exchange(&mut stream, &mut reader, &stop);
    assert!(answer.contains("no server with pid 1"), "{answer}");
}

#[test]
fn an_over_long_line_is_refused_without_reading_on() {
    let agent = TestAgent::start("long", "127.0.0.1");
    let (mut stream, mut reader) = agent.raw();
    stream.write_all(&vec![b'x'; MAX_REQUEST_LINE + 1]).unwrap();
    let refusal = reply(&mut reader);
    let too_long = format!("longer than {MAX_REQUEST_LINE} bytes");
    assert!(refusal.contains(&too_long), "{refusal}");
    assert!(closed(&mut reader));
    // A peer that sends on and on in its session is not read on: sending 64 MiB fails
    // long before the end.
    let stop = format!(r#"{{"token":"{TOKEN}","request":"stop","pid":1}}"#);
    let (mut flood, _reader, answer) = agent.raw_session(&stop);
    assert!(answer.contains("no server with pid 1"), "{answer}");
    flood.set_write_timeout(Some(PROMPTLY)).unwrap();
    let (chunk, all) = (vec![b'x'; 1 << 20], 64usize << 20);
    let mut sent = 0;
    while sent < all {
        match flood.write(&chunk) {
            Ok(n) => sent += n,
            Err(_) => break,
        }
    }
    assert!(sent < all, "the agent read all of {all} bytes without a newline");
    drop(flood);
    drop(agent.session());
}

#[test]
fn one_session_at_a_time() {
    let agent = TestAgent::start("busy", "127.0.0.1");
    let mut first = agent.session();
    let (_stream, mut reader) = agent.raw();
    let refusal = reply(&mut reader);
    assert!(refusal.contains("refused: busy"), "{refusal}");
    assert!(closed(&mut reader));
    assert!(first.stop(1).unwrap_err().contains("no server with pid 1"));
}

#[test]
fn stop_kills_the_started_process_and_waits_for_it() {
    let agent = TestAgent::start("stop", "127.0.0.1");
    let mut client = agent.session();
    let started = client.start("listener", 0, Some(1)).unwrap();
    assert!(alive(started.pid));
    assert_eq!(started.addr.ip().to_string(), "127.0.0.1");
    assert!(TcpStream::connect(started.addr).is_ok());
    let usage = client.usage(started.pid, true).unwrap();
    assert!(usage.threads >= 1 && usage.rss_kib > 0, "{usage:?}");
    let later = client.usage(started.pid, false).unwrap();
    assert!(later.cpu.since(&usage.cpu) < PROMPTLY);
    let pid = started.pid;
    client.stop(pid).unwrap();
    assert!(!alive(pid), "stop answered before pid {pid} was gone");
    let again = client.stop(pid).unwrap_err();
    assert!(again.contains("no server with pid"), "{again}");
    // A study's server, stopped when dropped.
    let shared = Arc::new(Mutex::new(client));
    let server = RemoteServer::start(&shared, "listener", None).unwrap();
    let remote = server.pid();
    assert!(alive(remote) && server.usage(false).is_ok());
    drop(server);
    assert!(!alive(remote));
}

#[test]
fn a_dropped_connection_kills_what_its_session_started() {
    let agent = TestAgent::start("drop", "127.0.0.1");
    let mut client = agent.session();
    let pids: Vec<u32> = (0..2)
        .map(|_| client.start("listener", 0, None).unwrap().pid)
        .collect();
    assert!(pids.iter().all(|&pid| alive(pid)));
    drop(client);
    assert!(all_gone(&pids), "{pids:?} outlived their session");
    // The session's place is free again.
    let mut next = agent.session();
    let pid = next.start("listener", 0, None).unwrap().pid;
    next.stop(pid).unwrap();
}

#[test]
fn sigterm_stops_every_server_before_the_agent_exits() {
    let mut agent = TestAgent::start("term", "127.0.0.1");
    let mut client = agent.session();
    let pid = client.start("listener", 0, None).unwrap().pid;
    assert!(agent.terminate().success());
    assert!(!alive(pid), "pid {pid} outlived the agent");
}

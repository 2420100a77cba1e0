//! The agent's promise that no server outlives a session, and what it reports of one,
//! checked against the `agent` binary on loopback: a server is stopped and gone when the
//! study asks, when its connection drops, when the session is silent for `--idle-secs`,
//! and when the agent gets SIGTERM or SIGHUP; its CPU is the server's own.

mod agent_kit;

use std::net::TcpStream;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use agent_kit::{TestAgent, alive, all_gone};
use harness::remote::RemoteServer;

#[test]
fn stop_kills_the_started_process_and_waits_for_it() {
    let agent = TestAgent::start("stop", "127.0.0.1");
    let mut client = agent.session();
    assert!(!client.hello().cpus.is_empty() && !client.hello().version.is_empty());
    let started = client.start("listener", Some(1)).unwrap();
    assert!(alive(started.pid));
    assert_eq!(started.addr.ip().to_string(), "127.0.0.1");
    assert!(TcpStream::connect(started.addr).is_ok());
    let usage = client.usage(started.pid, true).unwrap();
    assert!(usage.threads >= 1 && usage.rss_kib > 0, "{usage:?}");
    let pid = started.pid;
    client.stop(pid).unwrap();
    assert!(!alive(pid), "stop answered before pid {pid} was gone");
    let again = client.stop(pid).unwrap_err();
    assert!(again.contains("no server with pid"), "{again}");
    // A study's server, stopped when dropped.
    let shared = Arc::new(Mutex::new(client));
    let server = RemoteServer::start(&shared, "listener", None, (false, false)).unwrap();
    let remote = server.pid();
    assert!(alive(remote) && server.usage(false).is_ok());
    drop(server);
    assert!(!alive(remote));
}

#[test]
fn the_cpu_reported_is_the_servers_own() {
    let agent = TestAgent::start("cpu", "127.0.0.1");
    let mut client = agent.session();
    let pid = client.start("spinner", Some(1)).unwrap().pid;
    let began = Instant::now();
    let earlier = client.usage(pid, false).unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let later = client.usage(pid, false).unwrap();
    let between = began.elapsed();
    let spent = later.cpu.since(&earlier.cpu);
    // It spins on one thread: CPU time while it ran, and no more than the time between.
    assert!(spent >= Duration::from_millis(50), "{spent:?} in {between:?}");
    let rounding = Duration::from_millis(50);
    assert!(spent <= between + rounding, "{spent:?} in {between:?}");
    client.stop(pid).unwrap();
}

#[test]
fn a_dropped_connection_kills_what_its_session_started() {
    let agent = TestAgent::start("drop", "127.0.0.1");
    let mut client = agent.session();
    let pids: Vec<u32> = (0..2)
        .map(|_| client.start("listener", None).unwrap().pid)
        .collect();
    assert!(pids.iter().all(|&pid| alive(pid)));
    drop(client);
    assert!(all_gone(&pids), "{pids:?} outlived their session");
    // The session's place is free again.
    let mut next = agent.session();
    let pid = next.start("listener", None).unwrap().pid;
    next.stop(pid).unwrap();
}

#[test]
fn a_silent_session_ends_and_kills_what_it_started() {
    let agent = TestAgent::start_with("idle", "127.0.0.1", &["--idle-secs", "1"]);
    let mut client = agent.session();
    let pid = client.start("listener", None).unwrap().pid;
    assert!(all_gone(&[pid]), "pid {pid} outlived its silent session");
    let error = client.usage(pid, false).unwrap_err();
    assert!(!error.is_empty());
}

#[test]
fn sigterm_or_sighup_stops_every_server_before_the_agent_exits() {
    for (test, signal) in [("term", libc::SIGTERM), ("hup", libc::SIGHUP)] {
        let mut agent = TestAgent::start(test, "127.0.0.1");
        let mut client = agent.session();
        let pid = client.start("listener", None).unwrap().pid;
        assert!(agent.stop_with(signal).success(), "{test}");
        assert!(!alive(pid), "pid {pid} outlived the agent ({test})");
    }
}

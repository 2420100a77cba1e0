//! The agent's refusals, each checked against the `agent` binary on loopback: at startup
//! (an address of every interface, a token file others may read, CPUs it may not run
//! on), at the door (a peer address it was not given, a second session), on the first
//! request (no token, a wrong one, not JSON, too long, too slow however it trickles in)
//! and within a session (an unknown command, a port of the peer's choosing, threads out
//! of bounds). Each refusal is one clear line; a refused connection is closed.

mod agent_kit;

use std::io::{BufRead, ErrorKind, Write};
use std::time::{Duration, Instant};

use agent_kit::{PROMPTLY, TOKEN, TestAgent, closed, exchange, refused_at_startup, reply, with_token};
use harness::affinity::CpuSet;
use harness::remote::protocol::MAX_REQUEST_LINE;
use harness::remote::{AgentClient, Token};
use lab::agent::running::{MAX_THREADS, THREADS_PER_CPU};

#[test]
fn every_interface_an_open_token_file_or_cpus_it_may_not_use_fail_at_startup() {
    let any = refused_at_startup("any", &["--listen", "0.0.0.0:0"], 0o600);
    assert!(any.contains("--listen 0.0.0.0:0"), "{any}");
    let open = refused_at_startup("open", &["--listen", "127.0.0.1:0"], 0o640);
    assert!(open.contains("chmod 600"), "{open}");
    let cpus = ["--listen", "127.0.0.1:0", "--cpus", "4096"];
    let beyond = refused_at_startup("cpus", &cpus, 0o600);
    assert!(beyond.contains("--cpus 4096"), "{beyond}");
}

#[test]
fn a_connection_from_an_address_not_given_is_refused_and_closed() {
    let agent = TestAgent::start("peer", "127.0.0.2");
    let (_stream, mut reader) = agent.raw();
    let refusal = reply(&mut reader);
    assert!(refusal.starts_with(r#"{"error":"refused: "#), "{refusal}");
    assert!(
        refusal.contains("no connection is taken from 127.0.0.1"),
        "{refusal}"
    );
    assert!(closed(&mut reader));
}

#[test]
fn a_missing_or_wrong_token_is_refused_and_ends_the_connection() {
    let agent = TestAgent::start("token", "127.0.0.1");
    // Through the client, as a study with the wrong token file would see it: at connect.
    let other = Token::new("another-token-of-32-characters!!").unwrap();
    let error = AgentClient::connect(agent.addr, other).err().unwrap();
    assert!(error.contains("refused: wrong token"), "{error}");
    // Raw lines, which the client never sends.
    let refused = |line: &str| {
        let (_stream, mut reader, refusal) = agent.raw_session(line);
        assert!(closed(&mut reader), "{line} left the connection open");
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
fn a_first_line_that_trickles_in_is_cut_off_at_its_deadline() {
    let flags = ["--first-request-ms", "1000"];
    let agent = TestAgent::start_with("trickle", "127.0.0.1", &flags);
    let (mut stream, mut reader) = agent.raw();
    reader
        .get_ref()
        .set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    // A byte every 200 ms: each read alone is quick, the line never ends.
    let began = Instant::now();
    let mut heard = String::new();
    let ended = loop {
        assert!(began.elapsed() < PROMPTLY, "still open after {PROMPTLY:?}");
        if let Err(e) = stream.write_all(b"{") {
            break format!("write: {e}");
        }
        match reader.read_line(&mut heard) {
            Ok(0) => break "its end".to_string(),
            Ok(_) => {}
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(e) => break format!("read: {e}"),
        }
    };
    let took = began.elapsed();
    assert!(took < Duration::from_secs(5), "closed after {took:?} ({ended})");
    let refusal = "refused: no request within 1s";
    assert!(heard.is_empty() || heard.contains(refusal), "{heard}");
    // A session still opens.
    drop(agent.session());
}

#[test]
fn an_over_long_line_is_refused_and_a_flood_closes_the_connection() {
    let agent = TestAgent::start("long", "127.0.0.1");
    let (mut stream, mut reader) = agent.raw();
    stream.write_all(&vec![b'x'; MAX_REQUEST_LINE + 1]).unwrap();
    let refusal = reply(&mut reader);
    let too_long = format!("longer than {MAX_REQUEST_LINE} bytes");
    assert!(refusal.contains(&too_long), "{refusal}");
    assert!(closed(&mut reader));
    // A peer that sends on and on in its session is not read on: the agent closes the
    // connection, so sending fails (reset, or a broken pipe) long before 64 MiB.
    let stop = with_token(r#""request":"stop","pid":1"#);
    let (mut flood, mut reader, answer) = agent.raw_session(&stop);
    assert!(answer.contains("no server with pid 1"), "{answer}");
    flood.set_write_timeout(Some(PROMPTLY)).unwrap();
    let (chunk, all) = (vec![b'x'; 1 << 20], 64usize << 20);
    let mut sent = 0;
    let error = loop {
        match flood.write(&chunk) {
            Ok(n) => sent += n,
            Err(e) => break e,
        }
        assert!(sent < all, "the agent read all of {all} bytes without a newline");
    };
    let closed_by_agent = matches!(error.kind(), ErrorKind::BrokenPipe | ErrorKind::ConnectionReset);
    // Had the write only timed out, the agent must still have closed its end.
    assert!(
        closed_by_agent || closed(&mut reader),
        "{error}: the agent kept the connection"
    );
    drop(flood);
    drop(agent.session());
}

#[test]
fn one_session_at_a_time() {
    let agent = TestAgent::start("busy", "127.0.0.1");
    let mut first = agent.session();
    let (mut stream, mut reader) = agent.raw();
    let refusal = exchange(&mut stream, &mut reader, &with_token(r#""request":"hello""#));
    assert!(refusal.contains("refused: busy"), "{refusal}");
    assert!(closed(&mut reader));
    // The client tries again for a while, then says so.
    let busy = AgentClient::connect(agent.addr, Token::new(TOKEN).unwrap())
        .err()
        .unwrap();
    assert!(busy.contains("refused: busy"), "{busy}");
    assert!(first.stop(1).unwrap_err().contains("no server with pid 1"));
}

#[test]
fn an_unknown_command_or_a_port_of_the_peers_choosing_is_refused_and_the_session_goes_on() {
    let agent = TestAgent::start("unknown", "127.0.0.1");
    let mut client = agent.session();
    for name in ["sh", "io_uring", "python3", "listener; sh"] {
        let error = client.start(name, None).unwrap_err();
        assert!(error.contains(&format!("unknown contender {name:?}")), "{error}");
        assert!(error.contains("this agent starts only listener"), "{error}");
    }
    let error = client.stop(1).unwrap_err();
    assert!(error.contains("no server with pid 1 in this session"), "{error}");
    drop(client);
    let exec = with_token(r#""request":"exec","command":"id""#);
    let (mut stream, mut reader, answer) = agent.raw_session(&exec);
    assert!(answer.contains("not a request this agent serves"), "{answer}");
    let port = with_token(r#""request":"start","contender":"listener","port":22"#);
    let answer = exchange(&mut stream, &mut reader, &port);
    assert!(
        answer.contains("port 22: the agent picks a free port itself"),
        "{answer}"
    );
    let stop = with_token(r#""request":"stop","pid":1"#);
    let answer = exchange(&mut stream, &mut reader, &stop);
    assert!(answer.contains("no server with pid 1"), "{answer}");
}

#[test]
fn threads_out_of_bounds_are_refused() {
    let cpu = CpuSet::current().0[0].to_string();
    let agent = TestAgent::start_with("threads", "127.0.0.1", &["--cpus", cpu.as_str()]);
    let mut client = agent.session();
    assert_eq!(client.hello().cpus.len(), 1);
    for threads in [0, MAX_THREADS + 1] {
        let error = client.start("listener", Some(threads)).unwrap_err();
        assert!(
            error.contains(&format!("threads {threads}: from 1 to")),
            "{error}"
        );
    }
    // The session's servers together: THREADS_PER_CPU on its one CPU.
    let pid = client.start("listener", Some(THREADS_PER_CPU)).unwrap().pid;
    let error = client.start("listener", Some(1)).unwrap_err();
    assert!(
        error.contains(&format!("and {THREADS_PER_CPU} at most")),
        "{error}"
    );
    client.stop(pid).unwrap();
    let pid = client.start("listener", None).unwrap().pid;
    client.stop(pid).unwrap();
}

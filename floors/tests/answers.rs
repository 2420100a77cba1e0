//! Each floor, started as the harness starts it, answers `GET /` as the contract does
//! (status, header names and body; the Date masked) alone and 16 deep pipelined.

use conformance::ServerProcess;
use conformance::wire::{Conn, parse_response};

const REQUEST: &[u8] = b"GET / HTTP/1.1\r\nHost: floor\r\n\r\n";
const DEPTH: usize = 16;

fn answers_like_the_contract(binary: &str) {
    let server = ServerProcess::start(binary, &["--threads", "1"]);
    let canned = floors::canned_hello();
    let (want, _) = parse_response(&canned, false).unwrap().unwrap();
    let mut conn = Conn::connect(server.addr());
    conn.send(REQUEST).unwrap();
    let got = conn.response(false).unwrap();
    assert_eq!(got.normalized(), want.normalized(), "{binary}: one request");
    conn.send(&REQUEST.repeat(DEPTH)).unwrap();
    for i in 0..DEPTH {
        let got = conn
            .response(false)
            .unwrap_or_else(|e| panic!("{binary}: pipelined {i}: {e}"));
        assert_eq!(got.normalized(), want.normalized(), "{binary}: pipelined {i}");
    }
}

#[test]
fn bare_hyper_answers() {
    answers_like_the_contract(env!("CARGO_BIN_EXE_bare_hyper"));
}

#[test]
fn bare_tokio_answers() {
    answers_like_the_contract(env!("CARGO_BIN_EXE_bare_tokio"));
}

#[test]
fn bare_uring_answers() {
    answers_like_the_contract(env!("CARGO_BIN_EXE_bare_uring"));
}

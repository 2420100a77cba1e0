//! `bare_uring` receives through one ring of provided buffers per thread. Over one
//! connection, requests pipelined in writes that cut them apart, more bytes in all than
//! the ring holds: it answers every request, so each buffer came back to the kernel and
//! a request split across completions counted once.

use std::net::Shutdown;
use std::time::Duration;

use conformance::ServerProcess;
use conformance::wire::{Conn, parse_response};

/// The bytes bare_uring's ring holds at once (`buf_ring.rs`: 1024 buffers of 4 KiB).
const RING_BYTES: usize = 1024 * 4096;
/// Writes of this many bytes, which divides no request: most requests arrive cut in two.
const WRITE: usize = 1000;

/// A `GET /` of `len` bytes, padded by a header.
fn request_of(len: usize) -> Vec<u8> {
    let head = b"GET / HTTP/1.1\r\nHost: floor\r\nX-Pad: ";
    let mut request = head.to_vec();
    request.resize(len - 4, b'a');
    request.extend_from_slice(b"\r\n\r\n");
    request
}

#[test]
fn bare_uring_answers_more_requests_than_its_buffer_ring_holds() {
    let server = ServerProcess::start(env!("CARGO_BIN_EXE_bare_uring"), &["--threads", "1"]);
    let request = request_of(1337);
    let count = 2 * RING_BYTES / request.len() + 1;
    let mut conn = Conn::connect(server.addr());
    let stuck = Some(Duration::from_secs(30));
    conn.stream().set_write_timeout(stuck).unwrap();
    for chunk in request.repeat(count).chunks(WRITE) {
        conn.send(chunk).expect("the floor takes every byte");
    }
    conn.stream().shutdown(Shutdown::Write).unwrap();
    let answers = conn
        .drain_for(Duration::from_secs(30))
        .expect("every answer, then the floor closes");

    let canned = floors::canned_hello();
    assert_eq!(
        answers.len(),
        count * canned.len(),
        "one answer per request: {count} requests"
    );
    let (first, _) = parse_response(&answers[..canned.len()], false).unwrap().unwrap();
    let (want, _) = parse_response(&canned, false).unwrap().unwrap();
    assert_eq!(first.normalized(), want.normalized());
    for (i, answer) in answers.chunks(canned.len()).enumerate() {
        assert!(
            answer == &answers[..canned.len()],
            "answer {i} differs from the first"
        );
    }
}

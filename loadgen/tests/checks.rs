//! What a cheaper client must still prove (issue 70), on each driver: a late answer is
//! measured from its request's intended send time, however the client batches its sends,
//! reads and clock reads; one wrong byte anywhere in a large body fails the run; and so
//! does a server closing a kept-alive connection, without the run waiting for its end.

mod common;

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::{OK, config, load, scripted_server};
use loadgen::run::{Config, Driver};

const DRIVERS: [Driver; 2] = [Driver::Tokio, Driver::Ring];

#[test]
fn a_late_answer_is_measured_from_its_intended_send_time() {
    for driver in DRIVERS {
        a_late_answer_is_measured_from_its_intended_send_time_by(driver);
    }
}

fn a_late_answer_is_measured_from_its_intended_send_time_by(driver: Driver) {
    let delay = Duration::from_millis(50);
    // Request 10 of ~50 (due at 90 ms) is answered 50 ms late; the others at once.
    let open = load(Config {
        rate: Some(100.0),
        duration: Duration::from_millis(500),
        driver,
        ..config(scripted_server(OK, 10, delay))
    });
    // The answer left the server at least 50 ms after the request reached it, which was
    // after the request's intended send time: whatever the client batches, the latency it
    // records from the intended time cannot be shorter.
    assert_eq!(open.first_error, None, "{driver:?}");
    assert!(open.latency_us.max >= 50_000, "{driver:?}: {open:?}");
    // Requests 11-14, due 10-40 ms after request 10, could leave only after its answer:
    // measured from their intended times they add at least 40 + 30 + 20 + 10 ms, and
    // request 11 left at least 40 ms late. (Lower bounds all: a slow machine only adds.)
    assert!(open.requests <= 51, "{driver:?}: {open:?}");
    assert!(open.latency_us.mean >= 150_000.0 / 51.0, "{driver:?}: {open:?}");
    assert!(
        open.send_lateness_us.as_ref().unwrap().max >= 40_000,
        "{driver:?}: {open:?}"
    );
    // Only the delayed answer and the sends queued behind it were slow.
    assert!(open.latency_us.p50 < 50_000, "{driver:?}: {open:?}");
}

/// A server answering every request head with `body` under a Content-Length head, but
/// its answer number `wrong_at` (from 1) with the body's byte `offset` flipped.
fn large_body_server(body: Vec<u8>, wrong_at: usize, offset: usize) -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let Some(Ok(mut stream)) = listener.incoming().next() else {
            return;
        };
        let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", body.len());
        let (mut pending, mut chunk, mut answered) = (Vec::new(), vec![0u8; 4096], 0);
        while let Ok(n @ 1..) = stream.read(&mut chunk) {
            pending.extend_from_slice(&chunk[..n]);
            while let Some(end) = pending.windows(4).position(|w| w == b"\r\n\r\n") {
                pending.drain(..end + 4);
                answered += 1;
                let mut answer = [head.as_bytes(), &body].concat();
                if answered == wrong_at {
                    answer[head.len() + offset] ^= 0x20;
                }
                if stream.write_all(&answer).is_err() {
                    return;
                }
            }
        }
    });
    addr
}

#[test]
fn one_wrong_byte_at_a_random_offset_of_a_large_body_fails_the_run() {
    for driver in DRIVERS {
        one_wrong_byte_at_a_random_offset_of_a_large_body_fails_the_run_by(driver);
    }
}

fn one_wrong_byte_at_a_random_offset_of_a_large_body_fails_the_run_by(driver: Driver) {
    const LEN: usize = 1 << 20;
    let body: Vec<u8> = (0..LEN).map(http_core::routes::pattern_byte).collect();
    let seed = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos() as usize;
    let offset = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) % LEN;
    let summary = load(Config {
        expect_body_len: Some(LEN),
        expect_body: Some(body.clone()),
        duration: Duration::from_secs(10),
        driver,
        // The third answer is wrong; the run fails at it.
        ..config(large_body_server(body, 3, offset))
    });
    let context = format!("{driver:?}, wrong byte at {offset}: {summary:?}");
    assert_eq!(summary.requests, 2, "{context}");
    assert_eq!(summary.errors, 1, "{context}");
    assert_eq!(summary.errors_by_kind.body, 1, "{context}");
    let error = summary.first_error.as_deref().unwrap_or_default();
    assert!(
        error.contains(&format!("first difference at Some({offset})")),
        "{context}"
    );
}

/// A server that answers [`OK`] to its first `answers` requests on each connection, then
/// closes it.
fn closing_server(answers: usize) -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            std::thread::spawn(move || {
                let (mut pending, mut chunk, mut answered) = (Vec::new(), vec![0u8; 4096], 0);
                while let Ok(n @ 1..) = stream.read(&mut chunk) {
                    pending.extend_from_slice(&chunk[..n]);
                    while let Some(end) = pending.windows(4).position(|w| w == b"\r\n\r\n") {
                        pending.drain(..end + 4);
                        if answered == answers || stream.write_all(OK.as_bytes()).is_err() {
                            return;
                        }
                        answered += 1;
                    }
                }
            });
        }
    });
    addr
}

#[test]
fn a_server_closing_a_kept_alive_connection_fails_the_run() {
    for driver in DRIVERS {
        for rate in [None, Some(2_000.0)] {
            let summary = load(Config {
                connections: 4,
                threads: 2,
                rate,
                duration: Duration::from_secs(10),
                driver,
                ..config(closing_server(5))
            });
            let context = format!("{driver:?} at {rate:?}: {summary:?}");
            assert!(summary.errors >= 1, "{context}");
            assert!(summary.requests >= 5 && summary.requests <= 20, "{context}");
            assert!(summary.elapsed_s < 5.0, "the run went on: {context}");
        }
    }
}

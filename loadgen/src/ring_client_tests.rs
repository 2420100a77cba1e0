//! The ring driver's multishot path against a real local server, with provided buffers
//! far too few and too small for the load: answers split across buffers, recvs ended by
//! ENOBUFS and re-armed, and every answer still checked byte for byte.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use super::*;
use crate::run::Summary;

/// A server answering every request head with `body` under a Content-Length head, one
/// thread per connection; the answer number `wrong_at` (from 1, over all connections) has
/// its body's byte `offset` flipped.
fn server(body: Vec<u8>, wrong_at: usize, offset: usize) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let served = Arc::new(AtomicUsize::new(0));
    let answer = [
        format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", body.len()).as_bytes(),
        &body,
    ]
    .concat();
    let head = answer.len() - body.len();
    let answer = Arc::new(answer);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let (Ok(mut stream), served, answer) = (stream, served.clone(), answer.clone()) else {
                return;
            };
            std::thread::spawn(move || {
                let (mut buffer, mut pending) = (vec![0u8; 4096], Vec::new());
                while let Ok(n @ 1..) = stream.read(&mut buffer) {
                    pending.extend_from_slice(&buffer[..n]);
                    while let Some(end) = pending.windows(4).position(|w| w == b"\r\n\r\n") {
                        pending.drain(..end + 4);
                        let written = if served.fetch_add(1, Ordering::Relaxed) + 1 == wrong_at {
                            let mut wrong = answer.to_vec();
                            wrong[head + offset] ^= 1;
                            stream.write_all(&wrong)
                        } else {
                            stream.write_all(&answer)
                        };
                        if written.is_err() {
                            return;
                        }
                    }
                }
            });
        }
    });
    addr
}

/// Runs `config` on one ring thread with provided buffers of `shape`.
fn run(config: Config, shape: Shape) -> Summary {
    let config = Arc::new(config);
    let window = Window::after(config.warmup, config.duration);
    let limits = Limits::new(window.starts, window.ends, config.max_requests);
    let clients: Vec<usize> = (0..config.connections).collect();
    let tally = run_shaped(&config, &limits, &clients, window, shape);
    tally.summary(&config, Vec::new()).unwrap()
}

fn config(addr: SocketAddr, body: &[u8]) -> Config {
    Config {
        connections: 24,
        depth: 2,
        duration: Duration::from_secs(5),
        max_requests: Some(2_000),
        expect_body: Some(body.to_vec()),
        ..Config::new(addr, b"GET / HTTP/1.1\r\nHost: test\r\n\r\n".to_vec())
    }
}

/// Two buffers of 4 KiB for 24 connections of two pipelined 10 KiB answers each: each
/// answer spans several buffers, most recvs end with ENOBUFS and are armed again, and
/// every request is answered and checked.
#[test]
fn two_small_buffers_serve_many_connections_of_answers_split_across_them() {
    let body: Vec<u8> = (0..10_000u32).map(|i| (i * 7 % 251) as u8).collect();
    let addr = server(body.clone(), 0, 0);
    let summary = run(config(addr, &body), Shape { count: 2, size: 4096 });
    assert_eq!(summary.first_error, None);
    assert_eq!(summary.errors, 0);
    assert!(summary.requests >= 2_000, "{summary:?}");
}

/// One flipped byte deep in one answer's body, with answers split across buffers, fails
/// the run with the body's offset.
#[test]
fn a_wrong_body_byte_split_across_buffers_fails_the_run() {
    let body: Vec<u8> = (0..10_000u32).map(|i| (i * 7 % 251) as u8).collect();
    let addr = server(body.clone(), 300, 9_000);
    let summary = run(config(addr, &body), Shape { count: 2, size: 4096 });
    assert!(summary.errors_by_kind.body >= 1, "{summary:?}");
    let message = summary.first_error.unwrap();
    assert!(message.contains("first difference at Some(9000)"), "{message}");
    assert!(summary.requests < 2_000, "the run stops at the wrong answer");
}

/// The default shape: 16 KiB buffers for small answers, 64 KiB for large ones, about
/// one per connection.
#[test]
fn buffers_follow_the_connections_and_the_answers_size() {
    let addr = "127.0.0.1:1".parse().unwrap();
    let small = Config::new(addr, Vec::new());
    assert_eq!(
        shape(&small, 1),
        Shape {
            count: 32,
            size: 16 << 10
        }
    );
    assert_eq!(
        shape(&small, 300),
        Shape {
            count: 512,
            size: 16 << 10
        }
    );
    let large = Config {
        expect_body_len: Some(1 << 20),
        ..Config::new(addr, Vec::new())
    };
    assert_eq!(
        shape(&large, 1000),
        Shape {
            count: 256,
            size: 64 << 10
        }
    );
}

/// On the ring itself: with its two buffers held, a multishot recv ends with ENOBUFS
/// (no IORING_CQE_F_MORE); once they are given back and the recv armed again, the rest
/// of the stream arrives, in order, with no byte lost.
#[test]
fn a_recv_out_of_buffers_ends_with_enobufs_and_resumes_when_armed_again() {
    let stream: Vec<u8> = (0..40_000u32).map(|i| (i % 253) as u8).collect();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let sent = stream.clone();
    let writer = std::thread::spawn(move || {
        let (mut socket, _) = listener.accept().unwrap();
        socket.write_all(&sent).unwrap();
        let _ = socket.read(&mut [0]);
    });
    let config = Arc::new(Config::new(addr, b"x".to_vec()));
    let mut ring = Ring::new(config, 1, 1, Shape { count: 2, size: 4096 }).unwrap();
    let conn = ring.add(TcpStream::connect(addr).unwrap());
    ring.arm(conn).unwrap();
    let (mut received, mut held, mut completions) = (Vec::new(), Vec::new(), Vec::new());
    let mut out_of_buffers = 0;
    while received.len() < stream.len() {
        ring.wait(Duration::from_secs(5)).unwrap();
        ring.completions(&mut completions);
        assert!(!completions.is_empty(), "no completion within 5 s");
        for completion in completions.drain(..) {
            assert_eq!((completion.conn, completion.op), (conn, Op::Recv));
            received.extend_from_slice(ring.bytes(&completion));
            if completion.result == -libc::ENOBUFS {
                assert!(!completion.more, "ENOBUFS ends the recv");
                out_of_buffers += 1;
                for completion in held.drain(..) {
                    ring.recycle(&completion);
                }
                ring.arm(conn).unwrap();
            } else {
                assert!(completion.result > 0, "{completion:?}");
                held.push(completion);
                if !completion.more {
                    ring.arm(conn).unwrap();
                }
            }
        }
    }
    assert!(out_of_buffers >= 1, "two 4 KiB buffers cannot hold 40 KB");
    assert!(received == stream, "the bytes arrive in order, none lost");
    drop(ring);
    writer.join().unwrap();
}

//! What the loadgen test files share: small scripted servers and a config for them.

#![allow(dead_code)] // each test file uses its own part of this

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use loadgen::run::{Config, Summary, run};

pub mod tls_server;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A server answering every request head with `response`, and closing after it when the
/// head says `Connection: close`; request number `stall_at` (counted over all connections)
/// is held for `stall` first.
pub fn scripted_server(response: &'static str, stall_at: u64, stall: Duration) -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    let served = Arc::new(AtomicU64::new(0));
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            loop {
                let Ok((mut stream, _)) = listener.accept().await else {
                    return;
                };
                let served = served.clone();
                tokio::spawn(async move {
                    let (mut buffer, mut pending) = (vec![0u8; 4096], Vec::new());
                    while let Ok(n @ 1..) = stream.read(&mut buffer).await {
                        pending.extend_from_slice(&buffer[..n]);
                        while let Some(end) = pending.windows(4).position(|w| w == b"\r\n\r\n") {
                            let head: Vec<u8> = pending.drain(..end + 4).collect();
                            let close = head.windows(17).any(|w| w == b"Connection: close");
                            if served.fetch_add(1, Ordering::Relaxed) + 1 == stall_at {
                                tokio::time::sleep(stall).await;
                            }
                            if stream.write_all(response.as_bytes()).await.is_err() || close {
                                return;
                            }
                        }
                    }
                });
            }
        });
    });
    addr
}

/// A server answering every request head with [`OK`] until the client closes, and the
/// count of connections it has accepted.
pub fn counting_server() -> (SocketAddr, Arc<AtomicU64>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let accepted = Arc::new(AtomicU64::new(0));
    let counted = accepted.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            counted.fetch_add(1, Ordering::Relaxed);
            std::thread::spawn(move || {
                use std::io::{Read, Write};
                let (mut pending, mut chunk) = (Vec::new(), vec![0u8; 4096]);
                while let Ok(n @ 1..) = stream.read(&mut chunk) {
                    pending.extend_from_slice(&chunk[..n]);
                    while let Some(end) = pending.windows(4).position(|w| w == b"\r\n\r\n") {
                        pending.drain(..end + 4);
                        if stream.write_all(OK.as_bytes()).is_err() {
                            return;
                        }
                    }
                }
            });
        }
    });
    (addr, accepted)
}

pub const OK: &str = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

pub fn config(addr: SocketAddr) -> Config {
    Config {
        expect_body_len: Some(2),
        ..Config::new(addr, b"GET / HTTP/1.1\r\nHost: t\r\n\r\n".to_vec())
    }
}

pub fn load(config: Config) -> Summary {
    run(config).unwrap()
}

/// A server answering through http_core's codec, as every server of the workspace does.
pub fn codec_server() -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            std::thread::spawn(move || {
                use std::io::{Read, Write};
                let mut codec = http_core::Codec::default();
                let (mut input, mut out, mut chunk) = (Vec::new(), Vec::new(), vec![0u8; 4096]);
                while let Ok(n @ 1..) = stream.read(&mut chunk) {
                    input.extend_from_slice(&chunk[..n]);
                    let outcome = codec.serve(&input, &mut out);
                    input.drain(..outcome.consumed);
                    if stream.write_all(&out).is_err() || outcome.close {
                        return;
                    }
                    out.clear();
                }
            });
        }
    });
    addr
}

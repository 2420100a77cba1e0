//! The kit's TLS side against an in-process HTTPS server that answers through http_core's
//! codec (rustls over std's TcpStream, a thread per connection): every case and every
//! upload conversation passes over TLS 1.3, and a server that closes without
//! `close_notify` is told apart.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;

use conformance::wire::Conn;
use conformance::{Endpoint, TestIdentity, suite};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::{ServerConfig, ServerConnection, StreamOwned};

/// An HTTPS server presenting `identity`; `close_notify` says whether it says so before
/// it closes.
fn codec_over_tls(identity: &TestIdentity, close_notify: bool) -> SocketAddr {
    let cert = CertificateDer::from_pem_slice(identity.cert_pem.as_bytes()).unwrap();
    let key = PrivateKeyDer::from_pem_slice(identity.key_pem.as_bytes()).unwrap();
    let config = Arc::new(
        ServerConfig::builder()
            .with_no_client_auth()
            .with_single_cert(vec![cert], key)
            .unwrap(),
    );
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for tcp in listener.incoming() {
            let (Ok(tcp), config) = (tcp, config.clone()) else {
                return;
            };
            std::thread::spawn(move || {
                let mut stream = StreamOwned::new(ServerConnection::new(config).unwrap(), tcp);
                let mut codec = http_core::Codec::default();
                let (mut input, mut out, mut chunk) = (Vec::new(), Vec::new(), vec![0u8; 16384]);
                while let Ok(n @ 1..) = stream.read(&mut chunk) {
                    input.extend_from_slice(&chunk[..n]);
                    let outcome = codec.serve(&input, &mut out);
                    input.drain(..outcome.consumed);
                    if stream.write_all(&out).and_then(|()| stream.flush()).is_err() {
                        return;
                    }
                    out.clear();
                    if outcome.close {
                        if close_notify {
                            stream.conn.send_close_notify();
                            let _ = stream.flush();
                        }
                        linger(stream.sock);
                        return;
                    }
                }
            });
        }
    });
    addr
}

/// A lingering close, as every server here does: no more to send, then the client's
/// unread bytes drained for a moment, so closing with them unread does not reset the
/// connection (which would discard the answer before the client reads it).
fn linger(tcp: std::net::TcpStream) {
    let _ = tcp.shutdown(std::net::Shutdown::Write);
    let _ = tcp.set_read_timeout(Some(std::time::Duration::from_secs(1)));
    let mut sink = [0u8; 16384];
    while let Ok(1..) = (&tcp).read(&mut sink) {}
}

#[test]
fn every_case_passes_over_tls_against_the_codec() {
    let identity = TestIdentity::generate();
    let to = Endpoint::https(codec_over_tls(&identity, true), &identity);
    let failures = suite::run_cases(&to, &[]);
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn every_upload_conversation_passes_over_tls_against_the_codec() {
    let identity = TestIdentity::generate();
    let to = Endpoint::https(codec_over_tls(&identity, true), &identity);
    let failures = conformance::uploads::conversations(&to);
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn a_close_without_close_notify_is_told_apart() {
    let identity = TestIdentity::generate();
    for (close_notify, clean) in [(true, true), (false, false)] {
        let to = Endpoint::https(codec_over_tls(&identity, close_notify), &identity);
        let mut conn = Conn::connect(&to);
        conn.send(b"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            .unwrap();
        assert_eq!(conn.response(false).unwrap().status, 200);
        let closed = conn.expect_close(std::time::Duration::from_secs(3));
        assert_eq!(closed.is_ok(), clean, "{closed:?}");
        if !clean {
            assert!(closed.unwrap_err().contains("without close_notify"));
        }
    }
}

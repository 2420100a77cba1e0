//! The session alone, against an in-memory rustls client: handshake records go out,
//! application data comes in decrypted and goes out sealed, a `close_notify` is seen
//! both ways, and sealing before the handshake is refused.

use std::io::{Read, Write};

use conformance::{Endpoint, TestIdentity};
use rustls::ClientConnection;
use rustls::pki_types::ServerName;

use super::*;

/// A server config with a fresh identity, and a client that trusts it (also the
/// connection tests' pair).
pub(crate) fn config_and_client() -> (Arc<ServerConfig>, ClientConnection) {
    let identity = TestIdentity::generate();
    let dir = std::env::temp_dir().join(format!(
        "uring-tls-session-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let (cert, key) = identity.write(&dir).unwrap();
    let config = server_kit::tls::server_config(&cert, &key).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let client_config = Endpoint::https("127.0.0.1:9".parse().unwrap(), &identity)
        .tls
        .unwrap();
    let name = ServerName::try_from("localhost").unwrap();
    (config, ClientConnection::new(client_config, name).unwrap())
}

fn pair() -> (TlsSession, ClientConnection) {
    let (config, client) = config_and_client();
    (TlsSession::new(config).unwrap(), client)
}

/// The client's pending records into the session; the plaintext it delivered.
fn to_session(session: &mut TlsSession, client: &mut ClientConnection) -> (Vec<u8>, Received) {
    let mut records = Vec::new();
    while client.wants_write() {
        client.write_tls(&mut records).unwrap();
    }
    let mut delivered = Vec::new();
    let received = session
        .receive(&records, &mut |plain| delivered.extend_from_slice(plain))
        .unwrap();
    (delivered, received)
}

/// The session's outgoing ciphertext into the client; the plaintext the client read, and
/// whether it then saw a clean end (`close_notify`).
fn to_client(session: &mut TlsSession, client: &mut ClientConnection) -> (Vec<u8>, bool) {
    let ciphertext = session.take_outgoing();
    let mut rest = &ciphertext[..];
    let (mut plain, mut ended) = (Vec::new(), false);
    while !rest.is_empty() {
        client.read_tls(&mut rest).unwrap();
        client.process_new_packets().unwrap();
        let mut chunk = [0u8; 4096];
        loop {
            match client.reader().read(&mut chunk) {
                Ok(0) => {
                    ended = true;
                    break;
                }
                Ok(n) => plain.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) => panic!("client read: {e}"),
            }
        }
    }
    (plain, ended)
}

fn handshake(session: &mut TlsSession, client: &mut ClientConnection) {
    for _ in 0..4 {
        to_session(session, client);
        to_client(session, client);
    }
    assert!(session.established() && !client.is_handshaking());
}

#[test]
fn data_goes_in_decrypted_and_out_sealed_and_close_notify_both_ways() {
    let (mut session, mut client) = pair();
    assert!(
        session.seal([&b"early"[..]].into_iter(), false).is_err(),
        "before the handshake"
    );
    handshake(&mut session, &mut client);
    client.writer().write_all(b"GET / HTTP/1.1\r\n\r\n").unwrap();
    let (delivered, received) = to_session(&mut session, &mut client);
    assert_eq!(
        (delivered.as_slice(), received),
        (&b"GET / HTTP/1.1\r\n\r\n"[..], Received::Open)
    );

    let large = vec![7u8; 40_000];
    session
        .seal([&b"head"[..], &large[..]].into_iter(), true)
        .unwrap();
    assert!(session.close_notify_sealed());
    let (got, ended) = to_client(&mut session, &mut client);
    assert_eq!(got.len(), 4 + large.len(), "every byte");
    assert!(got.starts_with(b"head") && got[4..] == large[..]);
    assert!(ended, "then a clean end");

    client.send_close_notify();
    let (_, received) = to_session(&mut session, &mut client);
    assert_eq!(received, Received::PeerClosed);
}

#[test]
fn a_record_cut_in_two_waits_for_its_rest() {
    let (mut session, mut client) = pair();
    handshake(&mut session, &mut client);
    client.writer().write_all(b"abc").unwrap();
    let mut record = Vec::new();
    client.write_tls(&mut record).unwrap();
    let mut delivered = Vec::new();
    let (first, second) = record.split_at(record.len() / 2);
    session
        .receive(first, &mut |p| delivered.extend_from_slice(p))
        .unwrap();
    assert!(delivered.is_empty() && session.awaits_more());
    session
        .receive(second, &mut |p| delivered.extend_from_slice(p))
        .unwrap();
    assert_eq!(delivered, b"abc");
    assert!(!session.awaits_more());
    session.release_if_empty();
    assert_eq!(session.allocated(), 0);
}

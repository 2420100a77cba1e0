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
    let (config, client_config) = configs();
    let name = ServerName::try_from("localhost").unwrap();
    (config, ClientConnection::new(client_config, name).unwrap())
}

/// A server config with a fresh identity, and a client config that trusts it.
fn configs() -> (Arc<ServerConfig>, Arc<rustls::ClientConfig>) {
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
    (config, client_config)
}

fn pair() -> (TlsSession, ClientConnection) {
    let (config, client) = config_and_client();
    (TlsSession::new(config).unwrap(), client)
}

/// The client's pending records into the session; the plaintext it delivered.
fn to_session(session: &mut TlsSession, client: &mut ClientConnection) -> (Vec<u8>, TlsInput) {
    let records = said(client);
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
        (&b"GET / HTTP/1.1\r\n\r\n"[..], TlsInput::Open)
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
    assert_eq!(received, TlsInput::PeerClosed);
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

/// The client's plaintext `bytes` as records of `size` bytes each (the last shorter).
fn records_of(client: &mut ClientConnection, bytes: &[u8], size: usize) -> Vec<u8> {
    let mut records = Vec::new();
    for piece in bytes.chunks(size) {
        client.writer().write_all(piece).unwrap();
        records.extend(said(client));
    }
    records
}

/// The records the client has to send now.
fn said(client: &mut ClientConnection) -> Vec<u8> {
    let mut records = Vec::new();
    while client.wants_write() {
        client.write_tls(&mut records).unwrap();
    }
    records
}

#[test]
fn a_head_in_one_byte_records_is_handed_over_in_one_piece_or_two() {
    let (mut session, mut client) = pair();
    handshake(&mut session, &mut client);
    let head = [&b"GET / HTTP/1.1\r\nX-Pad: "[..], &[b'a'; 16_000], b"\r\n\r\n"].concat();
    let records = records_of(&mut client, &head, 1);
    let mut pieces = Vec::new();
    let received = session
        .receive(&records, &mut |plain| pieces.push(plain.to_vec()))
        .unwrap();
    assert_eq!(received, TlsInput::Open);
    assert_eq!(pieces.concat(), head, "every byte, in order");
    // The first record alone, then the rest gathered: not a piece per record.
    assert!(
        pieces.len() <= 1 + head.len().div_ceil(GATHER_MAX),
        "{} pieces",
        pieces.len()
    );
    assert!(!session.holds_partial_record(), "every record taken");
}

/// Plaintext of assorted records, from one byte to a full 16 KiB, three and a bit of each
/// size; returns it and the records.
fn assorted_records(client: &mut ClientConnection) -> (Vec<u8>, Vec<u8>) {
    let (mut plaintext, mut records) = (Vec::new(), Vec::new());
    for (i, size) in [1, 7, 100, 1000, 1023, 1024, 4096, 16 * 1024]
        .into_iter()
        .enumerate()
    {
        let bytes: Vec<u8> = (0..3 * size + 5).map(|n| (n * 31 + i) as u8).collect();
        records.extend(records_of(client, &bytes, size));
        plaintext.extend(bytes);
    }
    (plaintext, records)
}

#[test]
fn records_of_every_size_split_anywhere_arrive_whole_and_in_order() {
    for cut in [1, 5, 4096, 16 * 1024 + 3, usize::MAX] {
        let (mut session, mut client) = pair();
        handshake(&mut session, &mut client);
        let (sent, records) = assorted_records(&mut client);
        let mut delivered = Vec::new();
        for piece in records.chunks(cut.min(records.len())) {
            session
                .receive(piece, &mut |plain| delivered.extend_from_slice(plain))
                .unwrap();
        }
        assert!(delivered == sent, "cut every {cut} bytes");
        assert!(!session.holds_partial_record());
    }
}

/// A handshake record of `len` bytes (TLS 1.0 record version, as ClientHellos use).
fn handshake_record(payload: &[u8]) -> Vec<u8> {
    let len = (payload.len() as u16).to_be_bytes();
    [&[0x16, 0x03, 0x01, len[0], len[1]][..], payload].concat()
}

/// Feeds `records` one by one until the session refuses one; the ciphertext it took
/// before that, or `None` if it took them all.
fn refused_after(session: &mut TlsSession, records: impl Iterator<Item = Vec<u8>>) -> Option<usize> {
    let mut deliver = |_: &[u8]| panic!("no plaintext from a handshake message");
    let mut taken = 0;
    for record in records {
        if session.receive(&record, &mut deliver).is_err() {
            return Some(taken);
        }
        taken += record.len();
    }
    None
}

#[test]
fn a_client_hello_announced_huge_and_trickled_in_is_refused_not_held() {
    let (config, _) = config_and_client();
    let mut session = TlsSession::new(config).unwrap();
    // A ClientHello announcing 65,535 bytes, then its body a byte a record: some 390 KB
    // of records before it would be whole.
    let header = handshake_record(&[0x01, 0x00, 0xff, 0xff]);
    let body = (0..0xffff).map(|_| handshake_record(&[0]));
    let taken = refused_after(&mut session, std::iter::once(header).chain(body));
    assert!(
        taken.is_some_and(|taken| taken <= HANDSHAKE_INCOMING_MAX),
        "refused once past the most a handshake message may leave waiting: {taken:?}"
    );
}

/// Records the client seals itself after the handshake, of any content type and padding
/// (TLS 1.3's inner plaintext), with the client's own traffic keys.
struct RawSealer {
    encrypter: Box<dyn rustls::crypto::cipher::MessageEncrypter>,
    sequence: u64,
}

impl RawSealer {
    /// The client (its secrets made extractable) and the session, handshake done.
    fn after_handshake() -> (RawSealer, TlsSession) {
        use rustls::ConnectionTrafficSecrets::Aes128Gcm;
        let (config, client_config) = configs();
        let mut client_config = (*client_config).clone();
        client_config.enable_secret_extraction = true;
        let name = ServerName::try_from("localhost").unwrap();
        let mut client = ClientConnection::new(Arc::new(client_config), name).unwrap();
        let mut session = TlsSession::new(config).unwrap();
        handshake(&mut session, &mut client);
        let (sequence, secrets) = client.dangerous_extract_secrets().unwrap().tx;
        let Aes128Gcm { key, iv } = secrets else {
            panic!("the shared configuration's one suite, TLS13_AES_128_GCM_SHA256");
        };
        let suite = rustls::crypto::aws_lc_rs::cipher_suite::TLS13_AES_128_GCM_SHA256;
        let encrypter = suite.tls13().unwrap().aead_alg.encrypter(key, iv);
        (RawSealer { encrypter, sequence }, session)
    }

    /// A handshake record carrying `content`, padded to the most a record may carry.
    fn padded_handshake(&mut self, content: &[u8]) -> Vec<u8> {
        use rustls::crypto::cipher::{OutboundChunks, OutboundPlainMessage};
        // The inner plaintext: content, its type (handshake), then zeros; the encrypter
        // appends the type it is given last, here a zero of padding too.
        let mut inner = content.to_vec();
        inner.push(0x16);
        inner.resize(MAX_FRAGMENT, 0);
        let message = OutboundPlainMessage {
            typ: rustls::ContentType::from(0u8),
            version: rustls::ProtocolVersion::TLSv1_2,
            payload: OutboundChunks::Single(&inner),
        };
        let sealed = self.encrypter.encrypt(message, self.sequence).unwrap();
        self.sequence += 1;
        sealed.encode()
    }
}

#[test]
fn a_key_update_announced_huge_and_trickled_in_padded_records_is_refused_not_held() {
    let (mut sealer, mut session) = RawSealer::after_handshake();
    // A KeyUpdate announcing 65,535 bytes, then a byte a record, each padded to 16 KiB:
    // about 1 GB of records before it would be whole.
    let header = sealer.padded_handshake(&[24, 0x00, 0xff, 0xff]);
    let body: Vec<Vec<u8>> = (0..16).map(|_| sealer.padded_handshake(&[1])).collect();
    let taken = refused_after(&mut session, std::iter::once(header).chain(body));
    assert!(
        taken.is_some_and(|taken| taken <= HANDSHAKE_INCOMING_MAX),
        "refused once past the most a handshake message may leave waiting: {taken:?}"
    );
}

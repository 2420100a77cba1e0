//! A connection over TLS, driven by an in-memory rustls client: the handshake, a request
//! answered in ciphertext, `close_notify` before the shutdown, a garbage record, a stalled
//! handshake under the request timeout, and no buffer held once idle; at shutdown every
//! whole record answered; nothing read after the peer's `close_notify`.

use std::io::{Read, Write};

use rustls::ClientConnection;

use super::*;

/// A connection speaking TLS with a fresh identity, and a client that trusts it.
fn tls_pair() -> (Conn, ClientConnection) {
    let (config, client) = crate::tls_session::tests::config_and_client();
    let mut c = conn();
    c.speak_tls(config).unwrap();
    (c, client)
}

/// [`tls_pair`] with its handshake done.
pub(super) fn established() -> (Conn, ClientConnection) {
    let (mut c, mut client) = tls_pair();
    ops(&mut c);
    exchange(&mut c, &mut client);
    assert!(!client.is_handshaking(), "the handshake completes");
    (c, client)
}

/// [`tls_pair`] with the client's hello received: the server's flight is queued, and it
/// awaits the client's Finished.
fn hello_received() -> (Conn, ClientConnection) {
    let (mut c, mut client) = tls_pair();
    ops(&mut c);
    let hello = said(&mut client);
    c.on_recv(hello.len() as i32, Some(hello.as_slice()), 0);
    (c, client)
}

/// Whether the client has read the connection's `close_notify` (and nothing after it).
fn heard_close_notify(client: &mut ClientConnection) -> bool {
    let mut end = [0u8; 1];
    matches!(client.reader().read(&mut end), Ok(0))
}

/// The ciphertext the client has to send now.
pub(super) fn said(client: &mut ClientConnection) -> Vec<u8> {
    let mut to_server = Vec::new();
    while client.wants_write() {
        client.write_tls(&mut to_server).unwrap();
    }
    to_server
}

/// The client reads what the connection sent.
fn hear(client: &mut ClientConnection, mut from_server: &[u8]) {
    while !from_server.is_empty() {
        client.read_tls(&mut from_server).unwrap();
        client.process_new_packets().unwrap();
    }
}

/// Carries what the client has to say to the connection and back, until both are
/// silent; returns the ciphertext the connection sent.
fn exchange(c: &mut Conn, client: &mut ClientConnection) -> Vec<u8> {
    let mut sent_back = Vec::new();
    for _ in 0..16 {
        let to_server = said(client);
        if !to_server.is_empty() {
            c.on_recv(to_server.len() as i32, Some(to_server.as_slice()), 0);
        }
        let from_server = flush(c);
        hear(client, &from_server);
        sent_back.extend_from_slice(&from_server);
        if to_server.is_empty() && from_server.is_empty() {
            break;
        }
    }
    sent_back
}

/// What the client has read in plaintext so far.
fn plaintext(client: &mut ClientConnection) -> Vec<u8> {
    let mut out = vec![0; 64 * 1024];
    let n = client.reader().read(&mut out).unwrap_or(0);
    out.truncate(n);
    out
}

#[test]
fn a_request_over_tls_is_answered_in_ciphertext() {
    let (mut c, mut client) = established();
    assert!(!client.is_handshaking(), "the handshake completes");
    client.writer().write_all(GET).unwrap();
    let ciphertext = exchange(&mut c, &mut client);
    let answer = plaintext(&mut client);
    assert!(
        answer.starts_with(b"HTTP/1.1 200 OK"),
        "{}",
        String::from_utf8_lossy(&answer)
    );
    assert!(answer.ends_with(http_core::routes::HELLO));
    let hello = http_core::routes::HELLO;
    assert!(
        !ciphertext.windows(hello.len()).any(|w| w == hello),
        "sent in the clear"
    );
    assert_eq!(c.phase(), Phase::Open);
}

#[test]
fn a_closing_answer_ends_with_close_notify_before_the_shutdown() {
    let (mut c, mut client) = established();
    client
        .writer()
        .write_all(b"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut to_server = Vec::new();
    client.write_tls(&mut to_server).unwrap();
    c.on_recv(to_server.len() as i32, Some(to_server.as_slice()), 0);
    assert_eq!(c.phase(), Phase::Draining);
    assert_eq!(ops(&mut c), [Op::Send]);
    let mut rest = &complete_send(&mut c, usize::MAX)[..];
    while !rest.is_empty() {
        client.read_tls(&mut rest).unwrap();
        client.process_new_packets().unwrap();
    }
    assert!(plaintext(&mut client).starts_with(b"HTTP/1.1 200 OK"));
    assert!(heard_close_notify(&mut client), "close_notify received");
    assert_eq!(ops(&mut c), [Op::Shutdown]);
}

#[test]
fn a_record_that_does_not_decrypt_ends_the_connection() {
    let (mut c, _client) = established();
    let mut garbage = vec![0x17, 0x03, 0x03, 0x00, 0x20];
    garbage.resize(5 + 32, 0xAB);
    c.on_recv(garbage.len() as i32, Some(garbage.as_slice()), 0);
    assert_eq!(c.phase(), Phase::Closing);
}

#[test]
fn a_stalled_handshake_is_closed_at_the_request_timeout_an_idle_session_is_not() {
    let (mut stalled, mut client) = tls_pair();
    ops(&mut stalled);
    let mut hello = Vec::new();
    client.write_tls(&mut hello).unwrap();
    let half = &hello[..hello.len() / 2];
    stalled.on_recv(half.len() as i32, Some(half), 0);
    stalled.on_tick(TIMEOUTS.request, TIMEOUTS);
    assert_eq!(stalled.phase(), Phase::Closing);

    let (mut idle, mut client) = tls_pair();
    ops(&mut idle);
    exchange(&mut idle, &mut client);
    idle.on_tick(TIMEOUTS.request, TIMEOUTS);
    assert_eq!(idle.phase(), Phase::Open);
    assert_eq!(idle.allocated(), 0, "an idle session holds no buffer");
}

#[test]
fn an_idle_session_at_shutdown_says_close_notify_first() {
    let (mut c, mut client) = established();
    c.begin_shutdown();
    assert_eq!(c.phase(), Phase::Draining);
    exchange(&mut c, &mut client);
    assert!(heard_close_notify(&mut client), "close_notify received");
    assert!(
        matches!(c.phase(), Phase::Lingering { .. }),
        "then the write side is shut"
    );
}

#[test]
fn a_connection_still_in_its_handshake_at_shutdown_closes_at_once() {
    let (mut c, mut client) = hello_received();
    let flight = flush(&mut c);
    assert!(!flight.is_empty(), "the server's flight is sent");
    hear(&mut client, &flight);
    assert!(client.wants_write(), "the client's Finished is still to come");
    assert_eq!(c.backlog(), 0);
    c.begin_shutdown();
    assert_eq!(
        c.phase(),
        Phase::Closing,
        "no session yet, so no close_notify owed"
    );
}

#[test]
fn a_handshake_flight_still_queued_at_shutdown_is_sent_without_close_notify() {
    let (mut c, mut client) = hello_received();
    c.begin_shutdown();
    assert_eq!(c.phase(), Phase::Draining, "the queued flight is owed");
    let flight = flush(&mut c);
    hear(&mut client, &flight);
    assert!(client.wants_write(), "the flight arrived whole");
    assert!(
        !heard_close_notify(&mut client),
        "no close_notify before a session"
    );
    assert!(
        matches!(c.phase(), Phase::Lingering { .. }),
        "then the write side is shut"
    );
}

#[test]
fn after_the_peers_close_notify_nothing_it_sends_is_kept() {
    let (mut c, mut client) = established();
    client.send_close_notify();
    let mut to_server = said(&mut client);
    let junk = vec![0x17u8; 64 * 1024];
    to_server.extend_from_slice(&junk);
    c.on_recv(to_server.len() as i32, Some(to_server.as_slice()), 0);
    for _ in 0..8 {
        c.on_recv(junk.len() as i32, Some(junk.as_slice()), 1);
    }
    assert!(c.allocated() < junk.len(), "{} bytes held", c.allocated());
    assert_ne!(c.phase(), Phase::Open, "the peer's close_notify ends its input");
}

#[test]
fn pipelined_large_answers_stop_at_the_output_limit_while_the_client_reads_nothing() {
    let (mut c, mut client) = established();
    let request = b"GET /bytes/1048576 HTTP/1.1\r\nHost: t\r\n\r\n";
    for _ in 0..8 {
        client.writer().write_all(request).unwrap();
        let to_server = said(&mut client);
        c.on_recv(to_server.len() as i32, Some(to_server.as_slice()), 0);
        c.seal_output();
    }
    // One answer of 1 MiB may be rendered past the limit, as over plain TCP; not eight.
    assert!(
        c.backlog() <= OUTPUT_LIMIT + (1 << 20) + (64 << 10),
        "{} bytes backed up",
        c.backlog()
    );
}

#[test]
fn after_the_peers_close_notify_the_recv_is_cancelled_and_not_armed_again() {
    let (mut c, mut client) = established();
    assert!(!c.ops.recv.is_idle(), "a recv is armed");
    client.send_close_notify();
    let close_notify = said(&mut client);
    c.on_recv(close_notify.len() as i32, Some(close_notify.as_slice()), 0);
    let next = ops(&mut c);
    assert!(next.contains(&Op::CancelRecv), "{next:?}");
    cancel_recv(&mut c, 0);
    let after = ops(&mut c);
    assert!(!after.contains(&Op::Recv), "{after:?}");
}

#[test]
fn a_connection_paused_at_the_output_limit_ends_with_close_notify_at_shutdown() {
    let (mut c, mut client) = established();
    for _ in 0..3 {
        client
            .writer()
            .write_all(b"GET /bytes/1048576 HTTP/1.1\r\nHost: t\r\n\r\n")
            .unwrap();
    }
    let requests = said(&mut client);
    c.on_recv(requests.len() as i32, Some(requests.as_slice()), 0);
    c.begin_shutdown();
    // The client reads as it goes (its plaintext buffer is bounded), until close_notify.
    let (mut read, mut chunk, mut closed) = (Vec::new(), vec![0u8; 1 << 16], false);
    for _ in 0..256 {
        let sent = flush(&mut c);
        let mut rest = &sent[..];
        while !rest.is_empty() && !closed {
            client.read_tls(&mut rest).unwrap();
            client.process_new_packets().unwrap();
            // Ok(0): close_notify came; an error: nothing more to read for now.
            while let Ok(n) = client.reader().read(&mut chunk) {
                closed = n == 0;
                if closed {
                    break;
                }
                read.extend_from_slice(&chunk[..n]);
            }
        }
        if sent.is_empty() || closed {
            break;
        }
    }
    assert!(closed, "close_notify after {} bytes", read.len());
    assert_eq!(responses(&read), 3);
}

#[test]
fn at_shutdown_every_whole_record_received_is_answered() {
    let (mut c, mut client) = established();
    let mut records = Vec::new();
    for _ in 0..2 {
        client.writer().write_all(GET).unwrap();
        records.extend(said(&mut client));
    }
    c.on_recv(10, Some(&records[..10]), 0);
    c.begin_shutdown();
    assert_eq!(
        c.phase(),
        Phase::Open,
        "a partly received record is a request under way"
    );
    c.on_recv((records.len() - 10) as i32, Some(&records[10..]), 0);
    assert_eq!(c.phase(), Phase::Draining);
    let sent = flush(&mut c);
    hear(&mut client, &sent);
    let answers = plaintext(&mut client);
    assert_eq!(responses(&answers), 2, "{}", String::from_utf8_lossy(&answers));
}

#[test]
fn at_shutdown_a_record_that_carries_no_request_still_ends_with_close_notify() {
    let (mut c, mut client) = established();
    client.refresh_traffic_keys().unwrap();
    let key_update = said(&mut client);
    c.on_recv(3, Some(&key_update[..3]), 0);
    c.begin_shutdown();
    assert_eq!(c.phase(), Phase::Open);
    c.on_recv((key_update.len() - 3) as i32, Some(&key_update[3..]), 0);
    assert_eq!(c.phase(), Phase::Draining);
    exchange(&mut c, &mut client);
    assert!(heard_close_notify(&mut client), "close_notify received");
}

#[test]
fn a_send_that_went_out_in_part_is_not_quiet_while_more_is_sealed() {
    let (mut c, mut client) = established();
    client.writer().write_all(GET).unwrap();
    let first = said(&mut client);
    c.on_recv(first.len() as i32, Some(first.as_slice()), 0);
    assert_eq!(ops(&mut c), [Op::Send]);
    complete_send(&mut c, 10);
    client.writer().write_all(GET).unwrap();
    let second = said(&mut client);
    c.on_recv(second.len() as i32, Some(second.as_slice()), 0);
    ops(&mut c);
    assert!(!c.quiet_after_send(), "the second answer is sealed and waits");
}

#[test]
fn a_file_over_tls_at_shutdown_is_answered_with_what_follows_it_then_close_notify() {
    let (mut c, mut client) = tls_pair();
    c.serve_files_from(super::files::ROOT, false);
    ops(&mut c);
    exchange(&mut c, &mut client);
    client
        .writer()
        .write_all(b"GET /files/a HTTP/1.1\r\nHost: t\r\n\r\nGET / HTTP/1.1\r\nHost: t\r\n\r\n")
        .unwrap();
    let requests = said(&mut client);
    c.on_recv(requests.len() as i32, Some(requests.as_slice()), 0);
    c.begin_shutdown();
    assert_eq!(c.phase(), Phase::Open, "a file under way");
    let file_op = |c: &mut Conn, result: i32| {
        ops(c);
        c.completed(Kind::File, false);
        c.on_file(result, 0);
    };
    file_op(
        &mut c,
        std::fs::File::open("/dev/null")
            .map(std::os::fd::IntoRawFd::into_raw_fd)
            .unwrap(),
    );
    let (_, statx) = c.file_transfer().stat_args();
    (statx.stx_mode, statx.stx_size) = (libc::S_IFREG as u16, 3);
    file_op(&mut c, 0);
    ops(&mut c);
    let (_, room, _) = c.file_transfer().read_args();
    room.copy_from_slice(b"abc");
    c.completed(Kind::File, false);
    c.on_file(3, 0);
    assert_eq!(
        c.phase(),
        Phase::Draining,
        "the request after the file is answered too"
    );
    exchange(&mut c, &mut client);
    let answers = plaintext(&mut client);
    assert_eq!(responses(&answers), 2, "{}", String::from_utf8_lossy(&answers));
    assert!(heard_close_notify(&mut client), "close_notify received");
}

#[test]
fn a_stalled_reader_pins_a_sends_worth_of_ciphertext_not_its_answers() {
    let (mut c, mut client) = established();
    let request = b"GET /bytes/1048576 HTTP/1.1\r\nHost: t\r\n\r\n";
    for _ in 0..3 {
        client.writer().write_all(request).unwrap();
    }
    let requests = said(&mut client);
    c.on_recv(requests.len() as i32, Some(requests.as_slice()), 0);
    assert!(ops(&mut c).contains(&Op::Send));
    // The send never completes: the peer reads nothing.
    let sealed = c.tls_allocated() + c.sending.capacity();
    assert!(
        sealed <= 2 * crate::conn::tls::SEAL_AHEAD,
        "{sealed} bytes of ciphertext held for a peer that reads nothing"
    );
    assert!(
        c.allocated() <= 3 * crate::conn::tls::SEAL_AHEAD,
        "{} bytes held",
        c.allocated()
    );
    // Read after all: every answer arrives whole, sealed a send's worth at a time.
    let mut read = Vec::new();
    let mut chunk = vec![0u8; 1 << 16];
    for _ in 0..1024 {
        if c.ops.send.is_idle() {
            break;
        }
        let sent = flush_one(&mut c);
        assert!(
            sent.len() <= 2 * crate::conn::tls::SEAL_AHEAD,
            "a send of {}",
            sent.len()
        );
        let mut rest = &sent[..];
        while !rest.is_empty() {
            client.read_tls(&mut rest).unwrap();
            client.process_new_packets().unwrap();
            while let Ok(n @ 1..) = client.reader().read(&mut chunk) {
                read.extend_from_slice(&chunk[..n]);
            }
        }
        ops(&mut c);
    }
    assert_eq!(responses(&read), 3);
    assert_eq!(read.len(), 3 * (head_len(&read) + (1 << 20)), "every byte");
}

#[test]
fn a_handshake_that_trickles_in_is_closed_a_request_timeout_after_the_accept() {
    let (mut c, mut client) = tls_pair();
    ops(&mut c);
    let hello = said(&mut client);
    for (tick, byte) in hello.iter().enumerate().take(TIMEOUTS.request as usize + 2) {
        let now = tick as u64;
        c.on_recv(1, Some(std::slice::from_ref(byte)), now);
        c.on_tick(now, TIMEOUTS);
        let late = now >= TIMEOUTS.request;
        assert_eq!(c.phase() == Phase::Closing, late, "at tick {now}");
        if late {
            return;
        }
    }
    panic!("the hello is shorter than the request timeout in bytes");
}

/// A client that keeps a pipeline full (more asked for with every send it reads, so the
/// connection always has output waiting): what the connection holds stays bounded
/// however long it goes on, since plaintext already sealed is given up, not kept.
#[test]
fn a_pipeline_kept_full_for_long_holds_bounded_memory() {
    let (mut c, mut client) = established();
    let get = b"GET /bytes/4000 HTTP/1.1\r\nHost: t\r\n\r\n";
    let body = vec![b'e'; 40_000];
    let (mut chunk, mut read, mut peak) = (vec![0u8; 1 << 16], 0, 0);
    for step in 0..400 {
        let gets = if step == 0 { 100 } else { 7 };
        for _ in 0..gets {
            client.writer().write_all(get).unwrap();
        }
        if step % 10 == 0 {
            client.writer().write_all(&post(&body)).unwrap();
        }
        let requests = said(&mut client);
        c.on_recv(requests.len() as i32, Some(requests.as_slice()), 0);
        ops(&mut c);
        assert!(!c.ops.send.is_idle(), "step {step}: output always waits");
        let sent = flush_one(&mut c);
        let mut rest = &sent[..];
        while !rest.is_empty() {
            client.read_tls(&mut rest).unwrap();
            client.process_new_packets().unwrap();
            while let Ok(n @ 1..) = client.reader().read(&mut chunk) {
                read += n;
            }
        }
        peak = peak.max(c.allocated());
    }
    // Two outputs of about the output limit each, with a buffer's growth (what is
    // rendered, what is being sealed), as over plain TCP (what is rendered, what is being
    // sent), and the ciphertext; not what was sealed since the first step.
    let bound = 3 * OUTPUT_LIMIT;
    assert!(peak <= bound, "{peak} bytes held at most (bound {bound})");
    assert!(read > 400 * 7 * 4000, "answers kept coming: {read} bytes");
}

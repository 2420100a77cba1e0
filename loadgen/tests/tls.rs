//! loadgen over TLS 1.3 against a tokio-rustls test server: every answer is checked as
//! over TCP, each handshake is counted by kind (full, or resumed from a ticket), what
//! was negotiated is reported, a client that closes says `close_notify`, the server's
//! `close_notify` ends a server-closes connection cleanly, and a certificate the client
//! does not trust fails the run.

mod common;

use std::sync::atomic::Ordering;
use std::time::Duration;

use common::tls_server::{self_signed, tls_server};
use common::{config, load};
use loadgen::churn::Churn;
use loadgen::run::{Config, run};
use loadgen::tls::{Handshakes, Tls};

fn tls(ca_pem: &[u8], handshakes: Handshakes) -> Option<Tls> {
    Some(Tls::new(ca_pem, "localhost", handshakes).unwrap())
}

#[test]
fn kept_alive_connections_handshake_once_each_and_report_what_they_negotiated() {
    let server = tls_server();
    let summary = load(Config {
        connections: 3,
        max_requests: Some(300),
        duration: Duration::from_secs(10),
        tls: tls(&server.ca_pem, Handshakes::Full),
        ..config(server.addr)
    });
    assert_eq!((summary.requests, summary.errors), (300, 0), "{summary:?}");
    let made = summary.tls.expect("a TLS run reports its handshakes").made;
    assert_eq!((made.full_handshakes, made.resumed_handshakes), (3, 0));
    assert!(made.cipher_suite.starts_with("TLS13_"), "{made:?}");
    assert!(
        !made.key_exchange.is_empty() && made.key_exchange != "none",
        "{made:?}"
    );
}

#[test]
fn churn_makes_full_or_resumed_handshakes_and_the_client_says_close_notify() {
    let server = tls_server();
    let churn = |handshakes| Config {
        churn: Some(Churn::ClientCloses),
        connections: 2,
        max_requests: Some(60),
        duration: Duration::from_secs(10),
        tls: tls(&server.ca_pem, handshakes),
        ..config(server.addr)
    };
    let full = load(churn(Handshakes::Full)).tls.unwrap().made;
    assert_eq!((full.full_handshakes, full.resumed_handshakes), (60, 0));

    let resumed = load(churn(Handshakes::Resumed)).tls.unwrap().made;
    assert_eq!(resumed.full_handshakes + resumed.resumed_handshakes, 60);
    assert!(
        resumed.full_handshakes >= 1,
        "the first connection has no ticket yet"
    );
    assert!(resumed.resumed_handshakes >= 50, "{resumed:?}");

    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(server.close_notifies.load(Ordering::Relaxed), 120);
}

#[test]
fn a_server_that_closes_with_close_notify_ends_each_connection_cleanly() {
    let server = tls_server();
    let summary = load(Config {
        churn: Some(Churn::ServerCloses),
        connections: 2,
        max_requests: Some(40),
        duration: Duration::from_secs(10),
        tls: tls(&server.ca_pem, Handshakes::Resumed),
        ..config(server.addr)
    });
    assert_eq!((summary.requests, summary.errors), (40, 0), "{summary:?}");
}

#[test]
fn a_certificate_the_client_does_not_trust_fails_the_run() {
    let server = tls_server();
    let (stranger, _) = self_signed();
    let summary = load(Config {
        max_requests: Some(10),
        tls: tls(&stranger, Handshakes::Full),
        ..config(server.addr)
    });
    assert_eq!(summary.requests, 0);
    assert_eq!(summary.errors_by_kind.connect, 1, "{summary:?}");
    assert!(summary.first_error.unwrap().contains("TLS handshake"));
    assert!(Tls::new(b"not a certificate", "localhost", Handshakes::Full).is_err());
    let plain = run(Config {
        tls: tls(&server.ca_pem, Handshakes::Full),
        ..config(common::codec_server())
    });
    assert!(plain.unwrap().errors > 0, "TLS to a plain server fails");
}

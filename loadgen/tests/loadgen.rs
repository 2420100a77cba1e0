//! loadgen against small scripted servers (the open loop's timing is in `open_loop.rs`):
//! wrong responses fail the run (an upload's receipt too), request bounds hold, idle
//! connections are held open beside a load, and churn makes one connection per request in both
//! who-closes patterns, or several requests per connection where the client closes. (Churn against the workspace's servers is part of
//! `conformance::check_stress`.)

mod common;

use std::sync::atomic::Ordering;
use std::time::Duration;

use common::{OK, codec_server, config, counting_server, load, scripted_server};
use loadgen::churn::Churn;
use loadgen::errors::ErrorsByKind;
use loadgen::idle::IdleConnections;
use loadgen::response::Expect;
use loadgen::run::{Config, run};

#[test]
fn wrong_status_or_body_fails_the_run() {
    let error = load(config(scripted_server(
        "HTTP/1.1 500 Oops\r\nContent-Length: 2\r\n\r\nok",
        0,
        Duration::ZERO,
    )));
    assert!(error.first_error.unwrap().contains("status 500"));
    let short = load(config(scripted_server(
        "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\no",
        0,
        Duration::ZERO,
    )));
    assert!(short.first_error.unwrap().contains("body of 1 bytes"));
}

#[test]
fn bytes_bodies_are_checked_by_length_and_content() {
    let addr = codec_server();
    let target = loadgen::target::parse(&format!("http://{addr}/bytes/65536")).unwrap();
    let checked = load(Config {
        request: target.request,
        connections: 2,
        max_requests: Some(40),
        expect_body_len: Some(65536),
        expect_body: Some(target.contract_body),
        ..config(addr)
    });
    assert_eq!((checked.first_error, checked.requests), (None, 40));

    let wrong = load(Config {
        expect_body_len: None,
        expect_body: Some(b"ko".to_vec()),
        ..config(scripted_server(OK, 0, Duration::ZERO))
    });
    assert!(wrong.first_error.unwrap().contains("first difference at Some(0)"));
}

/// Each upload's answer is the receipt of its length and CRC32C, checked byte for byte: a
/// receipt that differs in one digit fails the run.
#[test]
fn uploads_are_checked_against_their_receipt() {
    let addr = codec_server();
    let target = loadgen::target::post(&format!("http://{addr}/upload"), 3 << 20, None).unwrap();
    let receipt = target.contract_body.clone();
    let upload = |expected: Vec<u8>| {
        load(Config {
            request: target.request.clone(),
            connections: 2,
            max_requests: Some(6),
            expect_body_len: Some(receipt.len()),
            expect_body: Some(expected),
            ..config(addr)
        })
    };
    let checked = upload(receipt.clone());
    assert_eq!((checked.first_error, checked.requests), (None, 6));
    assert!(
        receipt.starts_with(br#"{"length":3145728,"crc32c":"#),
        "{receipt:?}"
    );

    let mut wrong = receipt.clone();
    let last_digit = wrong.len() - 2;
    wrong[last_digit] = if wrong[last_digit] == b'0' { b'1' } else { b'0' };
    let failed = upload(wrong);
    assert!(failed.first_error.unwrap().contains("body differs"));
}

#[test]
fn a_busy_polling_client_gets_every_answer_and_only_in_the_closed_loop() {
    let addr = scripted_server(OK, 0, Duration::ZERO);
    let spun = load(Config {
        max_requests: Some(300),
        duration: Duration::from_secs(10),
        busy_poll: true,
        ..config(addr)
    });
    assert_eq!(spun.first_error, None);
    assert!(spun.requests >= 250, "{spun:?}");
    let open = run(Config {
        rate: Some(10.0),
        busy_poll: true,
        ..config(addr)
    });
    assert!(open.unwrap_err().contains("--busy-poll"));
}

#[test]
fn request_bounds_and_pipelining_hold() {
    let addr = scripted_server(OK, 0, Duration::ZERO);
    let bounded = load(Config {
        max_requests: Some(500),
        connections: 4,
        depth: 4,
        duration: Duration::from_secs(10),
        ..config(addr)
    });
    assert_eq!(bounded.first_error, None);
    assert!(bounded.requests <= 500 && bounded.requests >= 400, "{bounded:?}");
    assert!(bounded.elapsed_s < 5.0);
    assert!(
        run(Config {
            rate: Some(10.0),
            depth: 2,
            ..config(addr)
        })
        .is_err(),
        "open loop refuses pipelining"
    );
}

#[test]
fn idle_connections_are_answered_once_and_stay_open_beside_a_load() {
    let addr = scripted_server(OK, 0, Duration::ZERO);
    let expect = Expect {
        status: 200,
        body_len: Some(2),
    };
    let request = b"GET / HTTP/1.1\r\nHost: t\r\n\r\n";
    let idle = IdleConnections::open(addr, 200, request, expect).unwrap();
    assert_eq!((idle.len(), idle.closed()), (200, 0));
    let active = load(Config {
        max_requests: Some(200),
        ..config(addr)
    });
    assert_eq!((active.first_error, active.requests), (None, 200));
    assert_eq!(idle.closed(), 0, "idle connections stay open during the load");

    let wrong = Expect {
        status: 404,
        body_len: None,
    };
    let refused = IdleConnections::open(addr, 3, request, wrong).unwrap_err();
    assert!(refused.contains("status 200, expected 404"), "{refused}");
    let too_many = IdleConnections::open(addr, usize::MAX / 2, request, expect).unwrap_err();
    assert!(too_many.contains("do not fit"), "{too_many}");
}

#[test]
fn idle_connections_the_server_closed_are_counted() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(3) {
            let mut stream = stream.unwrap();
            let mut request = [0u8; 256];
            let _ = std::io::Read::read(&mut stream, &mut request);
            let _ = std::io::Write::write_all(&mut stream, OK.as_bytes());
        }
    });
    let expect = Expect {
        status: 200,
        body_len: Some(2),
    };
    let idle = IdleConnections::open(addr, 3, b"GET / HTTP/1.1\r\n\r\n", expect).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(idle.closed(), 3);
}

#[test]
fn dropped_idle_connections_close_by_a_reset_leaving_no_time_wait() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let server = std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().take(3) {
            let mut stream = stream.unwrap();
            let mut request = [0u8; 256];
            let _ = std::io::Read::read(&mut stream, &mut request);
            std::io::Write::write_all(&mut stream, OK.as_bytes()).unwrap();
            held.push(stream);
        }
        held.into_iter()
            .map(|mut stream| {
                stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
                std::io::Read::read(&mut stream, &mut [0u8; 16]).map_err(|e| e.kind())
            })
            .collect::<Vec<_>>()
    });
    let expect = Expect {
        status: 200,
        body_len: Some(2),
    };
    let idle = IdleConnections::open(addr, 3, b"GET / HTTP/1.1\r\n\r\n", expect).unwrap();
    drop(idle);
    let ends = server.join().unwrap();
    assert_eq!(
        ends,
        vec![Err(std::io::ErrorKind::ConnectionReset); 3],
        "a reset, not a FIN (Ok(0))"
    );
}

#[test]
fn churn_makes_one_connection_per_request_whoever_closes() {
    let addr = scripted_server(OK, 0, Duration::ZERO);
    for churn in [Churn::ServerCloses, Churn::ClientCloses] {
        let closed = load(Config {
            churn: Some(churn),
            connections: 4,
            max_requests: Some(300),
            duration: Duration::from_secs(10),
            ..config(addr)
        });
        assert_eq!((closed.requests, closed.errors), (300, 0), "{closed:?}");
        assert_eq!(closed.errors_by_kind, ErrorsByKind::default());
        assert_eq!(closed.source_addrs.len(), 8, "spread over 127.0.0.2-9");
        assert_eq!(closed.churn, Some(churn));

        let open = load(Config {
            churn: Some(churn),
            connections: 4,
            rate: Some(400.0),
            spread_sources: false,
            ..config(addr)
        });
        assert_eq!(open.errors, 0, "{open:?}");
        assert!((300..=400).contains(&open.requests), "{open:?}");
        assert!(open.source_addrs.is_empty());
    }
}

#[test]
fn a_connection_carries_its_requests_then_the_client_closes_it() {
    let (addr, accepted) = counting_server();
    let carried = load(Config {
        churn: Some(Churn::ClientCloses),
        requests_per_connection: 10,
        max_requests: Some(100),
        duration: Duration::from_secs(10),
        ..config(addr)
    });
    assert_eq!((carried.requests, carried.errors), (100, 0), "{carried:?}");
    assert_eq!(carried.requests_per_connection, 10);
    assert_eq!(
        accepted.load(Ordering::Relaxed),
        10,
        "one connection per 10 requests"
    );

    let server_closes = run(Config {
        churn: Some(Churn::ServerCloses),
        requests_per_connection: 10,
        ..config(addr)
    });
    assert!(server_closes.unwrap_err().contains("--churn client-closes"));
}

#[test]
fn churn_counts_wrong_answers_by_kind_and_fails_the_run() {
    let addr = scripted_server(
        "HTTP/1.1 503 Busy\r\nContent-Length: 2\r\n\r\nok",
        0,
        Duration::ZERO,
    );
    let failed = load(Config {
        churn: Some(Churn::ServerCloses),
        connections: 2,
        max_requests: Some(20),
        ..config(addr)
    });
    assert_eq!(failed.requests, 0);
    assert_eq!(failed.errors_by_kind.status, 20, "{failed:?}");
    assert_eq!(failed.errors, 20);
    assert!(failed.first_error.unwrap().contains("status 503"));
}

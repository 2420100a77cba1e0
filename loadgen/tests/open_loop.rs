//! The open loop's timing against small scripted servers: a stall shows in the corrected
//! percentiles and not in the uncorrected ones, a connection that connects late is not
//! charged its setup, the warm-up is counted apart, and the interval log reads back to
//! the summary's counts.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::{OK, config, load, scripted_server};
use loadgen::hdr_log::{UNCORRECTED_TAG, merge, read};
use loadgen::run::Config;

#[test]
fn a_stall_shows_in_corrected_percentiles_and_the_lateness_not_in_uncorrected_ones() {
    let stall = Duration::from_millis(300);
    let open = load(Config {
        rate: Some(1000.0),
        ..config(scripted_server(OK, 200, stall))
    });
    assert_eq!(open.first_error, None);
    // About 300 of ~1000 requests were due during the stall: each is measured from its
    // intended send time, so the stall spreads over the upper percentiles.
    assert!(open.latency_us.max >= 250_000, "{open:?}");
    assert!(open.latency_us.p90 >= 50_000, "{open:?}");
    // From their actual sends, only the stalled request was slow; the others left late.
    let uncorrected = open.uncorrected_latency_us.as_ref().unwrap();
    assert!(uncorrected.max >= 250_000, "{open:?}");
    assert!(uncorrected.p90 < 50_000, "{open:?}");
    assert!(open.send_lateness_us.as_ref().unwrap().p90 >= 50_000, "{open:?}");

    // The same stall in a closed loop is one slow sample among many.
    let closed = load(config(scripted_server(OK, 200, stall)));
    assert!(closed.latency_us.max >= 250_000, "{closed:?}");
    assert!(closed.latency_us.p90 < 50_000, "{closed:?}");
    assert!(closed.uncorrected_latency_us.is_none() && closed.send_lateness_us.is_none());
}

/// A listener whose accept queue is full for its first `full_for`: a connect made then
/// has its SYN dropped and completes only on the retransmission (about a second later).
fn late_connecting_server(full_for: Duration) -> SocketAddr {
    use socket2::{Domain, Socket, Type};
    let socket = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
    socket
        .bind(&"127.0.0.1:0".parse::<SocketAddr>().unwrap().into())
        .unwrap();
    socket.listen(0).unwrap();
    let addr = socket.local_addr().unwrap().as_socket().unwrap();
    let blocker = std::net::TcpStream::connect(addr).unwrap();
    let listener: std::net::TcpListener = socket.into();
    std::thread::spawn(move || {
        std::thread::sleep(full_for);
        drop(blocker);
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            std::thread::spawn(move || {
                use std::io::{Read, Write};
                let mut buffer = [0u8; 4096];
                while let Ok(n @ 1..) = stream.read(&mut buffer) {
                    let heads = buffer[..n].windows(4).filter(|w| w == b"\r\n\r\n").count();
                    if stream.write_all(OK.repeat(heads).as_bytes()).is_err() {
                        return;
                    }
                }
            });
        }
    });
    addr
}

#[test]
fn a_connection_that_connects_late_is_not_charged_its_setup() {
    let open = load(Config {
        rate: Some(200.0),
        duration: Duration::from_millis(2_500),
        ..config(late_connecting_server(Duration::from_millis(300)))
    });
    assert_eq!(open.first_error, None);
    // Its schedule started when it connected: nothing waited for the connect. (Started
    // at the run's start, the ~200 requests due during the connect would all be late,
    // the first by the whole connect.)
    assert!(open.latency_us.p99 < 100_000, "{open:?}");
    assert!(open.send_lateness_us.as_ref().unwrap().p99 < 100_000, "{open:?}");
    // The connect took about a second of the 2.5 s (500 sends had it been at once).
    assert!(open.requests <= 400, "the connect was not late: {open:?}");
}

#[test]
fn the_warm_up_is_counted_apart_and_measured_nowhere() {
    let open = load(Config {
        rate: Some(200.0),
        warmup: Duration::from_millis(600),
        duration: Duration::from_millis(600),
        // Request 20 (due at 0.1 s) stalls, in the warm-up.
        ..config(scripted_server(OK, 20, Duration::from_millis(250)))
    });
    assert_eq!(open.first_error, None);
    assert!((110..=130).contains(&open.warmup_requests), "{open:?}");
    assert!((110..=130).contains(&open.requests), "{open:?}");
    assert_eq!(
        open.requests_including_warmup(),
        open.requests + open.warmup_requests
    );
    assert!(open.latency_us.max < 100_000, "the stall was measured: {open:?}");
    assert!((open.requests_per_sec - 200.0).abs() < 30.0, "{open:?}");

    // A request bound counts measured requests only.
    let closed = load(Config {
        warmup: Duration::from_millis(200),
        max_requests: Some(300),
        duration: Duration::from_secs(10),
        ..config(scripted_server(OK, 0, Duration::ZERO))
    });
    assert_eq!(closed.requests, 300, "{closed:?}");
    assert!(closed.warmup_requests > 0, "{closed:?}");
}

#[test]
fn the_interval_log_reads_back_to_the_measured_requests() {
    let path = std::env::temp_dir().join(format!("loadgen-test-{}.hlog", std::process::id()));
    let open = load(Config {
        rate: Some(500.0),
        connections: 4,
        warmup: Duration::from_millis(200),
        duration: Duration::from_millis(2_300),
        hdr_log: Some(path.clone()),
        ..config(scripted_server(OK, 0, Duration::ZERO))
    });
    assert_eq!(open.first_error, None);
    let intervals = read(&path).unwrap();
    let tagged = |tag: Option<&'static str>| intervals.iter().filter(move |i| i.tag.as_deref() == tag);
    let count = |tag: Option<&'static str>| -> u64 { tagged(tag).map(|i| i.histogram.len()).sum() };
    assert_eq!(count(None), open.requests);
    assert_eq!(count(Some(UNCORRECTED_TAG)), open.requests);
    let starts: Vec<u64> = tagged(None).map(|i| i.start.as_secs()).collect();
    assert_eq!(
        starts,
        [0, 1, 2],
        "one interval per second of the measured window"
    );
    let merged = merge(&[&path, &path]).unwrap();
    assert_eq!(merged[&None].len(), 2 * open.requests);
    assert_eq!(merged[&Some(UNCORRECTED_TAG.into())].len(), 2 * open.requests);
    std::fs::remove_file(path).unwrap();
}

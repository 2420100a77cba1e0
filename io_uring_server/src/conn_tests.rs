//! Unit tests of the connection transitions, without a ring.

use super::*;
use http_core::Limits;

const GET: &[u8] = b"GET / HTTP/1.1\r\nHost: t\r\n\r\n";
const TIMEOUTS: Timeouts = Timeouts {
    request: 10,
    idle: 60,
};

fn conn() -> Conn {
    Conn::new(7, Codec::new(Limits::default()), 0)
}

/// Takes the next send and completes it whole; returns what was sent.
fn flush(conn: &mut Conn) -> Vec<u8> {
    let bytes = conn.take_send().map(<[u8]>::to_vec).unwrap_or_default();
    if !bytes.is_empty() {
        conn.on_sent(bytes.len(), 0);
    }
    bytes
}

#[test]
fn a_request_is_answered_and_the_connection_stays_open() {
    let mut c = conn();
    assert!(c.wants_recv());
    c.on_data(GET, 1);
    let out = flush(&mut c);
    assert!(out.starts_with(b"HTTP/1.1 200 OK") && out.ends_with(b"Hello, World!"));
    assert_eq!((c.phase, c.backlog()), (Phase::Open, 0));
}

#[test]
fn short_sends_lose_and_repeat_nothing() {
    let mut c = conn();
    c.on_data(&GET.repeat(3), 0);
    let whole = c.take_send().unwrap().to_vec();
    assert!(c.take_send().is_none(), "one send at a time");
    c.on_sent(10, 0);
    c.on_data(GET, 0);
    let mut seen = whole[..10].to_vec();
    while let Some(chunk) = c.take_send().map(<[u8]>::to_vec) {
        let n = chunk.len().min(7);
        seen.extend_from_slice(&chunk[..n]);
        c.on_sent(n, 0);
    }
    let mut expected = whole.clone();
    expected.extend_from_slice(&whole[..whole.len() / 3]);
    let mask = |b: &[u8]| String::from_utf8_lossy(b).replace(|ch: char| ch.is_ascii_digit(), "#");
    assert_eq!(mask(&seen), mask(&expected));
    assert_eq!(c.backlog(), 0);
}

#[test]
fn responses_rendered_during_a_send_wait_in_pending() {
    let mut c = conn();
    c.on_data(GET, 0);
    let first = c.take_send().unwrap().as_ptr();
    c.on_data(GET, 0);
    assert!(c.send_in_flight);
    assert!(c.backlog() > 0);
    c.on_sent(c.backlog() / 2, 0);
    let second = c.take_send().unwrap().as_ptr();
    assert_ne!(first, second, "the second response went to the other buffer");
}

#[test]
fn connection_close_drains_then_shuts_down_then_lingers() {
    let mut c = conn();
    c.on_data(b"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", 0);
    assert_eq!(c.phase, Phase::Draining);
    assert!(!c.wants_recv() && !c.wants_shutdown());
    flush(&mut c);
    assert!(c.wants_shutdown());
    c.start_linger(5);
    c.on_data(GET, 5);
    assert!(c.take_send().is_none(), "input after close is discarded");
    c.on_tick(5, TIMEOUTS);
    assert!(matches!(c.phase, Phase::Lingering { .. }));
    c.on_tick(5 + LINGER_TICKS, TIMEOUTS);
    assert_eq!(c.phase, Phase::Closing);
}

#[test]
fn eof_closes_after_pending_output() {
    let mut c = conn();
    c.on_data(GET, 0);
    c.on_eof();
    assert_eq!(c.phase, Phase::Draining);
    let mut idle = conn();
    idle.on_eof();
    assert_eq!(idle.phase, Phase::Closing);
}

#[test]
fn backpressure_stops_reading_until_output_drains() {
    let mut c = conn();
    let batch = GET.repeat(20_000);
    c.on_data(&batch, 0);
    assert!(c.backlog() > OUTPUT_LIMIT);
    c.recv_armed = true;
    assert!(c.wants_recv_cancel() && !c.wants_recv());
    c.recv_armed = false;
    let held = c.backlog();
    c.on_data(&GET.repeat(100), 0);
    assert_eq!(c.backlog(), held, "nothing new answered while paused");
    let mut total = 0;
    while let Some(chunk) = c.take_send().map(<[u8]>::len) {
        c.on_sent(chunk, 0);
        total += chunk;
    }
    assert!(total > held, "held-back requests are answered once output drains");
    assert!(
        c.wants_recv(),
        "{:?} backlog {} armed {}",
        c.phase,
        c.backlog(),
        c.recv_armed
    );
}

#[test]
fn input_piling_up_while_paused_is_bounded() {
    let mut c = conn();
    c.on_data(&GET.repeat(20_000), 0);
    assert!(c.backlog() > OUTPUT_LIMIT);
    c.on_data(&vec![b'a'; 2 * OUTPUT_LIMIT], 0);
    assert_eq!(c.phase, Phase::Open, "a bounded amount is held while paused");
    c.on_data(&vec![b'a'; 2 * OUTPUT_LIMIT], 0);
    assert_eq!(c.phase, Phase::Closing);
}

#[test]
fn timeouts_distinguish_partial_requests_from_idle() {
    let mut partial = conn();
    partial.on_data(b"GET / HT", 0);
    partial.on_tick(9, TIMEOUTS);
    assert_eq!(partial.phase, Phase::Open);
    partial.on_tick(10, TIMEOUTS);
    assert_eq!(partial.phase, Phase::Closing);

    let mut idle = conn();
    idle.on_data(GET, 0);
    flush(&mut idle);
    idle.on_tick(59, TIMEOUTS);
    assert_eq!(idle.phase, Phase::Open);
    idle.on_tick(60, TIMEOUTS);
    assert_eq!(idle.phase, Phase::Closing);
}

#[test]
fn shutdown_closes_idle_now_and_busy_after_the_request() {
    let mut idle = conn();
    idle.begin_shutdown();
    assert_eq!(idle.phase, Phase::Closing);

    let mut busy = conn();
    busy.on_data(
        b"POST /payload HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\n\r\nab",
        0,
    );
    busy.begin_shutdown();
    assert_eq!(busy.phase, Phase::Open);
    busy.on_data(b"cd", 1);
    assert_eq!(busy.phase, Phase::Draining);
    assert!(flush(&mut busy).ends_with(b"abcd"));
}

#[test]
fn close_waits_for_in_flight_operations() {
    let mut c = conn();
    c.in_flight = 2;
    c.fail();
    assert!(!c.wants_close());
    c.in_flight = 0;
    assert!(c.wants_close());
    assert!(c.take_send().is_none());
}

//! A request's pace: a head or body trickled below the minimum rate is closed once its
//! grace is spent, however often its bytes come (plain and over TLS); a request at a good
//! rate, and a keep-alive client asking now and then, are not.

use std::io::Write;

use super::tls::{established, said};
use super::*;

/// Ticks between two bytes of a trickle: under the silence timeout, so only the pace can
/// close it.
const EVERY: u64 = 5;

/// The grace in ticks.
fn grace() -> u64 {
    TIMEOUTS.pace.grace.as_secs()
}

/// Feeds `bytes` to `c` one per [`EVERY`] ticks from tick 0, ticking every tick, until it
/// closes; returns the tick it closed in, or `None` if it outlasted the bytes.
fn trickle(c: &mut Conn, bytes: &[u8], feed: impl Fn(&mut Conn, &[u8], u64)) -> Option<u64> {
    let mut now = 0;
    for byte in bytes {
        feed(c, std::slice::from_ref(byte), now);
        for _ in 0..EVERY {
            c.on_tick(now, TIMEOUTS);
            if c.phase() == Phase::Closing {
                return Some(now);
            }
            now += 1;
        }
    }
    None
}

fn plain(c: &mut Conn, bytes: &[u8], now: u64) {
    c.on_data(bytes, now);
}

fn ciphertext(c: &mut Conn, bytes: &[u8], now: u64) {
    c.on_recv(bytes.len() as i32, Some(bytes), now);
}

/// A head that never ends, `len` bytes of it.
fn endless_head(len: usize) -> Vec<u8> {
    let mut head = b"GET / HTTP/1.1\r\nHost: t\r\nX-Slow: ".to_vec();
    head.resize(len, b'a');
    head
}

#[test]
fn a_head_trickled_a_byte_at_a_time_is_closed_after_the_grace() {
    let mut c = conn();
    ops(&mut c);
    let closed = trickle(&mut c, &endless_head(100), plain).expect("closed");
    assert!(
        (grace()..grace() + 3).contains(&closed),
        "closed at tick {closed}"
    );
}

#[test]
fn a_body_below_the_rate_is_closed() {
    let mut c = conn();
    ops(&mut c);
    c.on_data(
        b"POST /payload HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\n",
        0,
    );
    let mut now = 0;
    // 100 bytes every 2 ticks: 50 bytes a second, a tenth of the rate.
    while c.phase() == Phase::Open && now < 10 * grace() {
        if now % 2 == 0 {
            c.on_data(&[b'b'; 100], now);
        }
        c.on_tick(now, TIMEOUTS);
        now += 1;
    }
    assert_eq!(c.phase(), Phase::Closing);
    // Earned past the grace: 100 bytes / 2 ticks / 500 bytes a second, 0.1 s a tick.
    assert!(
        (grace()..grace() + grace() / 5).contains(&now),
        "closed at tick {now}"
    );
}

#[test]
fn a_body_at_a_good_rate_and_requests_now_and_then_are_not_closed() {
    let mut c = conn();
    ops(&mut c);
    let len = 1_000 * 4 * grace();
    c.on_data(
        format!("POST /payload HTTP/1.1\r\nHost: t\r\nContent-Length: {len}\r\n\r\n").as_bytes(),
        0,
    );
    for now in 0..4 * grace() {
        c.on_data(&[b'b'; 1_000], now);
        c.on_tick(now, TIMEOUTS);
        assert_eq!(c.phase(), Phase::Open, "at tick {now}");
    }
    assert_eq!(
        responses(&flush_at(&mut c, 4 * grace())),
        1,
        "the upload is answered"
    );
    // Then a whole request every few ticks, each answered: each has its own clock.
    for now in (4 * grace()..8 * grace()).step_by(EVERY as usize) {
        c.on_data(GET, now);
        assert_eq!(responses(&flush_at(&mut c, now)), 1);
        c.on_tick(now, TIMEOUTS);
        assert_eq!(c.phase(), Phase::Open, "at tick {now}");
    }
}

#[test]
fn a_head_trickled_over_tls_is_closed_after_the_grace() {
    let (mut c, mut client) = established();
    client.writer().write_all(&endless_head(100)).unwrap();
    // One record announced, its ciphertext trickled a byte at a time.
    let record = said(&mut client);
    let closed = trickle(&mut c, &record, ciphertext).expect("closed");
    assert!(
        (grace()..grace() + 3).contains(&closed),
        "closed at tick {closed}"
    );
}

#[test]
fn a_head_trickled_a_record_at_a_time_over_tls_is_closed_after_the_grace() {
    let (mut c, mut client) = established();
    let mut now = 0;
    for byte in endless_head(100) {
        client.writer().write_all(&[byte]).unwrap();
        ciphertext(&mut c, &said(&mut client), now);
        for _ in 0..EVERY {
            c.on_tick(now, TIMEOUTS);
            now += 1;
        }
        if c.phase() == Phase::Closing {
            break;
        }
    }
    assert_eq!(c.phase(), Phase::Closing);
    assert!(
        (grace()..grace() + 2 * EVERY).contains(&now),
        "closed by tick {now}"
    );
}

/// A partial request behind answers backed up to the output limit waits on the server,
/// not the client: however long the client takes to read (making progress each tick),
/// the pace does not close it.
#[test]
fn a_request_the_server_holds_back_is_not_late() {
    let mut c = conn();
    ops(&mut c);
    let mut pipeline = b"GET /bytes/1048576 HTTP/1.1\r\nHost: t\r\n\r\n".repeat(3);
    pipeline.extend_from_slice(b"GET / HT");
    c.on_data(&pipeline, 0);
    for now in 0..3 * grace() {
        complete_send_at(&mut c, 1_000, now);
        ops(&mut c);
        c.on_tick(now, TIMEOUTS);
        assert_eq!(c.phase(), Phase::Open, "at tick {now}");
    }
}

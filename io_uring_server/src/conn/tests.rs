//! Unit tests of the connection transitions, without a ring, by concept (`receiving`,
//! `sending`, `closing`, as the code is split); here the helpers they share: `ops` plays
//! the event loop, submitting whatever the connection asks for.

use super::*;
use crate::gather::MAX_SLICES;
use crate::op_state::{Op, Stage};
use http_core::Limits;

mod bulk;
mod closing;
mod files;
mod pace;
mod receiving;
mod sending;
mod starved;
mod tls;

const GET: &[u8] = b"GET / HTTP/1.1\r\nHost: t\r\n\r\n";

/// The default buffer ring's bytes: 4 buffers of 256 KiB, consumed incrementally.
const RING_BYTES: usize = 4 * (256 << 10);

const TIMEOUTS: Timeouts = Timeouts {
    request: 10,
    idle: 60,
    pace: Pace {
        grace: http_core::pace::REQUEST_GRACE,
        min_rate: http_core::pace::MIN_REQUEST_RATE,
    },
};

fn conn() -> Conn {
    conn_receiving_bulk(BulkRecv::Multishot)
}

/// A connection on the default buffer ring whose uploads' large bodies go by `bulk_recv`.
fn conn_receiving_bulk(bulk_recv: BulkRecv) -> Conn {
    let receiving = Receiving::Ring {
        group: 0,
        large_bodies_plain: true,
        ring_bytes: RING_BYTES,
        bulk_recv,
    };
    Conn::new(7, false, receiving, Codec::new(Limits::default()), 0)
}

/// Submits everything the connection wants, as the event loop does; returns the ops.
fn ops(conn: &mut Conn) -> Vec<Op> {
    let mut submitted = Vec::new();
    loop {
        conn.seal_output();
        let Some(op) = conn.next_op() else {
            break;
        };
        conn.submitted(op, 0);
        if op == Op::Send {
            let named = conn.unsent().map(<[u8]>::len).sum::<usize>();
            assert_eq!(conn.unsent_len(), named, "the send's measure is what it names");
            match conn.gathered() {
                Some(_) => assert_eq!(conn.gather.as_ref().unwrap().named(), slices(conn)),
                None => assert_eq!(slices(conn).len(), 1, "one slice: a plain send"),
            }
        }
        submitted.push(op);
    }
    submitted
}

/// The bytes of the send in flight, its slices together.
fn unsent(conn: &Conn) -> Vec<u8> {
    conn.unsent().flatten().copied().collect()
}

/// Where each slice of the send in flight starts, and its length.
fn slices(conn: &Conn) -> Vec<(*const u8, usize)> {
    conn.unsent().map(|slice| (slice.as_ptr(), slice.len())).collect()
}

/// Completes the send in flight with `n` of its bytes; returns those bytes.
fn complete_send(conn: &mut Conn, n: usize) -> Vec<u8> {
    complete_send_at(conn, n, 0)
}

/// [`complete_send`] in tick `now`.
fn complete_send_at(conn: &mut Conn, n: usize, now: u64) -> Vec<u8> {
    let mut bytes = unsent(conn);
    let n = n.min(bytes.len());
    bytes.truncate(n);
    conn.completed(Kind::Send, false);
    conn.on_sent(n, now);
    bytes
}

/// Completes whole sends (the one in flight first) until nothing is left to send;
/// returns the bytes.
fn flush(conn: &mut Conn) -> Vec<u8> {
    flush_at(conn, 0)
}

/// [`flush`] in tick `now`.
fn flush_at(conn: &mut Conn, now: u64) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        ops(conn);
        if conn.ops.send.is_idle() {
            return out;
        }
        out.extend(complete_send_at(conn, usize::MAX, now));
    }
}

/// Completes the send in flight whole; returns its bytes.
fn flush_one(conn: &mut Conn) -> Vec<u8> {
    complete_send(conn, usize::MAX)
}

/// Completes a cancelled recv: the cancel's completion, then the recv's final one.
fn cancel_recv(conn: &mut Conn, now: u64) {
    conn.completed(Kind::Cancel, false);
    conn.completed(Kind::Recv, false);
    assert_eq!(conn.on_recv(-libc::ECANCELED, None, now), 0);
}

/// A `POST /payload` of `body` with Content-Length.
fn post(body: &[u8]) -> Vec<u8> {
    let mut request = format!(
        "POST /payload HTTP/1.1\r\nHost: t\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(body);
    request
}

fn responses(bytes: &[u8]) -> usize {
    bytes.windows(9).filter(|w| w == b"HTTP/1.1 ").count()
}

/// `bytes` with every Date header's value blanked, so answers rendered apart compare.
fn without_dates(bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let mut at = 0;
    while let Some(found) = out[at..].windows(6).position(|w| w == b"Date: ") {
        let start = at + found + 6;
        let end = start + out[start..].iter().position(|&b| b == b'\r').unwrap_or(0);
        out[start..end].fill(b'-');
        at = end;
    }
    out
}

/// The length of the head at the start of a response.
fn head_len(response: &[u8]) -> usize {
    response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head")
        + 4
}

//! An upload's large body under each `--bulk-recv`: which recv takes it, the slices lent,
//! the receipt's length and CRC32C, and the request pipelined behind it.

use super::*;
use crate::conn::bulk::{UPLOAD_SLICE_MAX, UPLOAD_SLICE_MIN};

const GET_AFTER: &[u8] = b"GET /after HTTP/1.1\r\nHost: t\r\n\r\n";

/// `POST /upload` of `body` with Content-Length, then a GET pipelined right behind it.
fn upload_then_get(body: &[u8]) -> Vec<u8> {
    let head = format!(
        "POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    let mut stream = head.into_bytes();
    stream.extend_from_slice(body);
    stream.extend_from_slice(GET_AFTER);
    stream
}

/// A body whose CRC32C a wrong offset or a lost slice would change.
fn varied_body(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 + i / 251) as u8).collect()
}

/// Plays the kernel for one plain recv: fills the lent slice from `rest`; returns how
/// many bytes it wrote and the responses rendered.
fn fill_plain_recv(c: &mut Conn, rest: &mut &[u8]) -> (usize, usize) {
    let room = c.recv_room();
    let n = room.len().min(rest.len());
    room[..n].copy_from_slice(&rest[..n]);
    *rest = &rest[n..];
    c.completed(Kind::Recv, false);
    (n, c.on_recv(n as i32, None, 2))
}

/// Receives the stream's first `arrived` bytes through the ring, then the rest as
/// [`pump`] does.
fn receive(c: &mut Conn, stream: &[u8], arrived: usize) -> (Vec<usize>, Vec<Op>, Vec<u8>) {
    assert_eq!(ops(c), [Op::Recv], "a multishot recv into the buffer ring");
    c.on_data(&stream[..arrived], 1);
    pump(c, &stream[arrived..])
}

/// Plays the event loop and the kernel until `rest` has all arrived and every answer is
/// sent: each recv the connection asks for gets the next bytes (a multishot recv's
/// completion 64 KiB at a time). Returns the slices lent to plain recvs, the ops asked
/// for and everything sent.
fn pump(c: &mut Conn, mut rest: &[u8]) -> (Vec<usize>, Vec<Op>, Vec<u8>) {
    let (mut slices, mut asked, mut sent) = (Vec::new(), Vec::new(), Vec::new());
    loop {
        let now = ops(c);
        asked.extend_from_slice(&now);
        if now.contains(&Op::CancelRecv) {
            cancel_recv(c, 1);
        } else if !c.ops.send.is_idle() {
            sent.extend(flush(c));
        } else if rest.is_empty() {
            return (slices, asked, sent);
        } else if c.input.is_lent() {
            slices.push(c.recv_room().len());
            fill_plain_recv(c, &mut rest);
        } else {
            let n = rest.len().min(64 << 10);
            c.on_data(&rest[..n], 2);
            rest = &rest[n..];
        }
    }
}

fn receipt(body: &[u8]) -> String {
    format!(r#"{{"length":{},"crc32c":{}}}"#, body.len(), crc32c::crc32c(body))
}

/// A large upload moves to plain recvs into slices of the input (64 KiB growing to
/// 256 KiB), is answered with its length and CRC32C, and the connection is back on the
/// buffer ring for the request behind it, which is answered too.
fn large_upload_goes_by_plain_recvs(mode: BulkRecv) {
    let body = varied_body(3 << 20);
    let stream = upload_then_get(&body);
    let mut c = conn_receiving_bulk(mode);
    let (slices, asked, sent) = receive(&mut c, &stream, 10_000);
    assert!(
        asked.contains(&Op::RecvInto),
        "{mode:?}: plain recvs take the body"
    );
    assert_eq!(
        slices[0], UPLOAD_SLICE_MIN,
        "{mode:?}: a head buys no more than 64 KiB"
    );
    assert!(
        slices.iter().all(|&s| s <= UPLOAD_SLICE_MAX),
        "{mode:?}: {slices:?}"
    );
    assert!(
        slices.contains(&UPLOAD_SLICE_MAX),
        "{mode:?}: slices grow with the body"
    );
    assert!(
        slices.len() < body.len() / (128 << 10),
        "{mode:?}: {} recvs",
        slices.len()
    );
    let text = String::from_utf8_lossy(&sent);
    assert_eq!(
        responses(&sent),
        2,
        "{mode:?}: the upload and the GET behind it: {text}"
    );
    assert!(text.contains(&receipt(&body)), "{mode:?}: {text}");
    assert!(
        text.contains("HTTP/1.1 404"),
        "{mode:?}: the GET is answered: {text}"
    );
    assert_eq!(c.bulk_upload(), None, "{mode:?}: the upload is over");
    let last_recv = asked
        .iter()
        .rev()
        .find(|op| matches!(op, Op::Recv | Op::RecvInto));
    assert_eq!(last_recv, Some(&Op::Recv), "{mode:?}: back to the buffer ring");
    assert!(
        !c.input.is_lent() && !c.ops.recv.is_idle(),
        "{mode:?}: a multishot recv armed"
    );
    assert_eq!(c.allocated(), 0, "{mode:?}: nothing kept of the slices");
}

#[test]
fn under_direct_a_large_upload_goes_by_plain_recvs_and_back() {
    large_upload_goes_by_plain_recvs(BulkRecv::Direct);
}

#[test]
fn an_uploads_recv_is_lent_its_slice_and_no_more() {
    let body = varied_body(300 << 10);
    let stream = upload_then_get(&body);
    let head = stream.len() - body.len() - GET_AFTER.len();
    let mut c = conn_receiving_bulk(BulkRecv::Direct);
    c.input.recycle(vec![0; 1 << 20]);
    assert_eq!(ops(&mut c), [Op::Recv]);
    c.on_data(&stream[..head + 10], 1);
    assert_eq!(ops(&mut c), [Op::CancelRecv]);
    cancel_recv(&mut c, 1);
    assert_eq!(ops(&mut c), [Op::RecvInto]);
    assert!(
        c.input.lent_room().len() > UPLOAD_SLICE_MIN,
        "the premise: the input's buffer has more room than the slice"
    );
    assert_eq!(
        c.recv_room().len(),
        UPLOAD_SLICE_MIN,
        "the first slice, whatever room the input's buffer has"
    );
}

#[test]
fn bytes_the_ring_hands_over_after_the_cancel_are_taken_before_any_plain_recv() {
    let body = varied_body(300 << 10);
    let stream = upload_then_get(&body);
    let head = stream.len() - body.len() - GET_AFTER.len();
    let mut c = conn_receiving_bulk(BulkRecv::Direct);
    assert_eq!(ops(&mut c), [Op::Recv]);
    c.on_data(&stream[..head + 10], 1);
    assert_eq!(ops(&mut c), [Op::CancelRecv]);
    // The multishot recv had already received the rest before the cancel reached it.
    c.on_data(&stream[head + 10..head + (100 << 10)], 1);
    assert_eq!(
        ops(&mut c),
        [],
        "no plain recv while the multishot one is cancelling"
    );
    cancel_recv(&mut c, 1);
    let (slices, _, sent) = pump(&mut c, &stream[head + (100 << 10)..]);
    assert!(!slices.is_empty(), "the rest of the body by plain recv");
    assert!(String::from_utf8_lossy(&sent).contains(&receipt(&body)));
    assert_eq!(responses(&sent), 2, "the receipt, then the GET behind it");
}

#[test]
fn by_default_an_upload_stays_on_the_buffer_ring() {
    let body = varied_body(1 << 20);
    let stream = upload_then_get(&body);
    let mut c = conn_receiving_bulk(BulkRecv::Multishot);
    let (slices, asked, sent) = receive(&mut c, &stream, 10_000);
    assert!(slices.is_empty() && !asked.contains(&Op::RecvInto), "{asked:?}");
    assert!(String::from_utf8_lossy(&sent).contains(&receipt(&body)));
    assert_eq!(responses(&sent), 2);
}

#[test]
fn a_small_upload_stays_on_the_buffer_ring() {
    let body = varied_body(DIRECT_BODY_MIN - 1);
    let stream = upload_then_get(&body);
    let mut c = conn_receiving_bulk(BulkRecv::Direct);
    let (slices, _, sent) = receive(&mut c, &stream, 100);
    assert!(slices.is_empty(), "{slices:?}");
    assert!(String::from_utf8_lossy(&sent).contains(&receipt(&body)));
}

#[test]
fn a_chunked_upload_moves_once_past_64_kib() {
    let body = varied_body(1 << 20);
    let mut stream = b"POST /upload HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    for chunk in body.chunks(40_000) {
        stream.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        stream.extend_from_slice(chunk);
        stream.extend_from_slice(b"\r\n");
    }
    stream.extend_from_slice(b"0\r\n\r\n");
    stream.extend_from_slice(GET_AFTER);
    let mut c = conn_receiving_bulk(BulkRecv::Direct);
    assert_eq!(ops(&mut c), [Op::Recv]);
    c.on_data(&stream[..50_000], 1);
    assert_eq!(ops(&mut c), [], "40 000 bytes read: not yet known to be large");
    let (slices, _, sent) = pump(&mut c, &stream[50_000..]);
    assert!(!slices.is_empty(), "past 64 KiB, plain recvs");
    assert!(String::from_utf8_lossy(&sent).contains(&receipt(&body)));
    assert_eq!(responses(&sent), 2);
}

/// A large upload trickled a byte at a time while on plain recvs: the pace closes it while
/// a recv holds its slice, the cancel ends that recv, and only then is the socket closed.
#[test]
fn a_trickled_upload_is_closed_by_its_pace_while_its_slice_is_lent() {
    let mut c = conn_receiving_bulk(BulkRecv::Direct);
    assert_eq!(ops(&mut c), [Op::Recv]);
    c.on_data(
        b"POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 1048576\r\n\r\n",
        0,
    );
    assert_eq!(ops(&mut c), [Op::CancelRecv]);
    cancel_recv(&mut c, 0);
    let mut now = 0;
    let closed = loop {
        assert_eq!(ops(&mut c), [Op::RecvInto], "tick {now}");
        for _ in 0..5 {
            c.on_tick(now, TIMEOUTS);
            now += 1;
        }
        if c.phase() == Phase::Closing {
            break now;
        }
        assert!(now < 100, "a trickle of a byte per 5 ticks was never closed");
        c.recv_room()[0] = b'u';
        c.completed(Kind::Recv, false);
        c.on_recv(1, None, now);
    };
    let grace = TIMEOUTS.pace.grace.as_secs();
    assert!(
        closed > grace,
        "closed at tick {closed}, within its grace of {grace}"
    );
    assert!(
        c.input.is_lent(),
        "the premise: closed while the recv holds its slice"
    );
    assert_eq!(ops(&mut c), [Op::CancelAll]);
    c.completed(Kind::Cancel, false);
    assert_eq!(
        ops(&mut c),
        [],
        "no close while the recv may still write its slice"
    );
    c.completed(Kind::Recv, false);
    c.on_recv(-libc::ECANCELED, None, now);
    assert!(!c.input.is_lent() && c.input.is_empty());
    assert_eq!(ops(&mut c), [Op::Close]);
}

//! Unit tests of the connection transitions, without a ring: `ops` plays the event loop,
//! submitting whatever the connection asks for.

use super::*;
use crate::gather::MAX_SLICES;
use http_core::Limits;

const GET: &[u8] = b"GET / HTTP/1.1\r\nHost: t\r\n\r\n";
const TIMEOUTS: Timeouts = Timeouts {
    request: 10,
    idle: 60,
};

fn conn() -> Conn {
    Conn::new(
        7,
        false,
        Receiving::Ring {
            large_bodies_plain: true,
        },
        Codec::new(Limits::default()),
        0,
    )
}

/// Submits everything the connection wants, as the event loop does; returns the ops.
fn ops(conn: &mut Conn) -> Vec<Op> {
    let mut submitted = Vec::new();
    while let Some(op) = conn.next_op() {
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
    let mut bytes = unsent(conn);
    let n = n.min(bytes.len());
    bytes.truncate(n);
    conn.completed(Kind::Send, false);
    conn.on_sent(n, 0);
    bytes
}

/// Completes whole sends (the one in flight first) until nothing is left to send;
/// returns the bytes.
fn flush(conn: &mut Conn) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        ops(conn);
        if conn.ops.send.is_idle() {
            return out;
        }
        out.extend(complete_send(conn, usize::MAX));
    }
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

#[test]
fn a_request_is_answered_and_the_connection_stays_open() {
    let mut c = conn();
    assert_eq!(ops(&mut c), [Op::Recv]);
    assert_eq!(c.on_data(GET, 1), 1);
    let out = flush(&mut c);
    assert!(out.starts_with(b"HTTP/1.1 200 OK") && out.ends_with(b"Hello, World!"));
    assert_eq!((c.phase(), c.backlog(), c.in_flight()), (Phase::Open, 0, 1));
    assert_eq!(c.allocated(), 0, "an idle connection holds no buffer");
}

#[test]
fn a_partial_request_is_held_until_answered_then_freed() {
    let mut c = conn();
    ops(&mut c);
    c.on_data(&GET[..10], 1);
    assert!(c.allocated() >= 10);
    assert_eq!(c.on_data(&GET[10..], 1), 1);
    flush(&mut c);
    assert_eq!(c.allocated(), 0);
    eprintln!("a connection's slab entry: {} bytes", std::mem::size_of::<Conn>());
}

#[test]
fn short_sends_lose_and_repeat_nothing() {
    let mut c = conn();
    c.on_data(&GET.repeat(3), 0);
    assert_eq!(ops(&mut c), [Op::Send, Op::Recv]);
    let whole = unsent(&c);
    assert_eq!(ops(&mut c), [], "one send at a time");
    let mut seen = complete_send(&mut c, 10);
    c.on_data(GET, 0);
    while ops(&mut c).contains(&Op::Send) {
        seen.extend(complete_send(&mut c, 7));
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
    ops(&mut c);
    let first = slices(&c);
    c.on_data(GET, 0);
    assert_eq!(slices(&c), first, "the buffer in flight is untouched");
    complete_send(&mut c, usize::MAX);
    ops(&mut c);
    assert_ne!(
        slices(&c)[0].0,
        first[0].0,
        "the second response went to the other buffer"
    );
}

#[test]
fn connection_close_drains_then_shuts_down_then_lingers() {
    let mut c = conn();
    ops(&mut c);
    c.on_data(b"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", 0);
    assert_eq!(c.phase(), Phase::Draining);
    assert_eq!(ops(&mut c), [Op::Send]);
    complete_send(&mut c, usize::MAX);
    assert_eq!(ops(&mut c), [Op::Shutdown]);
    assert!(matches!(c.phase(), Phase::Lingering { .. }));
    assert_eq!(c.on_data(GET, 0), 0, "input after close is discarded");
    c.on_tick(LINGER_TICKS, TIMEOUTS);
    assert!(
        matches!(c.phase(), Phase::Lingering { .. }),
        "the tick it began in does not count"
    );
    c.on_tick(LINGER_TICKS + 1, TIMEOUTS);
    assert_eq!(c.phase(), Phase::Closing);
}

/// The event loop carries a shutdown out at once (a syscall, not a submission) and reports
/// it completed: the connection lingers with its recv still armed, and the peer's EOF
/// closes it with nothing left in flight.
#[test]
fn a_shutdown_done_at_once_lingers_until_the_peers_eof() {
    let mut c = conn();
    assert_eq!(ops(&mut c), [Op::Recv]);
    c.completed(Kind::Recv, true);
    c.on_data(b"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", 0);
    assert_eq!(ops(&mut c), [Op::Send]);
    complete_send(&mut c, usize::MAX);
    assert_eq!(c.next_op(), Some(Op::Shutdown));
    c.submitted(Op::Shutdown, 0);
    c.completed(Kind::Shutdown, false);
    assert!(matches!(c.phase(), Phase::Lingering { .. }));
    assert_eq!(c.in_flight(), 1, "only the armed recv");
    assert_eq!(ops(&mut c), [], "nothing more until the peer closes");
    c.completed(Kind::Recv, false);
    c.on_recv(0, None, 0);
    assert_eq!(ops(&mut c), [Op::Close]);
}

#[test]
fn eof_closes_after_pending_output() {
    let mut c = conn();
    c.on_data(GET, 0);
    c.on_eof();
    assert_eq!(c.phase(), Phase::Draining);
    flush(&mut c);
    assert_eq!(c.phase(), Phase::Closing, "no linger once the peer has closed");
    let mut idle = conn();
    idle.on_eof();
    assert_eq!(idle.phase(), Phase::Closing);
}

/// Defect 2: a pipelined burst far larger than the output limit is answered only up to
/// the limit in one go; the rest waits in the input.
#[test]
fn one_burst_renders_no_more_than_the_output_limit() {
    let mut c = conn();
    c.on_data(&GET.repeat(70_000), 0);
    let one = 150;
    assert!(c.backlog() >= OUTPUT_LIMIT, "answered up to the limit");
    assert!(
        c.backlog() < OUTPUT_LIMIT + one,
        "backlog {} over the limit",
        c.backlog()
    );
}

#[test]
fn backpressure_stops_reading_until_output_drains() {
    let mut c = conn();
    assert_eq!(ops(&mut c), [Op::Recv]);
    c.on_data(&GET.repeat(20_000), 0);
    assert_eq!(ops(&mut c), [Op::CancelRecv, Op::Send]);
    c.completed(Kind::Cancel, false);
    c.completed(Kind::Recv, false);
    let held = c.backlog();
    c.on_data(&GET.repeat(100), 0);
    assert_eq!(c.backlog(), held, "nothing new answered while paused");
    let total = flush(&mut c);
    assert_eq!(
        responses(&total),
        20_100,
        "held-back requests are answered once output drains"
    );
    assert_eq!(c.ops.recv, Stage::InFlight, "reading resumed once output drained");
}

/// Defect 4: the client sends a burst and shuts its write side while output is paused;
/// every complete request is still answered, then the connection ends.
#[test]
fn half_close_while_paused_answers_every_request() {
    let mut c = conn();
    ops(&mut c);
    c.on_data(&GET.repeat(20_000), 0);
    c.on_data(b"GET /partial", 0);
    c.on_eof();
    c.completed(Kind::Recv, false);
    assert_eq!(c.phase(), Phase::Open, "still answering");
    let total = flush(&mut c);
    assert_eq!(responses(&total), 20_000);
    assert_eq!(c.phase(), Phase::Closing);
}

#[test]
fn input_piling_up_while_paused_is_bounded() {
    let mut c = conn();
    c.on_data(&GET.repeat(20_000), 0);
    assert!(c.backlog() >= OUTPUT_LIMIT);
    c.on_data(&vec![b'a'; OUTPUT_LIMIT], 0);
    assert_eq!(c.phase(), Phase::Open, "a bounded amount is held while paused");
    c.on_data(&vec![b'a'; 2 * OUTPUT_LIMIT], 0);
    assert_eq!(c.phase(), Phase::Closing);
}

#[test]
fn timeouts_distinguish_partial_requests_from_idle() {
    let mut partial = conn();
    partial.on_data(b"GET / HT", 0);
    partial.on_tick(9, TIMEOUTS);
    assert_eq!(partial.phase(), Phase::Open);
    partial.on_tick(10, TIMEOUTS);
    assert_eq!(partial.phase(), Phase::Closing);

    let mut idle = conn();
    idle.on_data(GET, 0);
    flush(&mut idle);
    idle.on_tick(59, TIMEOUTS);
    assert_eq!(idle.phase(), Phase::Open);
    idle.on_tick(60, TIMEOUTS);
    assert_eq!(idle.phase(), Phase::Closing);
}

/// Defect 1: a client that stops reading leaves a send the kernel cannot complete. The
/// request timeout closes the connection anyway: one cancel for everything on the socket,
/// then the close once the send and the recv have completed, without waiting on the peer.
#[test]
fn a_stuck_send_is_cancelled_and_the_connection_closed() {
    let mut c = conn();
    ops(&mut c);
    c.on_data(&GET.repeat(50_000), 0);
    assert_eq!(ops(&mut c), [Op::CancelRecv, Op::Send]);
    c.completed(Kind::Cancel, false);
    c.completed(Kind::Recv, false);
    c.on_tick(TIMEOUTS.request - 1, TIMEOUTS);
    assert_eq!(c.phase(), Phase::Open);
    c.on_tick(TIMEOUTS.request, TIMEOUTS);
    assert_eq!(
        c.phase(),
        Phase::Closing,
        "no progress: the request timeout applies"
    );
    assert_eq!(ops(&mut c), [Op::CancelAll]);
    c.completed(Kind::Cancel, false);
    assert_eq!(ops(&mut c), [], "the send has not completed yet");
    c.completed(Kind::Send, false);
    c.on_sent(0, 0);
    assert_eq!(ops(&mut c), [Op::Close]);
    assert_eq!(c.in_flight(), 1);
}

/// A cancel-all that an operation slipped past is repeated on the next tick, never in a
/// loop within one.
#[test]
fn a_cancel_all_is_repeated_once_a_tick_while_operations_remain() {
    let mut c = conn();
    ops(&mut c);
    c.fail();
    assert_eq!(ops(&mut c), [Op::CancelAll]);
    c.completed(Kind::Cancel, false);
    assert_eq!(ops(&mut c), [], "the recv is still in flight");
    c.on_tick(1, TIMEOUTS);
    assert_eq!(ops(&mut c), [Op::CancelAll]);
    c.completed(Kind::Cancel, false);
    c.completed(Kind::Recv, false);
    assert_eq!(ops(&mut c), [Op::Close]);
}

#[test]
fn shutdown_closes_idle_now_and_busy_after_the_request() {
    let mut idle = conn();
    idle.begin_shutdown();
    assert_eq!(idle.phase(), Phase::Closing);
    assert_eq!(ops(&mut idle), [Op::Close]);

    let mut busy = conn();
    busy.on_data(
        b"POST /payload HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\n\r\nab",
        0,
    );
    busy.begin_shutdown();
    assert_eq!(busy.phase(), Phase::Open);
    busy.on_data(b"cd", 1);
    assert_eq!(busy.phase(), Phase::Draining);
    assert!(flush(&mut busy).ends_with(b"abcd"));
}

#[test]
fn only_a_keep_alive_answer_is_a_quiet_send() {
    let mut c = conn();
    ops(&mut c);
    c.on_data(GET, 0);
    ops(&mut c);
    assert!(
        c.quiet_after_send(),
        "keep-alive: the next request is all that can follow"
    );
    let mut closing = conn();
    closing.on_data(b"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", 0);
    ops(&mut closing);
    assert!(
        !closing.quiet_after_send(),
        "its completion leads to the shutdown"
    );
}

#[test]
fn received_bytes_are_answered_in_place_and_only_the_rest_is_kept() {
    let body = vec![b'x'; 70_000];
    let post = post(&body);
    let mut whole = post.clone();
    whole.extend_from_slice(GET);
    whole.extend_from_slice(&GET[..10]);

    let mut c = conn();
    ops(&mut c);
    assert_eq!(c.on_data(&whole, 1), 2, "both complete requests answered");
    assert_eq!(
        c.input.bytes(),
        &GET[..10],
        "only the partial request is buffered"
    );
    assert_eq!(c.on_data(&GET[10..], 1), 1);
    assert!(c.input.is_empty());
    let answers = flush(&mut c);

    let mut split = conn();
    ops(&mut split);
    let mut answered = 0;
    for piece in whole.chunks(4096).chain([&GET[10..]]) {
        answered += split.on_data(piece, 1);
    }
    assert_eq!(answered, 3);
    let split_answers = flush(&mut split);
    assert_eq!(responses(&answers), 3);
    assert_eq!(
        without_dates(&answers),
        without_dates(&split_answers),
        "the same answers whatever the split"
    );
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

#[test]
fn a_large_body_still_to_come_is_received_straight_into_the_input() {
    let body = vec![b'y'; 200_000];
    let post = post(&body);
    let head_and_some = post.len() - body.len() + 10_000;

    let mut c = conn();
    assert_eq!(ops(&mut c), [Op::Recv], "a multishot recv into the buffer ring");
    assert_eq!(c.on_data(&post[..head_and_some], 1), 0);
    assert_eq!(
        ops(&mut c),
        [Op::CancelRecv],
        "the rest of the body bypasses the ring"
    );
    cancel_recv(&mut c, 1);
    assert_eq!(ops(&mut c), [Op::RecvInto]);

    // The kernel fills each lent room; the room grows with what has arrived.
    let mut rest = &post[head_and_some..];
    let mut rooms = Vec::new();
    let mut answered = 0;
    let mut submitted = Vec::new();
    while !rest.is_empty() {
        let room = c.recv_room();
        rooms.push(room.len());
        let n = room.len().min(rest.len());
        room[..n].copy_from_slice(&rest[..n]);
        rest = &rest[n..];
        c.completed(Kind::Recv, false);
        answered += c.on_recv(n as i32, None, 2);
        submitted = ops(&mut c);
    }
    assert_eq!(answered, 1, "the echo is rendered");
    assert!(rooms[0] < 200_000 && rooms.len() <= 3, "rooms grow: {rooms:?}");
    assert!(c.input.is_empty());
    let received = c
        .unsent()
        .nth(1)
        .expect("the head, then the body in the same send");
    assert_eq!(received, &body[..], "sent from where it was received");
    let answer = flush_one(&mut c);
    assert!(answer.starts_with(b"HTTP/1.1 200 OK") && answer.ends_with(&body));
    assert_eq!(answer.len(), head_len(&answer) + body.len());
    assert_eq!(
        submitted,
        [Op::Send, Op::RecvInto],
        "a connection that sent a large body keeps receiving into its input"
    );
    assert!(c.recv_room().len() >= DIRECT_BODY_MIN);

    c.on_tick(3, TIMEOUTS);
    assert_eq!(
        ops(&mut c),
        [Op::CancelRecv],
        "silent for a tick: back to the ring"
    );
    cancel_recv(&mut c, 3);
    assert_eq!(ops(&mut c), [Op::Recv]);
    c.on_tick(4, TIMEOUTS);
    assert_eq!(c.input.allocated(), 0, "the large input buffer is freed");
}

#[test]
fn a_large_chunked_body_is_received_straight_into_the_input_once_it_has_grown() {
    let mut c = conn();
    assert_eq!(ops(&mut c), [Op::Recv]);
    let mut request = b"POST /payload HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    let chunks = DIRECT_BODY_MIN / 512 + 1;
    for chunk in 0..chunks {
        request.extend_from_slice(b"200\r\n");
        request.extend_from_slice(&[b'a' + (chunk % 26) as u8; 512]);
        request.extend_from_slice(b"\r\n");
    }
    let (head, rest) = request.split_at(1000);
    c.on_data(head, 1);
    assert_eq!(ops(&mut c), [], "small so far: the ring's recv stays");
    assert_eq!(c.on_data(rest, 1), 0, "the body is not finished");
    assert_eq!(
        ops(&mut c),
        [Op::CancelRecv],
        "grown past the threshold: switch to plain recvs"
    );

    // The last chunk arrives by a plain recv: the body, decoded where it was received,
    // goes out from there, after its head, in the same send.
    cancel_recv(&mut c, 1);
    assert_eq!(ops(&mut c), [Op::RecvInto]);
    let input = c.input.bytes().as_ptr_range();
    let room = c.recv_room();
    let received = input.start..room.as_ptr_range().end;
    room[..5].copy_from_slice(b"0\r\n\r\n");
    c.completed(Kind::Recv, false);
    assert_eq!(c.on_recv(5, None, 2), 1, "the echo is rendered");
    ops(&mut c);
    let body: Vec<u8> = (0..chunks)
        .flat_map(|chunk| [b'a' + (chunk % 26) as u8; 512])
        .collect();
    let sent = c.unsent().nth(1).expect("the head, then the body");
    assert_eq!(sent, &body[..]);
    assert!(
        received.contains(&sent.as_ptr()),
        "sent from where it was received, not copied"
    );
    let answer = flush_one(&mut c);
    assert_eq!(answer.len(), head_len(&answer) + body.len());
}

#[test]
fn a_head_alone_does_not_make_the_server_allocate_its_body() {
    let mut c = conn();
    ops(&mut c);
    let head = format!(
        "POST /payload HTTP/1.1\r\nHost: t\r\nContent-Length: {}\r\n\r\n",
        1 << 20
    );
    c.on_data(head.as_bytes(), 1);
    cancel_recv(&mut c, 1);
    assert!(ops(&mut c).contains(&Op::RecvInto));
    assert!(
        c.input.allocated() < 256 << 10,
        "{} bytes for a head",
        c.input.allocated()
    );
}

#[test]
fn a_large_static_body_is_sent_from_the_shared_pattern_between_the_heads() {
    let get = |n: usize| format!("GET /bytes/{n} HTTP/1.1\r\nHost: t\r\n\r\n").into_bytes();
    let batch = [get(65536), GET.to_vec(), get(20000)].concat();
    let mut rendered = Vec::new();
    Codec::new(Limits::default()).serve(&batch, &mut rendered);

    let mut c = conn();
    ops(&mut c);
    assert_eq!(c.on_data(&batch, 0), 3);
    assert_eq!(ops(&mut c), [Op::Send]);
    let pattern = http_core::routes::pattern(65536).unwrap();
    let sending = slices(&c);
    assert_eq!(sending.len(), 4, "heads and bodies gathered in one send");
    let statics: Vec<_> = [sending[1], sending[3]].into();
    assert_eq!(
        statics,
        [(pattern.as_ptr(), 65536), (pattern.as_ptr(), 20000)],
        "the bodies go out from the shared buffer, not a copy"
    );
    assert!(c.quiet_after_send() && !c.more_follows(), "nothing follows");
    let first_head = sending[0].1;
    let mut sent = complete_send(&mut c, first_head + 1000);
    ops(&mut c);
    assert_eq!(
        slices(&c)[0],
        (pattern[1000..].as_ptr(), 65536 - 1000),
        "a short send resumes in place"
    );
    sent.extend(flush(&mut c));
    assert_eq!(without_dates(&sent), without_dates(&rendered));
    assert_eq!(c.backlog(), 0);
}

#[test]
fn only_the_send_holding_the_last_segment_of_a_keep_alive_answer_is_quiet() {
    let mut c = conn();
    ops(&mut c);
    let get = b"GET /bytes/5000 HTTP/1.1\r\nHost: t\r\n\r\n";
    c.on_data(&get.repeat(5), 0);
    ops(&mut c);
    assert_eq!(
        c.unsent().count(),
        MAX_SLICES,
        "five heads and bodies: ten slices"
    );
    assert!(!c.quiet_after_send(), "two slices follow");
    assert!(c.more_follows(), "sent with MSG_MORE");
    complete_send(&mut c, usize::MAX);
    ops(&mut c);
    assert_eq!(c.unsent().count(), 2);
    assert!(c.quiet_after_send(), "the last: only the next request can follow");
    assert!(!c.more_follows(), "the last is pushed out");
}

#[test]
fn only_a_large_static_body_is_worth_a_zero_copy_send() {
    let sends = |zero_copy: bool| {
        let mut c = conn();
        if zero_copy {
            c.send_zero_copy();
        }
        ops(&mut c);
        c.on_data(
            b"GET /bytes/16383 HTTP/1.1\r\nHost: t\r\n\r\nGET /bytes/70000 HTTP/1.1\r\nHost: t\r\n\r\n",
            0,
        );
        let mut sends = Vec::new();
        while ops(&mut c).contains(&Op::Send) || !c.ops.send.is_idle() {
            let bodies: Vec<usize> = c.unsent().map(<[u8]>::len).filter(|&len| len >= 200).collect();
            let worthy = c.zero_copy_worthy();
            sends.push((c.unsent().count(), bodies, worthy));
            complete_send(&mut c, if worthy { 60_000 } else { usize::MAX });
        }
        sends
    };
    assert_eq!(
        sends(true),
        [
            (3, vec![16383], false),
            (1, vec![70000], true),
            (1, vec![10000], false)
        ],
        "a head, its body below the threshold and the next head; the large body alone; \
         a short rest, copied"
    );
    assert_eq!(
        sends(false),
        [(4, vec![16383, 70000], false)],
        "without zero copy: everything in one send"
    );
}

#[test]
fn a_zero_copy_send_ends_with_its_result_and_a_refused_one_goes_again_plainly() {
    let mut c = conn();
    ops(&mut c);
    c.send_zero_copy();
    c.on_data(
        b"GET /bytes/65536 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
        0,
    );
    ops(&mut c);
    complete_send(&mut c, usize::MAX);
    assert_eq!(ops(&mut c), [Op::Send]);
    assert!(c.zero_copy_worthy());
    // Refused for locked memory: nothing left, the same bytes go again, plainly.
    c.completed(Kind::Send, true);
    c.send_refused();
    assert_eq!(ops(&mut c), [Op::Send]);
    assert!(!c.zero_copy_worthy());
    assert_eq!(slices(&c).len(), 1);
    assert_eq!(c.unsent_len(), 65536, "the whole body, again");
    // The result (with MORE: a notification follows) ends the send; the shutdown does not
    // wait for the notification, which a peer that stops reading may hold back forever.
    c.completed(Kind::Send, true);
    c.on_sent(65536, 0);
    assert_eq!(ops(&mut c), [Op::Shutdown]);
}

#[test]
fn a_plain_send_refused_twice_fails_the_connection() {
    let mut c = conn();
    ops(&mut c);
    c.on_data(GET, 0);
    assert_eq!(ops(&mut c), [Op::Send]);
    c.completed(Kind::Send, false);
    c.send_refused();
    assert_eq!(ops(&mut c), [Op::Send], "once: it may have been a zero-copy send");
    c.completed(Kind::Send, false);
    c.send_refused();
    assert_eq!(c.phase(), Phase::Closing);
}

#[test]
fn an_echo_split_over_the_ring_is_sent_from_the_input_with_its_head_and_leaves_no_buffer() {
    let body: Vec<u8> = (0..40_000).map(|i| (i % 251) as u8).collect();
    let post = post(&body);
    let mut c = conn();
    assert_eq!(ops(&mut c), [Op::Recv]);
    let (first, second) = post.split_at(post.len() / 2);
    assert_eq!(c.on_data(first, 1), 0);
    assert_eq!(c.on_data(second, 1), 1, "the echo is rendered");
    assert_eq!(ops(&mut c), [Op::Send]);
    assert_eq!(
        c.unsent().count(),
        2,
        "the head, and the body where it was received"
    );
    let answer = flush_one(&mut c);
    assert!(answer.ends_with(&body) && answer.len() == head_len(&answer) + body.len());
    assert_eq!(ops(&mut c), []);
    assert_eq!(c.allocated(), 0, "nothing is held for the next request");
}

/// Completes the send in flight whole; returns its bytes.
fn flush_one(conn: &mut Conn) -> Vec<u8> {
    complete_send(conn, usize::MAX)
}

/// The length of the head at the start of a response.
fn head_len(response: &[u8]) -> usize {
    response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head")
        + 4
}

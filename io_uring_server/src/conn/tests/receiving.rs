//! The receive side: requests answered where they arrive, partial ones kept, large bodies
//! received straight into the input, echoes sent from where they were received.

use super::*;

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
fn input_piling_up_while_paused_is_bounded() {
    let mut c = conn();
    c.on_data(&GET.repeat(20_000), 0);
    assert!(c.backlog() >= OUTPUT_LIMIT);
    // What a recv had posted before its cancel: kept, up to a bound (the cap grown by
    // the larger of itself and the ring).
    c.on_data(&vec![b'a'; c.input_cap], 0);
    assert_eq!(c.phase(), Phase::Open, "a bounded amount is held while paused");
    c.on_data(&vec![b'a'; 3 * c.input_cap], 0);
    assert_eq!(c.phase(), Phase::Closing);
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

/// An honest client pipelines an upload behind answers backed up to the output limit,
/// with a large buffer ring (`--buf-count 4096` of 8 KiB: 32 MiB). All the ring can have
/// handed the recv before the hold's cancel reached the kernel is kept, far more than
/// four times the input cap; a ring's worth more is not.
#[test]
fn while_reading_is_held_the_input_may_grow_by_what_the_ring_can_post() {
    let ring_bytes = 4096 * (8 << 10);
    let receiving = Receiving::Ring {
        group: 0,
        large_bodies_plain: true,
        ring_bytes,
        bulk_recv: BulkRecv::Multishot,
    };
    let mut c = Conn::new(7, false, receiving, Codec::new(Limits::default()), 0);
    c.on_data(&GET.repeat(20_000), 0);
    assert!(c.reading_held(), "answers backed up");
    let head = format!("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: {ring_bytes}\r\n\r\n");
    let mut upload = head.into_bytes();
    upload.resize(ring_bytes, b'u');
    for posted in upload.chunks(8 << 10) {
        c.on_data(posted, 0);
    }
    assert!(c.input.len() > 4 * c.input_cap);
    assert_eq!(c.phase(), Phase::Open, "not cut off");
    c.on_data(&vec![b'u'; c.input_cap], 0);
    assert_eq!(c.phase(), Phase::Closing, "more than the ring can post");
}

//! The send side: one send at a time, short sends, the two output buffers, gathered and
//! zero-copy sends, backpressure.

use super::*;

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

/// The output and the iovecs a gathered send names are re-pointed only when a send is
/// submitted; a second submission before the first send's completion is a wrong call
/// order that would change them under the kernel, and stops the process.
#[test]
#[should_panic(expected = "output re-pointed while a send is in flight")]
fn a_second_send_before_the_first_completes_panics() {
    let mut c = conn();
    ops(&mut c);
    c.on_data(b"GET /bytes/5000 HTTP/1.1\r\nHost: t\r\n\r\n", 0);
    assert_eq!(ops(&mut c), [Op::Send]);
    assert!(c.gathered().is_some(), "a head and its body: a gathered send");
    c.on_data(GET, 0);
    c.submitted(Op::Send, 0);
}

/// `on_sent` may free the output and the iovecs of the send; reporting its bytes before
/// its completion (`completed`) is a wrong call order, and stops the process.
#[test]
#[should_panic(expected = "a send's bytes reported before its completion")]
fn a_sends_bytes_reported_before_its_completion_panic() {
    let mut c = conn();
    ops(&mut c);
    c.on_data(GET, 0);
    assert_eq!(ops(&mut c), [Op::Send]);
    c.on_sent(c.unsent_len(), 0);
}

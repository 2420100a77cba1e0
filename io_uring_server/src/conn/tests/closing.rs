//! How a connection ends: `Connection: close`, EOF, timeouts, cancellation, shutdown.

use super::*;
use crate::conn::closing::LINGER_TICKS;

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

/// An upload is consumed as it arrives, so its connection holds none of it: it is busy
/// all the same (the request timeout applies, a shutdown waits for its answer).
#[test]
fn an_upload_half_read_keeps_the_connection_busy_though_nothing_is_held() {
    let body = vec![b'u'; 100_000];
    let mut head = b"POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\n".to_vec();
    head.extend_from_slice(&body[..60_000]);
    let mut slow = conn();
    slow.on_data(&head, 0);
    assert!(slow.allocated() < 4096, "holds {} bytes", slow.allocated());
    slow.on_tick(TIMEOUTS.request, TIMEOUTS);
    assert_eq!(
        slow.phase(),
        Phase::Closing,
        "the request timeout, not the idle one"
    );

    let mut busy = conn();
    busy.on_data(&head, 0);
    busy.begin_shutdown();
    assert_eq!(busy.phase(), Phase::Open);
    busy.on_data(&body[60_000..], 1);
    assert_eq!(busy.phase(), Phase::Draining);
    let receipt = http_core::routes::upload_receipt(100_000, crc32c::crc32c(&body));
    assert!(flush(&mut busy).ends_with(&receipt));
}

//! Answering `/files/{name}`: the transfer's operations in order, the answer in its place
//! among pipelined ones, and an ending connection waiting for the file operation.

use std::os::fd::IntoRawFd;

use super::*;
use crate::files::fd::FilesRoot;
use crate::files::spare::FileSpare;
use crate::files::transfer::FileOp;

/// A root whose files are made blocking after the stat (an fcntl on the played descriptor).
pub(super) const ROOT: FilesRoot = FilesRoot {
    fd: 3,
    mount: 0,
    nowait_reads: false,
};

const FILE_THEN_GET: &[u8] = b"GET /files/a HTTP/1.1\r\nHost: t\r\n\r\nGET / HTTP/1.1\r\nHost: t\r\n\r\n";

/// A descriptor for a played OPENAT2 result (the transfer owns and closes it).
fn some_fd() -> i32 {
    std::fs::File::open("/dev/null").unwrap().into_raw_fd()
}

fn complete_file(conn: &mut Conn, result: i32) {
    conn.completed(Kind::File, false);
    conn.on_file(result, 0);
}

#[test]
fn a_file_is_answered_before_the_requests_after_it() {
    let mut conn = conn();
    conn.serve_files_from(ROOT, false);
    conn.on_data(FILE_THEN_GET, 0);
    assert_eq!(
        ops(&mut conn),
        [Op::File(FileOp::Open), Op::Recv],
        "nothing to send yet"
    );
    complete_file(&mut conn, some_fd());
    assert_eq!(ops(&mut conn), [Op::File(FileOp::Stat)]);
    let (_, statx) = conn.file_transfer().stat_args();
    (statx.stx_mode, statx.stx_size) = (libc::S_IFREG as u16, 3);
    complete_file(&mut conn, 0);
    assert_eq!(
        ops(&mut conn),
        [Op::File(FileOp::Read), Op::Send],
        "the head leaves at once"
    );
    let (_, room, offset) = conn.file_transfer().read_args();
    assert_eq!((room.len(), offset), (3, 0));
    room.copy_from_slice(b"abc");
    complete_file(&mut conn, 3);
    assert!(conn.file.is_none(), "the descriptor closes with the transfer");
    let out = flush(&mut conn);
    assert_eq!(responses(&out), 2);
    let first = head_len(&out);
    assert!(out[..first].ends_with(b"Content-Length: 3\r\n\r\n"));
    assert_eq!(&out[first..first + 3], b"abc");
    assert!(
        out[first + 3..].starts_with(b"HTTP/1.1 200 OK"),
        "then the pipelined GET"
    );
}

#[test]
fn the_read_buffer_and_scratch_are_kept_for_the_next_file_until_the_connection_falls_silent() {
    let mut conn = conn();
    conn.serve_files_from(ROOT, false);
    conn.on_data(b"GET /files/a HTTP/1.1\r\nHost: t\r\n\r\n", 0);
    ops(&mut conn);
    complete_file(&mut conn, some_fd());
    ops(&mut conn);
    let (_, statx) = conn.file_transfer().stat_args();
    (statx.stx_mode, statx.stx_size) = (libc::S_IFREG as u16, 3);
    complete_file(&mut conn, 0);
    ops(&mut conn);
    complete_file(&mut conn, 3);
    flush(&mut conn);
    assert!(conn.file_spare.allocated() >= 3, "kept for the next file");
    let scratch = conn.file_scratch.as_deref().map(std::ptr::from_ref);
    assert!(scratch.is_some(), "the name and statx kept for the next file");
    conn.on_data(b"GET /files/b HTTP/1.1\r\nHost: t\r\n\r\n", 1);
    ops(&mut conn);
    let (_, name) = conn.file_transfer().open_args();
    assert_eq!(name.to_bytes_with_nul(), b"b\0");
    complete_file(&mut conn, -libc::ENOENT);
    flush(&mut conn);
    let again = conn.file_scratch.as_deref().map(std::ptr::from_ref);
    assert_eq!(again, scratch, "the same scratch served the second file");
    conn.on_tick(2, TIMEOUTS);
    assert_eq!(conn.file_spare.allocated(), 0, "given up once silent");
    assert!(conn.file_scratch.is_none(), "the scratch too");
    assert_eq!(conn.allocated(), 0, "an idle connection holds no buffer");
}

#[test]
fn without_a_root_every_file_is_404_at_once() {
    let mut conn = conn();
    conn.on_data(FILE_THEN_GET, 0);
    let out = flush(&mut conn);
    assert_eq!(responses(&out), 2);
    assert!(out.starts_with(b"HTTP/1.1 404 Not Found"));
    assert!(conn.file.is_none());
}

#[test]
fn an_ending_connection_waits_for_its_file_operation_before_closing() {
    let mut conn = conn();
    conn.serve_files_from(ROOT, false);
    conn.on_data(FILE_THEN_GET, 0);
    ops(&mut conn);
    conn.fail();
    assert_eq!(ops(&mut conn), [Op::CancelFile, Op::CancelAll]);
    conn.completed(Kind::Cancel, false);
    conn.completed(Kind::FileCancel, false);
    cancel_recv(&mut conn, 0);
    assert_eq!(ops(&mut conn), [], "no close while the open may still write");
    // The open had already run: its descriptor is owned, to close with the slot.
    complete_file(&mut conn, some_fd());
    assert_eq!(ops(&mut conn), [Op::Close]);
    assert!(
        conn.file.is_none() && conn.backlog() == 0,
        "the transfer (and its descriptor) is dropped at the completion, nothing rendered"
    );
}

#[test]
fn a_stat_completing_while_ending_starts_no_read() {
    let mut conn = conn();
    conn.serve_files_from(ROOT, false);
    conn.on_data(FILE_THEN_GET, 0);
    ops(&mut conn);
    complete_file(&mut conn, some_fd());
    assert_eq!(ops(&mut conn), [Op::File(FileOp::Stat)]);
    conn.fail();
    assert_eq!(ops(&mut conn), [Op::CancelFile, Op::CancelAll]);
    conn.completed(Kind::Cancel, false);
    conn.completed(Kind::FileCancel, false);
    cancel_recv(&mut conn, 0);
    let (_, statx) = conn.file_transfer().stat_args();
    (statx.stx_mode, statx.stx_size) = (libc::S_IFREG as u16, 10 << 20);
    complete_file(&mut conn, 0);
    assert!(conn.file.is_none(), "no read buffer, no streaming");
    assert_eq!(ops(&mut conn), [Op::Close]);
    assert_eq!(conn.backlog(), 0, "no head rendered while ending");
}

/// A connection receiving by plain recvs, `request` received, a plain recv in flight
/// again (lent the input) while the file is opened.
fn plain_conn_with(request: &[u8]) -> Conn {
    let receiving = Receiving::Plain { size: 4096 };
    let mut conn = Conn::new(7, false, receiving, Codec::new(Limits::default()), 0);
    conn.serve_files_from(ROOT, false);
    assert_eq!(ops(&mut conn), [Op::RecvInto]);
    receive_plain(&mut conn, request);
    assert_eq!(ops(&mut conn), [Op::File(FileOp::Open), Op::RecvInto]);
    assert!(conn.input.is_lent());
    conn
}

/// A plain recv completes, having written `bytes` into the room it was lent.
fn receive_plain(conn: &mut Conn, bytes: &[u8]) {
    conn.recv_room()[..bytes.len()].copy_from_slice(bytes);
    conn.completed(Kind::Recv, false);
    conn.on_recv(bytes.len() as i32, None, 0);
}

/// The last answer went out while a plain recv wrote the input: that recv's completion
/// discards what it wrote and what was buffered, and the connection drains and lingers.
fn ends_after_its_answer(mut conn: Conn, status: &[u8]) {
    assert_eq!(conn.phase(), Phase::Draining);
    assert_eq!(ops(&mut conn), [Op::Send]);
    receive_plain(&mut conn, GET);
    assert!(conn.input.is_empty(), "input after the last answer is dropped");
    let out = flush(&mut conn);
    assert_eq!(responses(&out), 1, "the pipelined GET is not answered");
    assert!(out.starts_with(status));
    assert!(matches!(conn.phase(), Phase::Lingering { .. }));
}

const CLOSING_FILE_THEN_GET: &[u8] =
    b"GET /files/a HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\nGET / HTTP/1.1\r\nHost: t\r\n\r\n";

#[test]
fn a_file_with_connection_close_ends_while_a_plain_recv_is_in_flight() {
    let mut conn = plain_conn_with(CLOSING_FILE_THEN_GET);
    complete_file(&mut conn, some_fd());
    ops(&mut conn);
    let (_, statx) = conn.file_transfer().stat_args();
    (statx.stx_mode, statx.stx_size) = (libc::S_IFREG as u16, 0);
    complete_file(&mut conn, 0);
    assert!(conn.file.is_none());
    ends_after_its_answer(conn, b"HTTP/1.1 200 OK");
}

#[test]
fn a_file_failing_with_500_ends_while_a_plain_recv_is_in_flight() {
    let mut conn = plain_conn_with(FILE_THEN_GET);
    complete_file(&mut conn, -libc::EACCES);
    ends_after_its_answer(conn, b"HTTP/1.1 500");
}

#[test]
fn a_file_cut_short_ends_the_connection_after_what_was_sent() {
    let mut conn = conn();
    conn.serve_files_from(ROOT, false);
    conn.on_data(FILE_THEN_GET, 0);
    ops(&mut conn);
    complete_file(&mut conn, some_fd());
    ops(&mut conn);
    let (_, statx) = conn.file_transfer().stat_args();
    (statx.stx_mode, statx.stx_size) = (libc::S_IFREG as u16, 10);
    complete_file(&mut conn, 0);
    ops(&mut conn);
    complete_file(&mut conn, 0);
    assert_eq!(conn.phase(), Phase::Draining, "the pipelined GET is not answered");
    let out = flush(&mut conn);
    assert_eq!(responses(&out), 1);
    assert!(
        matches!(conn.phase(), Phase::Lingering { .. }),
        "sent, then shut down"
    );
}

#[test]
fn requests_after_a_file_are_answered_though_a_plain_recv_held_the_input() {
    let mut conn = plain_conn_with(FILE_THEN_GET);
    complete_file(&mut conn, some_fd());
    ops(&mut conn);
    let (_, statx) = conn.file_transfer().stat_args();
    (statx.stx_mode, statx.stx_size) = (libc::S_IFREG as u16, 0);
    complete_file(&mut conn, 0);
    assert!(conn.file.is_none() && conn.input.is_lent());
    assert_eq!(
        ops(&mut conn),
        [Op::CancelRecv, Op::Send],
        "the recv holding the pipelined GET is cancelled"
    );
    conn.completed(Kind::Cancel, false);
    conn.completed(Kind::Recv, false);
    assert_eq!(conn.on_recv(-libc::ECANCELED, None, 0), 1, "the GET answered");
    let out = flush(&mut conn);
    assert_eq!(responses(&out), 2, "the file's answer, then the pipelined GET's");
    assert!(conn.input.is_lent(), "then a plain recv reads again");
}

/// Serves `GET /files/a` of `len` bytes, read whole, and sends the answer.
fn serve_file_of(conn: &mut Conn, len: usize) -> Vec<u8> {
    conn.on_data(b"GET /files/a HTTP/1.1\r\nHost: t\r\n\r\n", 0);
    ops(conn);
    complete_file(conn, some_fd());
    ops(conn);
    let (_, statx) = conn.file_transfer().stat_args();
    (statx.stx_mode, statx.stx_size) = (libc::S_IFREG as u16, len as u64);
    complete_file(conn, 0);
    ops(conn);
    let (_, room, _) = conn.file_transfer().read_args();
    room.fill(b'x');
    let at = room.as_ptr() as usize;
    complete_file(conn, len as i32);
    assert!(conn.file.is_none());
    let out = flush(conn);
    assert_eq!(out.len(), head_len(&out) + len);
    assert!(matches!(&conn.file_spare, FileSpare::Here(b) if b.as_ptr() as usize == at));
    out
}

#[test]
fn the_read_buffer_is_kept_for_the_next_file() {
    let mut conn = conn();
    conn.serve_files_from(ROOT, false);
    // Sent from the buffer it was read into (lent to the output, then handed back), and
    // copied (too small to lend): either way the next file reads into the same buffer.
    serve_file_of(&mut conn, 40_000);
    serve_file_of(&mut conn, 30_000);
    serve_file_of(&mut conn, 100);
}

/// An upload sent right behind a file request waits in the input while the file is
/// answered: once a read's worth is there, receiving stops (rather than the input cap
/// ending the connection), and resumes once the file is done and the upload consumed.
#[test]
fn an_upload_behind_a_file_holds_reading_until_the_file_is_answered() {
    let mut conn = conn();
    conn.serve_files_from(ROOT, false);
    let mut input = b"GET /files/a HTTP/1.1\r\nHost: t\r\n\r\n".to_vec();
    input.extend_from_slice(b"POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 1000000\r\n\r\n");
    input.extend_from_slice(&[b'u'; DIRECT_BODY_MIN]);
    conn.on_data(&input, 0);
    assert_eq!(ops(&mut conn), [Op::File(FileOp::Open)], "no recv");
    complete_file(&mut conn, some_fd());
    ops(&mut conn);
    let (_, statx) = conn.file_transfer().stat_args();
    (statx.stx_mode, statx.stx_size) = (libc::S_IFREG as u16, 3);
    complete_file(&mut conn, 0);
    assert_eq!(ops(&mut conn), [Op::File(FileOp::Read), Op::Send]);
    let (_, room, _) = conn.file_transfer().read_args();
    room.copy_from_slice(b"abc");
    complete_file(&mut conn, 3);
    assert!(conn.file.is_none());
    assert!(
        conn.codec.mid_request(),
        "the upload's head and body so far are consumed"
    );
    let after = ops(&mut conn);
    let receiving = after.iter().any(|op| matches!(op, Op::Recv | Op::RecvInto));
    assert!(receiving, "receiving again: {after:?}");
    assert_eq!(conn.phase(), Phase::Open);
}

/// Completions a multishot recv had already posted when the hold began keep coming in the
/// same batch: their bytes are kept, however far past the input cap, and the connection
/// is not cut off; the upload is answered once the file is.
#[test]
fn bytes_already_received_when_reading_is_held_are_kept_past_the_input_cap() {
    let mut conn = conn();
    conn.serve_files_from(ROOT, false);
    let body = conn.input_cap;
    let mut input = b"GET /files/a HTTP/1.1\r\nHost: t\r\n\r\n".to_vec();
    input.extend_from_slice(
        format!("POST /payload HTTP/1.1\r\nHost: t\r\nContent-Length: {body}\r\n\r\n").as_bytes(),
    );
    input.extend_from_slice(&[b'u'; DIRECT_BODY_MIN]);
    conn.on_data(&input, 0);
    assert!(conn.reading_held(), "a read's worth waits behind the file");
    // The rest of the batch: completions posted before the cancel reached the kernel.
    let chunk = vec![b'u'; 64 << 10];
    for _ in 0..body.div_ceil(chunk.len()) + 2 {
        conn.on_data(&chunk, 0);
    }
    assert!(conn.input.len() > conn.input_cap);
    assert_eq!(conn.phase(), Phase::Open, "not cut off");
}

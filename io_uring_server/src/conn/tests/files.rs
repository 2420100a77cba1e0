//! Answering `/files/{name}`: the transfer's operations in order, the answer in its place
//! among pipelined ones, and an ending connection waiting for the file operation.

use std::os::fd::IntoRawFd;

use super::*;
use crate::file::FileOp;

const FILE_THEN_GET: &[u8] = b"GET /files/a HTTP/1.1\r\nHost: t\r\n\r\nGET / HTTP/1.1\r\nHost: t\r\n\r\n";

/// A descriptor for a played OPENAT result (the transfer owns and closes it).
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
    conn.serve_files_from(3);
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
    conn.serve_files_from(3);
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
        conn.file.is_some() && conn.backlog() == 0,
        "nothing rendered while ending"
    );
}

#[test]
fn a_file_cut_short_ends_the_connection_after_what_was_sent() {
    let mut conn = conn();
    conn.serve_files_from(3);
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

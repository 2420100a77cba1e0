//! A multishot recv that ends for want of a provided buffer (`ENOBUFS`): the connection
//! takes its next bytes by one plain recv into a small room of its input, then goes back
//! to the ring; over TLS it re-arms the ring at once.

use super::*;

/// Plays the kernel for one plain recv of `bytes`, which must fit the room lent.
fn plain_recv_of(c: &mut Conn, bytes: &[u8]) -> usize {
    let room = c.recv_room();
    assert!(
        bytes.len() <= room.len(),
        "{} B into a room of {}",
        bytes.len(),
        room.len()
    );
    room[..bytes.len()].copy_from_slice(bytes);
    c.completed(Kind::Recv, false);
    c.on_recv(bytes.len() as i32, None, 2)
}

/// The multishot recv in flight ends with `ENOBUFS`.
fn ring_empty(c: &mut Conn) {
    c.completed(Kind::Recv, false);
    assert_eq!(c.on_recv(-libc::ENOBUFS, None, 1), 0);
}

#[test]
fn a_starved_connection_takes_one_plain_recv_then_goes_back_to_the_ring() {
    let mut c = conn();
    assert_eq!(ops(&mut c), [Op::Recv]);
    ring_empty(&mut c);
    assert_eq!(ops(&mut c), [Op::RecvInto], "progress without the ring");
    assert_eq!(
        c.recv_room().len(),
        16 << 10,
        "a small room, whatever many starve at once"
    );
    assert_eq!(plain_recv_of(&mut c, GET), 1, "the request is answered");
    let asked = ops(&mut c);
    assert_eq!(asked, [Op::Send, Op::Recv], "back to the buffer ring");
    let n = c.unsent_len();
    let out = complete_send(&mut c, n);
    assert!(out.ends_with(b"Hello, World!"));
    assert_eq!(c.allocated(), 0, "the room is freed once its bytes are answered");
}

#[test]
fn a_request_split_across_a_starved_recv_is_answered_whole() {
    let mut c = conn();
    ops(&mut c);
    c.on_data(&GET[..10], 1);
    ring_empty(&mut c);
    assert_eq!(ops(&mut c), [Op::RecvInto]);
    assert_eq!(plain_recv_of(&mut c, &GET[10..]), 1);
    assert_eq!(ops(&mut c), [Op::Send, Op::Recv]);
}

#[test]
fn enobufs_again_after_a_plain_recv_starves_it_again() {
    let mut c = conn();
    ops(&mut c);
    for _ in 0..3 {
        ring_empty(&mut c);
        assert_eq!(ops(&mut c), [Op::RecvInto]);
        assert_eq!(plain_recv_of(&mut c, GET), 1);
        assert_eq!(ops(&mut c), [Op::Send, Op::Recv]);
        let n = c.unsent_len();
        complete_send(&mut c, n);
    }
    assert_eq!(c.phase(), Phase::Open);
}

#[test]
fn over_tls_a_starved_connection_rearms_the_ring() {
    let (mut c, _client) = super::tls::established();
    let rearmed = ops(&mut c);
    assert!(
        !rearmed.contains(&Op::Recv),
        "a recv already in flight: {rearmed:?}"
    );
    ring_empty(&mut c);
    assert_eq!(
        ops(&mut c),
        [Op::Recv],
        "ciphertext only ever comes through the ring"
    );
}

//! `POST /upload` through the codec as a connection drives it: the body is consumed as
//! it arrives (the connection never keeps more than a read and a partial size line),
//! the receipt names its length and CRC32C, and the limits, `100 Continue` and
//! keep-alive hold as for every other request.

use http_core::routes::{pattern_byte, upload_receipt};
use http_core::{Codec, Limits};

/// What driving a connection's input through the codec left.
struct Driven {
    out: Vec<u8>,
    /// The most unconsumed bytes the connection kept between calls.
    most_kept: usize,
    close: bool,
}

/// Feeds `input` in pieces of `step` bytes, keeping the unconsumed rest.
fn drive(limits: Limits, input: &[u8], step: usize) -> Driven {
    let mut codec = Codec::new(limits);
    let (mut kept, mut out, mut most_kept) = (Vec::new(), Vec::new(), 0);
    for piece in input.chunks(step) {
        kept.extend_from_slice(piece);
        let outcome = codec.serve(&kept, &mut out);
        kept.drain(..outcome.consumed);
        most_kept = most_kept.max(kept.len());
        if outcome.close {
            return Driven {
                out,
                most_kept,
                close: true,
            };
        }
    }
    Driven {
        out,
        most_kept,
        close: false,
    }
}

fn patterned(len: usize) -> Vec<u8> {
    (0..len).map(pattern_byte).collect()
}

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

fn receipt_of(body: &[u8]) -> String {
    text(&upload_receipt(body.len() as u64, crc32c::crc32c(body)))
}

/// `body` as chunks of 1, 2, 3 ... bytes, with an extension and a trailer.
fn chunked(body: &[u8]) -> Vec<u8> {
    let mut encoded = Vec::new();
    let (mut at, mut size) = (0, 1);
    while at < body.len() {
        let end = (at + size).min(body.len());
        encoded.extend_from_slice(format!("{:x};n=v\r\n", end - at).as_bytes());
        encoded.extend_from_slice(&body[at..end]);
        encoded.extend_from_slice(b"\r\n");
        (at, size) = (end, size + 1);
    }
    encoded.extend_from_slice(b"0\r\nX-Checked: yes\r\n\r\n");
    encoded
}

const GET: &[u8] = b"GET / HTTP/1.1\r\nHost: a\r\n\r\n";

#[test]
fn a_large_body_is_consumed_as_it_arrives_and_answered_with_its_receipt() {
    let body = patterned(3 << 20);
    let mut input = format!(
        "POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    input.extend_from_slice(&body);
    input.extend_from_slice(GET);
    let driven = drive(Limits::default(), &input, 16 << 10);
    let out = text(&driven.out);
    assert!(out.starts_with("HTTP/1.1 200 OK\r\n"), "{out}");
    assert!(out.contains(&receipt_of(&body)), "{out}");
    assert!(
        out.ends_with("Hello, World!"),
        "the request after it is answered: {out}"
    );
    assert!(driven.most_kept < 16 << 10, "kept {} bytes", driven.most_kept);
    assert!(!driven.close);
}

#[test]
fn a_chunked_body_is_decoded_as_it_arrives_at_every_split() {
    let body = patterned(300);
    let mut input = b"POST /upload HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    input.extend_from_slice(&chunked(&body));
    input.extend_from_slice(GET);
    for step in [1, 2, 5, 64, 4096] {
        let driven = drive(Limits::default(), &input, step);
        let out = text(&driven.out);
        assert!(out.contains(&receipt_of(&body)), "step {step}: {out}");
        assert!(out.ends_with("Hello, World!"), "step {step}: {out}");
    }
}

#[test]
fn expect_continue_is_answered_before_the_body_is_read() {
    let head = b"POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n";
    let mut codec = Codec::new(Limits::default());
    let mut out = Vec::new();
    let outcome = codec.serve(head, &mut out);
    assert_eq!((outcome.consumed, outcome.responses), (head.len(), 0));
    assert_eq!(text(&out), "HTTP/1.1 100 Continue\r\n\r\n");
    assert!(codec.mid_request(), "the upload is under way with nothing held");
    out.clear();
    assert_eq!(codec.serve(b"abc", &mut out).responses, 1);
    assert!(text(&out).contains(&receipt_of(b"abc")));
    assert!(!codec.mid_request());

    let whole = b"POST /upload HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n3\r\nabc\r\n0\r\n\r\n";
    let out = text(&drive(Limits::default(), whole, usize::MAX).out);
    assert!(
        out.starts_with("HTTP/1.1 200 OK\r\n"),
        "no 100 for a body all here: {out}"
    );
}

#[test]
fn bodies_over_the_upload_limit_are_413_and_close() {
    let limits = Limits {
        max_upload_bytes: 100,
        ..Limits::default()
    };
    let declared = b"POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: 101\r\nExpect: 100-continue\r\n\r\n";
    let driven = drive(limits, declared, usize::MAX);
    assert!(text(&driven.out).starts_with("HTTP/1.1 413 "), "no 100 first");
    assert!(driven.close);

    let mut growing = b"POST /upload HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    growing.extend_from_slice(&chunked(&patterned(101)));
    let driven = drive(limits, &growing, 7);
    assert!(text(&driven.out).starts_with("HTTP/1.1 413 "));
    assert!(driven.close);
}

#[test]
fn an_upload_may_be_larger_than_the_body_limit_but_an_echo_may_not() {
    let limits = Limits {
        max_body_bytes: 10,
        ..Limits::default()
    };
    let body = patterned(20);
    for (path, want) in [("/upload", "200"), ("/payload", "413")] {
        let mut input = format!("POST {path} HTTP/1.1\r\nHost: a\r\nContent-Length: 20\r\n\r\n").into_bytes();
        input.extend_from_slice(&body);
        let out = text(&drive(limits, &input, usize::MAX).out);
        assert!(out.starts_with(&format!("HTTP/1.1 {want} ")), "{path}: {out}");
    }
}

#[test]
fn an_empty_upload_and_other_methods() {
    let empty = b"POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n";
    assert!(text(&drive(Limits::default(), empty, 1).out).contains(&receipt_of(b"")));
    let get = b"GET /upload HTTP/1.1\r\nHost: a\r\n\r\n";
    let out = text(&drive(Limits::default(), get, usize::MAX).out);
    assert!(
        out.starts_with("HTTP/1.1 405 ") && out.contains("Allow: POST\r\n"),
        "{out}"
    );
}

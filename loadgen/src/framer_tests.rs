//! The framer against every way its bytes can arrive: responses split at every byte
//! boundary, pipelined back to back, chunked with extensions and a trailer, and a wrong
//! byte found wherever it is (across the pieces of a file's reference too), with the
//! lengths `response::frame` gives as the oracle.

use super::*;
use crate::response::{Frame, frame};

const ANY: Expect = Expect {
    status: 200,
    body_len: None,
};

/// Three responses back to back, each with the body `hello`: a Content-Length one, a
/// chunked one (an extension, a trailer), and another Content-Length one.
const PIPELINED: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello\
    HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2;x=y\r\nhe\r\n3\r\nllo\r\n0\r\nT: v\r\n\r\n\
    HTTP/1.0 200 OK\r\ncontent-length:5\r\nX: y\r\n\r\nhello";

/// Frames the responses in `pieces`, arriving one after another, as `read_response`
/// does (each response's framer fed what is pending until it is done or wants more):
/// each response's length, and the bytes left over.
fn frame_all(pieces: &[&[u8]], expect: Expect, reference: Reference) -> Result<(Vec<usize>, usize), Failure> {
    let (mut pending, mut lengths) = (Vec::new(), Vec::new());
    let (mut framer, mut length) = (Framer::new(expect, reference), 0);
    for piece in pieces {
        pending.extend_from_slice(piece);
        loop {
            let (used, step) = framer.feed(&pending)?;
            pending.drain(..used);
            length += used;
            if step != Step::Done {
                break;
            }
            lengths.push(std::mem::take(&mut length));
            framer = Framer::new(expect, reference);
        }
    }
    Ok((lengths, pending.len()))
}

/// What `response::frame` finds in `stream` from scratch: each response's length.
fn oracle(mut stream: &[u8]) -> Vec<usize> {
    let mut lengths = Vec::new();
    while let Ok(Frame::Complete { len, .. }) = frame(stream) {
        lengths.push(len);
        stream = &stream[len..];
    }
    lengths
}

#[test]
fn pipelined_responses_split_at_every_byte_boundary_frame_as_a_whole() {
    let whole = oracle(PIPELINED);
    assert_eq!(whole.len(), 3);
    assert_eq!(
        frame_all(&[PIPELINED], ANY, Reference::Any),
        Ok((whole.clone(), 0))
    );
    for cut in 0..=PIPELINED.len() {
        let (a, b) = PIPELINED.split_at(cut);
        let framed = frame_all(&[a, b], ANY, Reference::Body(b"hello"));
        assert_eq!(framed, Ok((whole.clone(), 0)), "cut at {cut}");
        let (lengths, left) = frame_all(&[a], ANY, Reference::Any).unwrap();
        assert_eq!(lengths, oracle(a), "only the first {cut} bytes");
        let partial = a.len() - lengths.iter().sum::<usize>();
        assert!(
            left <= partial,
            "only what is not framed yet is left: cut at {cut}"
        );
    }
    let bytes: Vec<&[u8]> = PIPELINED.chunks(1).collect();
    assert_eq!(
        frame_all(&bytes, ANY, Reference::Any),
        Ok((whole.clone(), 0)),
        "a byte at a time"
    );
    for second in 1..PIPELINED.len() {
        let cuts = [0, second / 2, second, PIPELINED.len()];
        let pieces: Vec<&[u8]> = cuts.windows(2).map(|w| &PIPELINED[w[0]..w[1]]).collect();
        assert_eq!(frame_all(&pieces, ANY, Reference::Any), Ok((whole.clone(), 0)));
    }
}

#[test]
fn a_wrong_byte_is_found_wherever_it_is_and_however_the_body_arrives() {
    let head = b"HTTP/1.1 200 OK\r\nContent-Length: 26\r\n\r\n".as_slice();
    let expected = b"abcdefghijklmnopqrstuvwxyz";
    for wrong in 0..expected.len() {
        let mut response = [head, expected].concat();
        response[head.len() + wrong] ^= 1;
        for cut in 0..=response.len() {
            let (a, b) = response.split_at(cut);
            let failure = frame_all(&[a, b], ANY, Reference::Body(expected)).unwrap_err();
            assert_eq!(failure.kind, ErrorKind::Body);
            let says = format!("expected 26 bytes (got 26; first difference at Some({wrong}))");
            assert!(failure.message.contains(&says), "{}", failure.message);
        }
    }
    let longer = b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nhellox".as_slice();
    let shorter = b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nhell".as_slice();
    for (response, says) in [
        (longer, "got 6; first difference at None"),
        (shorter, "got 4; first difference at None"),
    ] {
        let failure = frame_all(&[response], ANY, Reference::Body(b"hello")).unwrap_err();
        assert!(failure.message.contains(says), "{}", failure.message);
    }
}

#[test]
fn a_file_answer_is_checked_against_the_file_asked_for_across_its_pieces() {
    let files = Files::by_label("4k", 1).unwrap();
    let expect = Expect {
        status: 200,
        body_len: Some(4096),
    };
    let head = b"HTTP/1.1 200 OK\r\nContent-Length: 4096\r\n\r\n".as_slice();
    let answer = [head, &files.body(3)].concat();
    let body_at = head.len();
    for cut in (0..=answer.len()).step_by(7).chain(body_at + 14..body_at + 18) {
        let (a, b) = answer.split_at(cut);
        assert_eq!(
            frame_all(&[a, b], expect, Reference::File(&files, 3)),
            Ok((vec![answer.len()], 0))
        );
    }
    let not_asked = frame_all(&[&answer], expect, Reference::File(&files, 4)).unwrap_err();
    assert!(not_asked.message.contains("4k-00004"), "{}", not_asked.message);
    for wrong in [0, 15, 16, 17, 100, 4095] {
        let mut answer = answer.clone();
        answer[body_at + wrong] ^= 1;
        for cut in [0, body_at + 15, body_at + 16, body_at + 17, body_at + 2000] {
            let (a, b) = answer.split_at(cut);
            let failure = frame_all(&[a, b], expect, Reference::File(&files, 3)).unwrap_err();
            let says = format!(
                "body of 4k-00003 differs from the file's 4096 bytes (got 4096; first difference at Some({wrong}))"
            );
            assert_eq!(failure.message, says);
        }
    }
    let chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n";
    let any_len = Expect {
        body_len: None,
        ..expect
    };
    let failure = frame_all(&[chunked], any_len, Reference::File(&files, 3)).unwrap_err();
    assert_eq!(failure.message, "a file answer without Content-Length");
}

#[test]
fn chunked_bodies_are_checked_by_length_only() {
    let response = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhellp\r\n0\r\n\r\n";
    let by_length = Expect {
        status: 200,
        body_len: Some(5),
    };
    assert_eq!(
        frame_all(&[response], by_length, Reference::Body(b"hello")),
        Ok((vec![response.len()], 0))
    );
    let six = Expect {
        body_len: Some(6),
        ..by_length
    };
    let failure = frame_all(&[response], six, Reference::Any).unwrap_err();
    assert!(failure.message.contains("body of 5 bytes"), "{}", failure.message);
    let bad = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n";
    let failure = frame_all(&[bad], ANY, Reference::Any).unwrap_err();
    assert_eq!(
        (failure.kind, failure.message.as_str()),
        (ErrorKind::Body, "bad chunk size \"zz\"")
    );
}

#[test]
fn chunk_data_must_end_in_crlf_however_the_bytes_arrive() {
    let head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi";
    for end in [&b"XY"[..], b"\rY", b"X\n", b"\n\r"] {
        let response = [&head[..], end, b"0\r\n\r\n"].concat();
        let whole = frame_all(&[&response], ANY, Reference::Any).unwrap_err();
        let pieces: Vec<&[u8]> = response.chunks(1).collect();
        let bytewise = frame_all(&pieces, ANY, Reference::Any).unwrap_err();
        for failure in [whole, bytewise] {
            assert_eq!(
                (failure.kind, failure.message.as_str()),
                (ErrorKind::Body, "chunk data not followed by CRLF"),
                "{end:?}"
            );
        }
    }
}

#[test]
fn status_and_length_fail_as_soon_as_the_head_is_whole() {
    let head = b"HTTP/1.1 500 Oops\r\nContent-Length: 1000000\r\n\r\n";
    let failure = frame_all(&[head], ANY, Reference::Any).unwrap_err();
    assert_eq!(
        (failure.kind, failure.message.as_str()),
        (ErrorKind::Status, "status 500, expected 200")
    );
    let two = Expect {
        status: 200,
        body_len: Some(2),
    };
    let failure = frame_all(
        &[b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n"],
        two,
        Reference::Any,
    )
    .unwrap_err();
    assert_eq!(failure.kind, ErrorKind::Body);
    let failure = frame_all(&[b"SSH-2.0-OpenSSH\r\n\r\n"], ANY, Reference::Any).unwrap_err();
    assert!(
        failure.message.starts_with("not an HTTP/1 response"),
        "{}",
        failure.message
    );
    let huge_head = [b"HTTP/1.1 200 OK\r\nX: ".as_slice(), &[b'a'; 70_000]].concat();
    let failure = frame_all(&[&huge_head], ANY, Reference::Any).unwrap_err();
    assert_eq!(failure.message, "response head over 64 KiB");
}

//! The codec driven as an I/O loop drives it: whole inputs, inputs split at every byte,
//! pipelined batches, `100 Continue`, and every refusal closing the connection.

use http_core::{Codec, Limits, Outcome};

/// Feeds `input` in pieces of `step` bytes, as a socket might deliver it, keeping the
/// unconsumed rest like a real connection buffer. Returns all output and the last outcome.
fn drive(input: &[u8], step: usize) -> (String, Outcome, usize) {
    let mut codec = Codec::new(Limits::default());
    let (mut buffer, mut out, mut responses) = (Vec::new(), Vec::new(), 0);
    let mut last = Outcome::default();
    for piece in input.chunks(step.max(1)) {
        buffer.extend_from_slice(piece);
        last = codec.serve(&buffer, &mut out);
        responses += last.responses;
        buffer.drain(..last.consumed);
        if last.close {
            break;
        }
    }
    (String::from_utf8_lossy(&out).into_owned(), last, responses)
}

fn statuses(output: &str) -> Vec<u16> {
    output
        .match_indices("HTTP/1.1 ")
        .map(|(i, _)| output[i + 9..i + 12].parse().unwrap())
        .collect()
}

const GET: &str = "GET / HTTP/1.1\r\nHost: a\r\n\r\n";

#[test]
fn a_pipelined_batch_is_answered_in_order_in_one_call() {
    let batch =
        format!("{GET}GET /json HTTP/1.1\r\nHost: a\r\n\r\nGET /missing HTTP/1.1\r\nHost: a\r\n\r\n{GET}");
    let (out, outcome, responses) = drive(batch.as_bytes(), usize::MAX);
    assert_eq!(statuses(&out), [200, 200, 404, 200]);
    assert_eq!(
        (outcome.consumed, outcome.responses, outcome.close),
        (batch.len(), 4, false)
    );
    assert_eq!(responses, 4);
    assert!(out.find("Hello, World!").unwrap() < out.find(r#"{"message""#).unwrap());
}

#[test]
fn every_split_point_gives_the_same_answers() {
    let batch = format!(
        "{GET}POST /payload HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello\
         POST /payload HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n\
         HEAD / HTTP/1.1\r\nHost: a\r\n\r\n"
    );
    let (whole, _, _) = drive(batch.as_bytes(), usize::MAX);
    for step in 1..batch.len() {
        let (split, outcome, responses) = drive(batch.as_bytes(), step);
        assert_eq!(statuses(&split), [200, 200, 200, 200], "step {step}");
        assert_eq!(responses, 4, "step {step}");
        assert!(!outcome.close);
        assert_eq!(split.len(), whole.len(), "step {step}");
    }
    assert!(whole.contains("\r\n\r\nhello") && whole.contains("\r\n\r\nabc"));
}

#[test]
fn head_answers_without_a_body() {
    let (out, _, _) = drive(b"HEAD /json HTTP/1.1\r\nHost: a\r\n\r\n", usize::MAX);
    assert!(out.ends_with("Content-Length: 27\r\n\r\n"), "{out}");
}

#[test]
fn payload_echo_keeps_content_type_and_bytes() {
    let body: Vec<u8> = (0..=255u8).cycle().take(70_000).collect();
    let mut request = format!(
        "POST /payload HTTP/1.1\r\nHost: a\r\nContent-Type: image/x-test\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(&body);
    let mut codec = Codec::new(Limits::default());
    let mut out = Vec::new();
    let outcome = codec.serve(&request, &mut out);
    assert_eq!(outcome.consumed, request.len());
    assert!(out.ends_with(&body));
    let head = String::from_utf8_lossy(&out[..out.len() - body.len()]);
    assert!(head.contains("Content-Type: image/x-test\r\n") && head.contains("Content-Length: 70000\r\n"));
}

#[test]
fn expect_continue_is_answered_once_before_the_body() {
    let head = "POST /payload HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n";
    let mut codec = Codec::new(Limits::default());
    let mut out = Vec::new();
    let first = codec.serve(head.as_bytes(), &mut out);
    assert_eq!((first.consumed, first.responses), (0, 0));
    assert_eq!(out, b"HTTP/1.1 100 Continue\r\n\r\n");
    let partial = format!("{head}ab");
    codec.serve(partial.as_bytes(), &mut out);
    assert_eq!(out, b"HTTP/1.1 100 Continue\r\n\r\n", "100 must not repeat");
    let full = format!("{head}abcd");
    let done = codec.serve(full.as_bytes(), &mut out);
    assert_eq!((done.consumed, done.responses), (full.len(), 1));
    assert_eq!(statuses(&String::from_utf8_lossy(&out)), [100, 200]);
}

#[test]
fn expect_continue_over_the_limit_gets_413_and_no_100() {
    let head = "POST /payload HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2000000\r\n\r\n";
    let (out, outcome, _) = drive(head.as_bytes(), usize::MAX);
    assert_eq!(statuses(&out), [413]);
    assert!(outcome.close);
}

#[test]
fn connection_close_and_http_1_0_rules() {
    let (out, outcome, _) = drive(
        format!("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n{GET}").as_bytes(),
        usize::MAX,
    );
    assert_eq!(statuses(&out), [200]);
    assert!(outcome.close && out.contains("Connection: close\r\n"));
    let (out, outcome, _) = drive(b"GET / HTTP/1.0\r\n\r\n", usize::MAX);
    assert!(outcome.close && out.contains("Connection: close\r\n"));
    let (out, outcome, _) = drive(b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", usize::MAX);
    assert!(!outcome.close && out.contains("Connection: keep-alive\r\n"));
}

#[test]
fn every_refusal_closes_after_its_answer_and_stops_the_batch() {
    let cases: &[(&str, u16)] = &[
        ("GET / HTTP/1.1\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", 400),
        (
            "POST /payload HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
            400,
        ),
        (
            "POST /payload HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n",
            501,
        ),
        (
            "POST /payload HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            400,
        ),
        (
            "POST /payload HTTP/1.1\r\nHost: a\r\nContent-Length: 1048577\r\n\r\n",
            413,
        ),
        ("GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505),
    ];
    for (request, status) in cases {
        let input = format!("{GET}{request}{GET}");
        let (out, outcome, _) = drive(input.as_bytes(), usize::MAX);
        assert_eq!(statuses(&out), [200, *status], "{request:?}");
        assert!(outcome.close, "{request:?}");
        assert!(out.ends_with(http_core::error::reason(*status)), "{out}");
    }
}

#[test]
fn a_chunked_body_over_the_limit_is_413() {
    let limits = Limits {
        max_body_bytes: 8,
        ..Limits::default()
    };
    let mut codec = Codec::new(limits);
    let mut out = Vec::new();
    let input = b"POST /payload HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nabcde\r\n5\r\nfghij\r\n0\r\n\r\n";
    assert!(codec.serve(input, &mut out).close);
    assert_eq!(statuses(&String::from_utf8_lossy(&out)), [413]);
}

#[test]
fn an_output_budget_stops_answering_and_keeps_the_rest_for_later() {
    let batch = GET.repeat(1000);
    let mut codec = Codec::new(Limits::default());
    let mut out = Vec::new();
    let first = codec.serve_within(batch.as_bytes(), &mut out, 1000);
    let one = out.len() / first.responses;
    assert!(first.responses < 1000 && !first.close);
    assert!(
        out.len() >= 1000 && out.len() < 1000 + one,
        "stops within one response of the budget"
    );
    assert_eq!(first.consumed, first.responses * GET.len());
    let rest = codec.serve_within(&batch.as_bytes()[first.consumed..], &mut Vec::new(), usize::MAX);
    assert_eq!(first.responses + rest.responses, 1000);
    let mut full = Vec::new();
    assert_eq!(
        codec.serve_within(batch.as_bytes(), &mut full, 0),
        Outcome::default()
    );
}

#[test]
fn needed_says_how_much_more_input_a_request_waits_for() {
    let head = "POST /payload HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\n";
    let mut codec = Codec::new(Limits::default());
    let mut out = Vec::new();
    let partial_head = codec.serve(&head.as_bytes()[..10], &mut out);
    assert_eq!((partial_head.consumed, partial_head.needed), (0, 1));
    let mut input = head.as_bytes().to_vec();
    input.extend_from_slice(&[b'x'; 30]);
    let partial_body = codec.serve(&input, &mut out);
    assert_eq!((partial_body.consumed, partial_body.needed), (0, 70));
    input.extend_from_slice(&[b'x'; 70]);
    let done = codec.serve(&input, &mut out);
    assert_eq!((done.consumed, done.responses, done.needed), (input.len(), 1, 0));
}

/// A 1 MiB body in 512-byte chunks, delivered in 8 KiB reads, gets the same answer as
/// the same bytes in one read.
#[test]
fn a_large_chunked_body_in_small_reads_gets_the_one_shot_answer() {
    let body: Vec<u8> = (0..1 << 20).map(|i| (i % 251) as u8).collect();
    let mut request = b"POST /payload HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    for chunk in body.chunks(512) {
        request.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        request.extend_from_slice(chunk);
        request.extend_from_slice(b"\r\n");
    }
    request.extend_from_slice(b"0\r\n\r\n");
    let (split, outcome, responses) = drive(&request, 8192);
    let (whole, _, _) = drive(&request, usize::MAX);
    assert_eq!((responses, outcome.close), (1, false));
    assert_eq!(split.len(), whole.len());
    assert!(
        split.ends_with(&*String::from_utf8_lossy(&body)),
        "the echo is the body"
    );
}

#[test]
fn a_file_request_stops_the_batch_for_the_server_to_answer() {
    let file = "GET /files/4k-00001 HTTP/1.1\r\nHost: a\r\n\r\n";
    let batch = format!("{GET}{file}{GET}");
    let mut codec = Codec::new(Limits::default());
    let mut out = Vec::new();
    let first = codec.serve(batch.as_bytes(), &mut out);
    assert_eq!(
        (first.consumed, first.responses, first.close),
        (GET.len() + file.len(), 1, false)
    );
    let request = first.file.expect("the file request is handed to the server");
    assert_eq!((request.name.as_str(), request.head_only), ("4k-00001", false));
    let rest = codec.serve(&batch.as_bytes()[first.consumed..], &mut out);
    assert_eq!((rest.consumed, rest.responses, rest.file), (GET.len(), 1, None));
    assert_eq!(statuses(&String::from_utf8_lossy(&out)), [200, 200]);

    let closing = "HEAD /files/x HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n";
    let outcome = Codec::new(Limits::default()).serve(closing.as_bytes(), &mut Vec::new());
    let request = outcome.file.unwrap();
    assert!(outcome.close && request.closes() && request.head_only);
    let traversal = "GET /files/..%2Fsecret HTTP/1.1\r\nHost: a\r\n\r\n";
    let (out, outcome, _) = drive(traversal.as_bytes(), usize::MAX);
    assert_eq!((statuses(&out), outcome.file), (vec![404], None));
}

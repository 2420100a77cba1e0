//! Property tests of the codec: random bytes and random splits never panic, never make it
//! consume more than it was given, and never get a request over the limits answered; and
//! an [`Output`] (static bodies by reference) holds exactly the bytes a `Vec` does.

use http_core::{Codec, Limits, Output, Received};
use proptest::prelude::*;

/// Small limits so that random inputs cross them often.
const LIMITS: Limits = Limits {
    max_head_bytes: 1024,
    max_headers: 8,
    max_body_bytes: 256,
    max_upload_bytes: 4096,
};

/// Feeds `input` cut at `cuts`, like a socket would, keeping unconsumed bytes.
fn drive(input: &[u8], cuts: &[usize]) -> Vec<u8> {
    let mut codec = Codec::new(LIMITS);
    let (mut buffer, mut out) = (Vec::new(), Vec::new());
    let mut points: Vec<usize> = cuts.iter().map(|c| c % (input.len() + 1)).collect();
    points.push(input.len());
    points.sort_unstable();
    let mut start = 0;
    for end in points {
        buffer.extend_from_slice(&input[start..end.max(start)]);
        start = end.max(start);
        let outcome = codec.serve(&buffer, &mut out);
        assert!(
            outcome.consumed <= buffer.len(),
            "consumed {} of {}",
            outcome.consumed,
            buffer.len()
        );
        if outcome.close {
            break;
        }
        assert!(
            buffer.len() - outcome.consumed <= LIMITS.max_request_bytes(),
            "unbounded pending input"
        );
        buffer.drain(..outcome.consumed);
    }
    out
}

/// The bytes with every Date value blanked, as two renderings may straddle a second.
fn mask_dates(bytes: &[u8]) -> Vec<u8> {
    let mut masked = bytes.to_vec();
    let mut from = 0;
    while let Some(at) = masked[from..].windows(6).position(|w| w == b"Date: ") {
        let start = from + at + 6;
        masked[start..start + 29].fill(b'-');
        from = start + 29;
    }
    masked
}

/// One request of a pipeline: large and small static bodies, HEAD, an echo, an error.
fn pipelined_request() -> impl Strategy<Value = String> {
    prop_oneof![
        (0usize..20_000).prop_map(|n| format!("GET /bytes/{n} HTTP/1.1\r\nHost: p\r\n\r\n")),
        (0usize..20_000).prop_map(|n| format!("HEAD /bytes/{n} HTTP/1.1\r\nHost: p\r\n\r\n")),
        Just("GET / HTTP/1.1\r\nHost: p\r\n\r\n".to_string()),
        "[a-z]{0,50}".prop_map(|body| format!(
            "POST /payload HTTP/1.1\r\nHost: p\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )),
        (16_000usize..40_000).prop_map(|n| format!(
            "POST /payload HTTP/1.1\r\nHost: p\r\nContent-Length: {n}\r\n\r\n{}",
            "e".repeat(n)
        )),
        (16_000usize..40_000, 1usize..5000).prop_map(|(n, chunk)| format!(
            "POST /payload HTTP/1.1\r\nHost: p\r\nTransfer-Encoding: chunked\r\n\r\n{}0\r\n\r\n",
            (0..n)
                .step_by(chunk)
                .map(|at| {
                    let len = chunk.min(n - at);
                    format!("{len:x}\r\n{}\r\n", "c".repeat(len))
                })
                .collect::<String>()
        )),
        Just("GET /bytes/x HTTP/1.1\r\nHost: p\r\n\r\n".to_string()),
        Just("GET / HTTP/1.1\r\n\r\n".to_string()),
    ]
}

fn first_status(out: &[u8]) -> Option<u16> {
    let text = std::str::from_utf8(out.get(9..12)?).ok()?;
    text.parse().ok()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_bytes_never_panic_or_overconsume(input in proptest::collection::vec(any::<u8>(), 0..4096),
                                               cuts in proptest::collection::vec(any::<usize>(), 0..16)) {
        drive(&input, &cuts);
    }

    #[test]
    fn request_like_noise_never_panics(prefix in "(GET|POST|HEAD) /[a-z?=&]{0,20} HTTP/1\\.[01]\r\n",
                                       lines in proptest::collection::vec("[ -~]{0,40}\r\n", 0..20),
                                       cuts in proptest::collection::vec(any::<usize>(), 0..16)) {
        let input = format!("{prefix}{}\r\n", lines.concat());
        drive(input.as_bytes(), &cuts);
    }

    #[test]
    fn requests_over_the_limits_are_never_answered_200(headers in 0usize..16, value_len in 0usize..200,
                                                        cuts in proptest::collection::vec(any::<usize>(), 0..8)) {
        let header_lines: String = (0..headers).map(|i| format!("X-{i}: {}\r\n", "v".repeat(value_len))).collect();
        let request = format!("GET / HTTP/1.1\r\nHost: p\r\n{header_lines}\r\n");
        let status = first_status(&drive(request.as_bytes(), &cuts));
        let over = request.len() > LIMITS.max_head_bytes || headers + 1 > LIMITS.max_headers;
        if over {
            prop_assert!(matches!(status, Some(431) | Some(414)), "over the limits but got {status:?}");
        } else {
            prop_assert_eq!(status, Some(200));
        }
    }

    #[test]
    fn bodies_over_the_limit_are_never_echoed(len in 0usize..600, chunked in any::<bool>(),
                                              cuts in proptest::collection::vec(any::<usize>(), 0..8)) {
        let body = "b".repeat(len);
        let request = if chunked {
            format!("POST /payload HTTP/1.1\r\nHost: p\r\nTransfer-Encoding: chunked\r\n\r\n{len:x}\r\n{body}\r\n0\r\n\r\n")
        } else {
            format!("POST /payload HTTP/1.1\r\nHost: p\r\nContent-Length: {len}\r\n\r\n{body}")
        };
        let status = first_status(&drive(request.as_bytes(), &cuts));
        let want = if len > LIMITS.max_body_bytes { 413 } else { 200 };
        prop_assert_eq!(status, Some(want));
    }

    #[test]
    fn an_output_holds_the_bytes_a_vec_does(requests in proptest::collection::vec(pipelined_request(), 1..10),
                                            budget in 1usize..40_000) {
        let input = requests.concat();
        let (mut plain, mut spliced) = (Codec::default(), Codec::default());
        let (mut vec, mut output) = (Vec::new(), Output::default());
        let mut consumed = 0;
        while consumed < input.len() {
            let rest = &input.as_bytes()[consumed..];
            let limit = vec.len() + budget;
            let want = plain.serve_within(rest, &mut vec, limit);
            let got = spliced.serve_within(rest, &mut output, limit);
            prop_assert_eq!(want, got);
            prop_assert_eq!(output.len(), vec.len());
            consumed += want.consumed;
            if want.close || want.consumed == 0 {
                break;
            }
        }
        prop_assert_eq!(mask_dates(&output.to_vec()), mask_dates(&vec));
    }

    #[test]
    fn an_output_lent_its_input_holds_the_bytes_a_vec_does(requests in proptest::collection::vec(pipelined_request(), 1..10),
                                                            budget in 1usize..40_000) {
        let input = requests.concat();
        let (mut plain, mut lent) = (Codec::default(), Codec::default());
        let (mut vec, mut outputs) = (Vec::new(), Vec::new());
        let mut consumed = 0;
        while consumed < input.len() {
            // Each call serves a buffer of its own, writable (a chunked body is decoded in
            // place), which its output adopts if it kept a body.
            let mut rest = input.as_bytes()[consumed..].to_vec();
            let mut output = Output::default();
            let (got, kept) = lent.serve_lending(Received::Writable(&mut rest), &mut output, budget, true);
            let start = vec.len();
            let want = plain.serve_within(&input.as_bytes()[consumed..], &mut vec, start + budget);
            prop_assert_eq!(want, got);
            if kept {
                output.adopt(rest);
            }
            prop_assert_eq!(output.len(), vec.len() - start);
            outputs.extend(output.to_vec());
            consumed += want.consumed;
            if want.close || want.consumed == 0 {
                break;
            }
        }
        prop_assert_eq!(mask_dates(&outputs), mask_dates(&vec));
    }
}

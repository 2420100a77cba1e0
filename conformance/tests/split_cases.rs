//! The incremental codec against the one-shot answer: every request of the conformance
//! cases, delivered in pieces split at random points (as reads would deliver it, the
//! unconsumed rest kept like a connection buffer), gets byte for byte the answer the
//! whole request gets in one call. Only the Date value (it may tick over between the
//! calls) and a `100 Continue` (sent only when a head arrives before its body) differ.
//! Each call serves the buffer either as shared bytes or as writable ones (a chunked body
//! then decoded in place, an echo kept where it lies), in a random mix, as io_uring_server
//! does (its first read of a request is shared, the rest is its own input).

use http_core::{Codec, Limits, Output, Received};
use proptest::prelude::*;

/// Feeds `request` cut at `cuts` (sorted offsets), call `i` serving writable bytes if bit
/// `i % 16` of `writable` is set, and returns all output and whether the codec closed the
/// connection.
fn split_answer(request: &[u8], cuts: &[usize], writable: u16) -> (Vec<u8>, bool) {
    let mut codec = Codec::new(Limits::default());
    let (mut buffer, mut out) = (Vec::new(), Vec::new());
    let mut start = 0;
    for (call, &end) in cuts.iter().chain([&request.len()]).enumerate() {
        buffer.extend_from_slice(&request[start..end.max(start)]);
        start = end.max(start);
        let outcome = if writable >> (call % 16) & 1 == 1 {
            serve_writable(&mut codec, &mut buffer, &mut out)
        } else {
            let outcome = codec.serve(&buffer, &mut out);
            buffer.drain(..outcome.consumed);
            outcome
        };
        if outcome.close {
            return (out, true);
        }
    }
    (out, false)
}

/// Serves `buffer` as writable bytes into an output that may keep an echoed body where it
/// lies; the buffer is then handed to the output and the rest continues in a new one.
fn serve_writable(codec: &mut Codec, buffer: &mut Vec<u8>, out: &mut Vec<u8>) -> http_core::Outcome {
    let mut output = Output::default();
    let (outcome, kept) = codec.serve_lending(Received::Writable(buffer), &mut output, usize::MAX, true);
    if kept {
        let answered = std::mem::take(buffer);
        buffer.extend_from_slice(&answered[outcome.consumed..]);
        output.adopt(answered);
    } else {
        buffer.drain(..outcome.consumed);
    }
    out.extend(output.to_vec());
    outcome
}

fn one_shot(request: &[u8]) -> (Vec<u8>, bool) {
    let mut out = Vec::new();
    let outcome = Codec::new(Limits::default()).serve(request, &mut out);
    (out, outcome.close)
}

/// The output with every Date value masked and interim `100 Continue` responses removed.
fn comparable(out: &[u8]) -> Vec<u8> {
    let mut result = Vec::with_capacity(out.len());
    let mut rest = out;
    while !rest.is_empty() {
        if rest.starts_with(b"HTTP/1.1 100 Continue\r\n\r\n") {
            rest = &rest[25..];
        } else if rest.starts_with(b"\r\nDate: ") && rest.len() >= 8 + 29 {
            result.extend_from_slice(b"\r\nDate: <masked>");
            rest = &rest[8 + 29..];
        } else {
            result.push(rest[0]);
            rest = &rest[1..];
        }
    }
    result
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_case_split_anywhere_gets_the_one_shot_answer(fractions in prop::collection::vec(0.0f64..1.0, 0..12),
                                                          writable in any::<u16>()) {
        for case in conformance::cases::all() {
            let len = case.request.len();
            let mut cuts: Vec<usize> = fractions.iter().map(|f| (f * len as f64) as usize).collect();
            cuts.sort_unstable();
            let (split, split_close) = split_answer(&case.request, &cuts, writable);
            let (whole, whole_close) = one_shot(&case.request);
            prop_assert_eq!(split_close, whole_close, "case {}: close differs", case.name);
            let (split, whole) = (comparable(&split), comparable(&whole));
            prop_assert_eq!(
                String::from_utf8_lossy(&split),
                String::from_utf8_lossy(&whole),
                "case {} split at {:?}, writable calls {:016b}", case.name, cuts, writable
            );
        }
    }
}

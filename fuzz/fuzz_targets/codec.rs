//! Fuzzes http_core's codec: the first byte chooses where the input is cut in two, as a
//! socket might deliver it. The codec must never panic, never consume more than it was
//! given, and never keep more pending input than one request may occupy.
#![no_main]

use http_core::{Codec, Limits};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&cut, input)) = data.split_first() else { return };
    let limits = Limits { max_head_bytes: 1024, max_headers: 8, max_body_bytes: 4096, max_upload_bytes: 1 << 16 };
    let mut codec = Codec::new(limits);
    let (mut buffer, mut out) = (Vec::new(), Vec::new());
    let split = usize::from(cut) * input.len() / 255;
    for piece in [&input[..split], &input[split..]] {
        buffer.extend_from_slice(piece);
        let outcome = codec.serve(&buffer, &mut out);
        assert!(outcome.consumed <= buffer.len());
        if outcome.close {
            break;
        }
        buffer.drain(..outcome.consumed);
        assert!(buffer.len() <= limits.max_request_bytes());
    }
});

//! Decodes a `Transfer-Encoding: chunked` body (RFC 9112 section 7.1), strictly: CRLF line
//! ends, hex sizes that cannot overflow, and bounded size, framing and trailers.
//!
//! The decoder resumes where it stopped, so the work for a body is linear in its bytes
//! however it is split, and it decodes either into a separate buffer (when the input may
//! not change) or in place, moving each chunk's data down over the framing already read,
//! so that the decoded body lies at the start of the encoded one and can be sent from
//! there, as a `Content-Length` body is.

use std::ops::Range;

use crate::error::HttpError;
use crate::limits::Limits;

pub(crate) const BAD_CHUNK: HttpError = HttpError::BadRequest("invalid chunked body");

/// Decodes the chunked body at the start of `input` into `body` (cleared first).
///
/// Returns the bytes the encoded body occupies once it is complete, `Ok(None)` while more
/// input is needed. The decoded body may be at most `max_body_bytes`, and the encoded body
/// (framing and trailers included) at most `max_body_bytes + max_head_bytes`.
pub fn decode(input: &[u8], limits: &Limits, body: &mut Vec<u8>) -> Result<Option<usize>, HttpError> {
    body.clear();
    ChunkedDecoder::default().decode(input, limits, body)
}

/// A chunked body decoded as it arrives: each complete chunk is moved to the decoded body
/// once, and the next call resumes after it. A partial chunk costs one size-line parse
/// per call until all of it is there.
///
/// Every call is given the whole encoded body received so far (the same bytes as last
/// time, as this decoder left them, plus new ones). [`ChunkedDecoder::decode`] copies the
/// chunks into a buffer of the caller's; [`ChunkedDecoder::decode_in_place`] moves them to
/// the start of the input. Calls of both kinds may follow each other for one body: the
/// first of the other kind moves what is decoded so far across, once.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ChunkedDecoder {
    /// Where the next chunk's size line starts in the encoded body.
    next_chunk: usize,
    /// Body bytes decoded so far.
    decoded: usize,
    /// They lie at the start of the input (else in the caller's buffer).
    in_place: bool,
}

/// What follows the chunks decoded so far.
enum Next {
    /// A complete chunk, whose data is at `data` and whose successor starts at `next`.
    Chunk { data: Range<usize>, next: usize },
    /// The last chunk and the trailers: the encoded body is this long.
    End(usize),
    /// More input is needed.
    Partial,
}

impl ChunkedDecoder {
    /// Decodes what `input` adds, appending each complete chunk to `body`, which holds
    /// what earlier calls decoded. Returns the encoded body's length once it is complete.
    pub fn decode(
        &mut self,
        input: &[u8],
        limits: &Limits,
        body: &mut Vec<u8>,
    ) -> Result<Option<usize>, HttpError> {
        if self.in_place {
            body.clear();
            body.extend_from_slice(&input[..self.decoded]);
            self.in_place = false;
        }
        loop {
            match self.next(input, limits)? {
                Next::Chunk { data, next } => {
                    body.extend_from_slice(&input[data.clone()]);
                    self.advance(data.len(), next);
                }
                Next::End(len) => return Ok(Some(len)),
                Next::Partial => return Ok(None),
            }
        }
    }

    /// Like [`ChunkedDecoder::decode`], but moves each chunk down to follow the ones before
    /// it at the start of `input` (`body` only hands over what calls of the other kind
    /// decoded). Returns the encoded length once complete; the body is then
    /// `input[..self.decoded_len()]`, and the framing after it up to the encoded length is
    /// overwritten.
    pub fn decode_in_place(
        &mut self,
        input: &mut [u8],
        limits: &Limits,
        body: &[u8],
    ) -> Result<Option<usize>, HttpError> {
        if !self.in_place {
            // Earlier chunks were decoded into `body`; their encoding, which is longer,
            // lies before `next_chunk` and is no longer needed.
            input[..self.decoded].copy_from_slice(&body[..self.decoded]);
            self.in_place = true;
        }
        loop {
            match self.next(input, limits)? {
                Next::Chunk { data, next } => {
                    let len = data.len();
                    input.copy_within(data, self.decoded);
                    self.advance(len, next);
                }
                Next::End(len) => return Ok(Some(len)),
                Next::Partial => return Ok(None),
            }
        }
    }

    /// Body bytes decoded so far.
    pub fn decoded_len(&self) -> usize {
        self.decoded
    }

    /// Whether the decoded bytes lie at the start of the input.
    pub fn is_in_place(&self) -> bool {
        self.in_place
    }

    fn advance(&mut self, data_len: usize, next: usize) {
        self.decoded += data_len;
        self.next_chunk = next;
    }

    /// Parses what follows the last decoded chunk.
    fn next(&self, input: &[u8], limits: &Limits) -> Result<Next, HttpError> {
        let encoded_limit = limits.max_body_bytes + limits.max_head_bytes;
        let pos = self.next_chunk;
        let Some(line) = take_line(input, pos, encoded_limit)? else {
            return Ok(Next::Partial);
        };
        let size = chunk_size(&input[pos..line.end])?;
        if size == 0 {
            return Ok(match trailers(input, line.next, encoded_limit)? {
                Some(len) => Next::End(len),
                None => Next::Partial,
            });
        }
        if size > limits.max_body_bytes - self.decoded {
            return Err(HttpError::BodyTooLarge);
        }
        let data_end = line.next + size;
        if input.len() < data_end + 2 {
            return too_long_or_partial(input.len(), encoded_limit).map(|_: Option<()>| Next::Partial);
        }
        if &input[data_end..data_end + 2] != b"\r\n" {
            return Err(BAD_CHUNK);
        }
        Ok(Next::Chunk {
            data: line.next..data_end,
            next: data_end + 2,
        })
    }
}

/// Where a CRLF-terminated line starting at `start` ends (`end`) and the next begins.
pub(crate) struct Line {
    pub(crate) end: usize,
    pub(crate) next: usize,
}

pub(crate) fn take_line(input: &[u8], start: usize, encoded_limit: usize) -> Result<Option<Line>, HttpError> {
    let Some(offset) = input[start..].iter().position(|&b| b == b'\n') else {
        return too_long_or_partial(input.len(), encoded_limit);
    };
    let end = start + offset;
    if end == start || input[end - 1] != b'\r' {
        return Err(BAD_CHUNK);
    }
    Ok(Some(Line {
        end: end - 1,
        next: end + 1,
    }))
}

fn too_long_or_partial<T>(available: usize, encoded_limit: usize) -> Result<Option<T>, HttpError> {
    if available > encoded_limit {
        Err(HttpError::BodyTooLarge)
    } else {
        Ok(None)
    }
}

/// `chunk-size [ chunk-ext ]`: 1 to 16 hex digits, then nothing or `;` extensions.
pub(crate) fn chunk_size(line: &[u8]) -> Result<usize, HttpError> {
    let digits = line.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    let rest = line[digits..].trim_ascii_start();
    let extension_ok =
        rest.is_empty() || (rest[0] == b';' && rest.iter().all(|&b| b == b'\t' || (b' '..0x7f).contains(&b)));
    if digits == 0 || digits > 16 || !extension_ok {
        return Err(BAD_CHUNK);
    }
    // At most 16 hex digits fit a u64; a size past usize is refused on 32-bit targets.
    let size = line[..digits].iter().fold(0u64, |size, &digit| {
        let value = (digit as char).to_digit(16).unwrap_or(0);
        (size << 4) | u64::from(value)
    });
    usize::try_from(size).map_err(|_| BAD_CHUNK)
}

/// Skips the trailer section after the last chunk, up to and including its blank line.
pub(crate) fn trailers(
    input: &[u8],
    mut pos: usize,
    encoded_limit: usize,
) -> Result<Option<usize>, HttpError> {
    loop {
        let Some(line) = take_line(input, pos, encoded_limit)? else {
            return Ok(None);
        };
        let field = &input[pos..line.end];
        pos = line.next;
        if field.is_empty() {
            return Ok(Some(pos));
        }
        let valid = field
            .iter()
            .all(|&b| b == b'\t' || (b' '..0x7f).contains(&b) || b >= 0x80)
            && !field[0].is_ascii_whitespace()
            && field.contains(&b':');
        if !valid {
            return Err(BAD_CHUNK);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(input: &[u8]) -> (Result<Option<usize>, HttpError>, Vec<u8>) {
        let mut body = Vec::new();
        (decode(input, &Limits::default(), &mut body), body)
    }

    #[test]
    fn decodes_chunks_extensions_and_trailers() {
        let input = b"5\r\nHello\r\n1;name=value\r\n,\r\nA \r\n World!!!!\r\n0\r\nX-T: 1\r\n\r\nNEXT";
        let (result, body) = run(input);
        assert_eq!(result, Ok(Some(input.len() - 4)));
        assert_eq!(body, b"Hello, World!!!!");
    }

    #[test]
    fn every_prefix_needs_more_input() {
        let input = b"3\r\nabc\r\n0\r\n\r\n";
        for cut in 0..input.len() {
            assert_eq!(run(&input[..cut]).0, Ok(None), "cut at {cut}");
        }
        assert_eq!(run(input).0, Ok(Some(input.len())));
    }

    #[test]
    fn invalid_framing_is_400() {
        let cases: &[&[u8]] = &[
            b"g\r\nabc\r\n0\r\n\r\n",
            b"\r\n",
            b"-1\r\n",
            b"+3\r\nabc\r\n0\r\n\r\n",
            b"3\nabc\r\n0\r\n\r\n",
            b"3\r\nabcd\r\n0\r\n\r\n",
            b"3 x\r\nabc\r\n0\r\n\r\n",
            b"11111111111111111\r\n",
            b"3;\x01\r\nabc\r\n0\r\n\r\n",
            b"0\r\n folded: x\r\n\r\n",
            b"0\r\nno-colon\r\n\r\n",
        ];
        for case in cases {
            assert_eq!(run(case).0, Err(BAD_CHUNK), "{:?}", String::from_utf8_lossy(case));
        }
    }

    /// Fed a byte more at a time, the resumable decoder gives the same body and length as
    /// one call over the whole input, and copies every body byte once.
    #[test]
    fn resuming_after_each_byte_gives_the_same_body() {
        let input = b"5\r\nHello\r\n1;x=y\r\n,\r\nA\r\n World!!!!\r\n0\r\nX-T: 1\r\n\r\n";
        let (mut decoder, mut body) = (ChunkedDecoder::default(), Vec::new());
        for cut in 0..input.len() {
            assert_eq!(
                decoder.decode(&input[..cut], &Limits::default(), &mut body),
                Ok(None)
            );
            assert!(b"Hello, World!!!!".starts_with(&body), "cut {cut}");
        }
        assert_eq!(
            decoder.decode(input, &Limits::default(), &mut body),
            Ok(Some(input.len()))
        );
        assert_eq!(body, b"Hello, World!!!!");
    }

    /// Decoded in place a byte more at a time, the body ends up at the start of the
    /// input, the same as decoded into a buffer; the encoded length is the same.
    #[test]
    fn decoding_in_place_leaves_the_body_at_the_start() {
        let input = b"5\r\nHello\r\n1;x=y\r\n,\r\nA\r\n World!!!!\r\n0\r\nX-T: 1\r\n\r\nNEXT";
        let encoded = input.len() - 4;
        let mut received = Vec::new();
        let mut decoder = ChunkedDecoder::default();
        for &byte in &input[..encoded - 1] {
            received.push(byte);
            assert_eq!(
                decoder.decode_in_place(&mut received, &Limits::default(), &[]),
                Ok(None)
            );
            assert!(b"Hello, World!!!!".starts_with(&received[..decoder.decoded_len()]));
        }
        received.extend_from_slice(&input[encoded - 1..]);
        let done = decoder.decode_in_place(&mut received, &Limits::default(), &[]);
        assert_eq!(done, Ok(Some(encoded)));
        assert_eq!(&received[..decoder.decoded_len()], b"Hello, World!!!!");
        assert_eq!(
            &received[encoded..],
            b"NEXT",
            "what follows the body is untouched"
        );
    }

    /// Calls that copy and calls that decode in place may take turns on one body, as a
    /// server's first read (from a buffer it may not write) and later ones (into its own
    /// input) do: the body comes out the same wherever it is switched.
    #[test]
    fn copying_and_in_place_calls_may_take_turns() {
        let input: &[u8] = b"3\r\nabc\r\n4\r\ndefg\r\n2\r\nhi\r\n0\r\n\r\n";
        for pattern in 0u32..64 {
            let (mut decoder, mut body) = (ChunkedDecoder::default(), Vec::new());
            let mut received = Vec::new();
            let mut done = None;
            for (call, piece) in input.chunks(4).enumerate() {
                received.extend_from_slice(piece);
                done = if pattern >> (call % 6) & 1 == 1 {
                    decoder.decode_in_place(&mut received, &Limits::default(), &body)
                } else {
                    decoder.decode(&received, &Limits::default(), &mut body)
                }
                .unwrap();
            }
            assert_eq!(done, Some(input.len()), "pattern {pattern:b}");
            let decoded = if decoder.is_in_place() {
                &received[..decoder.decoded_len()]
            } else {
                &body[..]
            };
            assert_eq!(decoded, b"abcdefghi", "pattern {pattern:b}");
        }
    }

    #[test]
    fn overflowing_size_is_400_not_a_wrap() {
        assert_eq!(run(b"ffffffffffffffff\r\n").0, Err(HttpError::BodyTooLarge));
        assert_eq!(run(b"fffffffffffffffff\r\n").0, Err(BAD_CHUNK));
    }

    #[test]
    fn body_and_framing_are_bounded() {
        let limits = Limits {
            max_body_bytes: 4,
            max_head_bytes: 8,
            ..Limits::default()
        };
        let mut body = Vec::new();
        assert_eq!(decode(b"5\r\n", &limits, &mut body), Err(HttpError::BodyTooLarge));
        assert_eq!(
            decode(b"2\r\nab\r\n2\r\nab\r\n0\r\n\r\n", &limits, &mut body),
            Ok(Some(19))
        );
        assert_eq!(
            decode(b"0\r\nX-Long-Trailer: 1", &limits, &mut body),
            Err(HttpError::BodyTooLarge)
        );
    }
}

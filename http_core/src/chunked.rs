//! Decodes a `Transfer-Encoding: chunked` body (RFC 9112 section 7.1), strictly: CRLF line
//! ends, hex sizes that cannot overflow, and bounded size, framing and trailers.

use crate::error::HttpError;
use crate::limits::Limits;

const BAD_CHUNK: HttpError = HttpError::BadRequest("invalid chunked body");

/// Decodes the chunked body at the start of `input` into `body` (cleared first).
///
/// Returns the bytes the encoded body occupies once it is complete, `Ok(None)` while more
/// input is needed. The decoded body may be at most `max_body_bytes`, and the encoded body
/// (framing and trailers included) at most `max_body_bytes + max_head_bytes`.
pub fn decode(input: &[u8], limits: &Limits, body: &mut Vec<u8>) -> Result<Option<usize>, HttpError> {
    body.clear();
    ChunkedDecoder::default().decode(input, limits, body)
}

/// A chunked body decoded as it arrives: each complete chunk is copied to the body once,
/// and the next call resumes after it, so the work for a body is linear in its bytes
/// however it is split. A partial chunk costs one size-line parse per call until all of
/// it is there.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ChunkedDecoder {
    /// Where the next chunk's size line starts in the encoded body.
    next_chunk: usize,
}

impl ChunkedDecoder {
    /// Like [`decode`], but `input` is the whole encoded body received so far (the same
    /// bytes as last time plus new ones) and `body` holds what earlier calls decoded.
    pub fn decode(
        &mut self,
        input: &[u8],
        limits: &Limits,
        body: &mut Vec<u8>,
    ) -> Result<Option<usize>, HttpError> {
        let encoded_limit = limits.max_body_bytes + limits.max_head_bytes;
        loop {
            let pos = self.next_chunk;
            let Some(line) = take_line(input, pos, encoded_limit)? else {
                return Ok(None);
            };
            let size = chunk_size(&input[pos..line.end])?;
            if size == 0 {
                return trailers(input, line.next, encoded_limit);
            }
            if size > limits.max_body_bytes - body.len() {
                return Err(HttpError::BodyTooLarge);
            }
            let data_end = line.next + size;
            if input.len() < data_end + 2 {
                return too_long_or_partial(input.len(), encoded_limit);
            }
            if &input[data_end..data_end + 2] != b"\r\n" {
                return Err(BAD_CHUNK);
            }
            body.extend_from_slice(&input[line.next..data_end]);
            self.next_chunk = data_end + 2;
        }
    }
}

/// Where a CRLF-terminated line starting at `start` ends (`end`) and the next begins.
struct Line {
    end: usize,
    next: usize,
}

fn take_line(input: &[u8], start: usize, encoded_limit: usize) -> Result<Option<Line>, HttpError> {
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
fn chunk_size(line: &[u8]) -> Result<usize, HttpError> {
    let digits = line.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    let rest = line[digits..].trim_ascii_start();
    let extension_ok =
        rest.is_empty() || (rest[0] == b';' && rest.iter().all(|&b| b == b'\t' || (b' '..0x7f).contains(&b)));
    if digits == 0 || digits > 16 || !extension_ok {
        return Err(BAD_CHUNK);
    }
    let text = std::str::from_utf8(&line[..digits]).map_err(|_| BAD_CHUNK)?;
    let size = u64::from_str_radix(text, 16).map_err(|_| BAD_CHUNK)?;
    usize::try_from(size).map_err(|_| BAD_CHUNK)
}

/// Skips the trailer section after the last chunk, up to and including its blank line.
fn trailers(input: &[u8], mut pos: usize, encoded_limit: usize) -> Result<Option<usize>, HttpError> {
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

//! `POST /upload`'s body, read as it arrives and never held whole: each call takes what
//! the caller has received, folds its bytes into a running length and CRC32C, and tells
//! how many it consumed, so the caller drops them and the connection's buffer stays the
//! size of one read however large the body. A chunked body is decoded the same way, one
//! size line, data run or trailer section at a time (a partial size line or trailer
//! section stays unconsumed until it is complete, bounded by the head limit).

use crate::chunked::{BAD_CHUNK, chunk_size, take_line, trailers};
use crate::error::HttpError;
use crate::headers::Framing;

/// An upload in progress: its framing's state and what was read of it so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Upload {
    framing: Streamed,
    length: u64,
    crc32c: u32,
    /// The most body bytes accepted (`--max-upload-bytes`).
    limit: usize,
}

/// Where the next bytes of the body fall.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Streamed {
    /// A `Content-Length` body with `left` bytes still to come.
    Length { left: usize },
    /// A chunked body's size line (or the last chunk's).
    SizeLine,
    /// `left` data bytes of the current chunk are still to come.
    ChunkData { left: usize },
    /// The CRLF after a chunk's data.
    ChunkEnd,
    /// The trailer section after the last chunk, up to its blank line.
    Trailers,
}

impl Upload {
    /// An upload whose head declared `framing`, accepting at most `limit` body bytes
    /// (a `Content-Length` over it was already refused by the head's rules).
    pub fn new(framing: Framing, limit: usize) -> Self {
        let framing = match framing {
            Framing::Length(n) => Streamed::Length { left: n },
            Framing::Chunked => Streamed::SizeLine,
            Framing::Empty => Streamed::Length { left: 0 },
        };
        Upload {
            framing,
            length: 0,
            crc32c: 0,
            limit,
        }
    }

    /// Reads what it can of `input` (the bytes after those consumed so far): returns how
    /// many it consumed and whether the body ended there. A size line or trailer section
    /// longer than `max_framing` bytes is refused (413), however the reads split it.
    pub fn read(&mut self, input: &[u8], max_framing: usize) -> Result<(usize, bool), HttpError> {
        let mut pos = 0;
        loop {
            let rest = &input[pos..];
            match self.framing {
                Streamed::Length { left } => {
                    let taken = left.min(rest.len());
                    self.take(&rest[..taken]);
                    self.framing = Streamed::Length { left: left - taken };
                    return Ok((pos + taken, left == taken));
                }
                Streamed::SizeLine => {
                    let Some(line) = take_line(rest, 0, max_framing)? else {
                        return Ok((pos, false));
                    };
                    if line.next > max_framing {
                        return Err(HttpError::BodyTooLarge);
                    }
                    let size = chunk_size(&rest[..line.end])?;
                    let room = self.limit as u64 - self.length;
                    self.framing = match size {
                        0 => Streamed::Trailers,
                        _ if size as u64 > room => return Err(HttpError::BodyTooLarge),
                        _ => Streamed::ChunkData { left: size },
                    };
                    pos += line.next;
                }
                Streamed::ChunkData { left } => {
                    let taken = left.min(rest.len());
                    self.take(&rest[..taken]);
                    pos += taken;
                    if taken < left {
                        self.framing = Streamed::ChunkData { left: left - taken };
                        return Ok((pos, false));
                    }
                    self.framing = Streamed::ChunkEnd;
                }
                Streamed::ChunkEnd => match rest {
                    [b'\r', b'\n', ..] => {
                        pos += 2;
                        self.framing = Streamed::SizeLine;
                    }
                    [] | [b'\r'] => return Ok((pos, false)),
                    _ => return Err(BAD_CHUNK),
                },
                Streamed::Trailers => {
                    return match trailers(rest, 0, max_framing)? {
                        Some(len) if len > max_framing => Err(HttpError::BodyTooLarge),
                        Some(len) => Ok((pos + len, true)),
                        None => Ok((pos, false)),
                    };
                }
            }
        }
    }

    /// Body bytes still to come, where the framing says (`Content-Length`); `None` for a
    /// chunked body, whose end is known only when its last chunk arrives.
    pub fn still_to_come(&self) -> Option<usize> {
        match self.framing {
            Streamed::Length { left } => Some(left),
            _ => None,
        }
    }

    /// Body bytes read so far.
    pub fn length(&self) -> u64 {
        self.length
    }

    /// The CRC32C of the body bytes read so far.
    pub fn crc32c(&self) -> u32 {
        self.crc32c
    }

    fn take(&mut self, bytes: &[u8]) {
        self.crc32c = crc32c::crc32c_append(self.crc32c, bytes);
        self.length += bytes.len() as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FRAMING: usize = 64;

    /// Feeds `input` in pieces of `step` bytes, keeping what each call leaves unconsumed,
    /// as a connection does; returns (length, crc) once complete.
    fn feed(framing: Framing, input: &[u8], step: usize) -> Result<Option<(u64, u32, usize)>, HttpError> {
        let mut upload = Upload::new(framing, 1 << 20);
        let (mut kept, mut used) = (Vec::new(), 0);
        for piece in input.chunks(step) {
            kept.extend_from_slice(piece);
            let (consumed, done) = upload.read(&kept, FRAMING)?;
            kept.drain(..consumed);
            used += consumed;
            if done {
                return Ok(Some((upload.length(), upload.crc32c(), used)));
            }
        }
        Ok(None)
    }

    #[test]
    fn what_is_still_to_come_is_known_only_by_content_length() {
        let mut upload = Upload::new(Framing::Length(100), 1 << 20);
        assert_eq!(upload.read(&[b'x'; 30], FRAMING).unwrap(), (30, false));
        assert_eq!((upload.still_to_come(), upload.length()), (Some(70), 30));
        let mut chunked = Upload::new(Framing::Chunked, 1 << 20);
        chunked.read(b"5\r\nabcde\r\n", FRAMING).unwrap();
        assert_eq!((chunked.still_to_come(), chunked.length()), (None, 5));
    }

    #[test]
    fn a_length_body_is_read_however_it_is_split() {
        let body: Vec<u8> = (0..1000u32).map(|i| i as u8).collect();
        for step in [1, 7, 999, 1000, 4096] {
            let mut input = body.clone();
            input.extend_from_slice(b"GET / HTTP/1.1");
            let got = feed(Framing::Length(1000), &input, step).unwrap();
            assert_eq!(got, Some((1000, crc32c::crc32c(&body), 1000)), "step {step}");
        }
    }

    #[test]
    fn a_chunked_body_is_decoded_however_it_is_split() {
        let input = b"5\r\nHello\r\n1;x=y\r\n,\r\nA \r\n World!!!!\r\n0\r\nX-T: 1\r\n\r\nNEXT";
        let encoded = input.len() - 4;
        for step in 1..input.len() {
            let got = feed(Framing::Chunked, input, step).unwrap();
            let crc = crc32c::crc32c(b"Hello, World!!!!");
            assert_eq!(got, Some((16, crc, encoded)), "step {step}");
        }
    }

    #[test]
    fn bad_framing_is_refused() {
        let cases: &[&[u8]] = &[b"g\r\n", b"3\r\nabcX\r\n", b"3\nabc", b"0\r\nno colon\r\n\r\n"];
        for case in cases {
            assert_eq!(feed(Framing::Chunked, case, 1), Err(BAD_CHUNK), "{case:?}");
        }
        let mut long_line = vec![b'1'; FRAMING + 2];
        long_line.extend_from_slice(b"\r\n");
        for step in [1, long_line.len()] {
            let refused = feed(Framing::Chunked, &long_line, step);
            assert_eq!(refused, Err(HttpError::BodyTooLarge), "step {step}");
        }
    }

    #[test]
    fn chunks_past_the_limit_are_413() {
        let mut upload = Upload::new(Framing::Chunked, 4);
        assert_eq!(upload.read(b"3\r\nabc\r\n", FRAMING), Ok((8, false)));
        assert_eq!(upload.read(b"2\r\nde\r\n", FRAMING), Err(HttpError::BodyTooLarge));
    }
}

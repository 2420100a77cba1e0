//! Response framing and validation: the head parsed by httparse (status line and
//! headers), then the body by Content-Length or to the end of a chunked body. Enough to
//! count and check responses at full speed, not a general HTTP client.

use crate::errors::{ErrorKind, Failure};

/// What the start of a buffer holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame {
    /// A complete response of `len` bytes with this status.
    Complete {
        status: u16,
        len: usize,
        body_len: usize,
        /// The body is chunked; otherwise it is the last `body_len` bytes of `len`.
        chunked: bool,
    },
    /// More bytes are needed.
    Partial,
}

/// Headers a response head may carry; more fail the response. Default is 64.
const MAX_HEADERS: usize = 64;

/// How a response's body is delimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Framing {
    /// Content-Length: this many bytes.
    Length(usize),
    /// Transfer-Encoding: chunked.
    Chunked,
}

/// A parsed response head: its status, its length in bytes, and how its body is framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Head {
    pub status: u16,
    pub len: usize,
    pub framing: Framing,
}

/// Parses the response head at the start of `buf` with httparse (so a status line must be
/// `HTTP/1.x`, one space, three digits, then a space or the line's end); `None` while it
/// is incomplete. Content-Length wins over chunked framing; a head with neither fails.
pub(crate) fn parse_head(buf: &[u8]) -> Result<Option<Head>, String> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut response = httparse::Response::new(&mut headers);
    let len = match response.parse(buf) {
        Ok(httparse::Status::Complete(head_len)) => head_len,
        Ok(httparse::Status::Partial) if buf.len() > 64 * 1024 => {
            return Err("response head over 64 KiB".into());
        }
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(e) => {
            let start = String::from_utf8_lossy(&buf[..buf.len().min(40)]);
            return Err(format!("not an HTTP/1 response ({e}): {start:?}"));
        }
    };
    let status = response.code.ok_or("response without a status code")?;
    let header = |name: &str| {
        response
            .headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| h.value.trim_ascii())
    };
    let framing = if let Some(length) = header("content-length") {
        let body_len = std::str::from_utf8(length)
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or("malformed Content-Length")?;
        Framing::Length(body_len)
    } else if header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case(b"chunked")) {
        Framing::Chunked
    } else {
        return Err("response without Content-Length or chunked framing".into());
    };
    Ok(Some(Head { status, len, framing }))
}

/// Frames the response at the start of `buf` ([`parse_head`], then its body by
/// Content-Length or chunked framing), from scratch on every call; loadgen's own read loop
/// frames each response once instead (`framer.rs`).
pub fn frame(buf: &[u8]) -> Result<Frame, String> {
    let Some(head) = parse_head(buf)? else {
        return Ok(Frame::Partial);
    };
    let (status, body_start) = (head.status, head.len);
    match head.framing {
        Framing::Length(body_len) if buf.len() >= body_start + body_len => Ok(Frame::Complete {
            status,
            len: body_start + body_len,
            body_len,
            chunked: false,
        }),
        Framing::Length(_) => Ok(Frame::Partial),
        Framing::Chunked => chunked_end(buf, body_start).map(|end| match end {
            Some((len, body_len)) => Frame::Complete {
                status,
                len,
                body_len,
                chunked: true,
            },
            None => Frame::Partial,
        }),
    }
}

/// What every response must be: this status, and a body of this length if given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expect {
    pub status: u16,
    pub body_len: Option<usize>,
}

impl Expect {
    /// Checks a complete response's status and body length.
    pub fn check(&self, status: u16, body_len: usize) -> Result<(), Failure> {
        if status != self.status {
            let message = format!("status {status}, expected {}", self.status);
            return Err(Failure::new(ErrorKind::Status, message));
        }
        if self.body_len.is_some_and(|want| want != body_len) {
            let message = format!("body of {body_len} bytes, expected {:?}", self.body_len);
            return Err(Failure::new(ErrorKind::Body, message));
        }
        Ok(())
    }
}

pub(crate) fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The size a chunk-size line (without its CRLF) gives, chunk extensions ignored.
pub(crate) fn chunk_size(line: &[u8]) -> Result<usize, String> {
    let size_text = std::str::from_utf8(line).map_err(|_| "bad chunk size")?;
    let size_text = size_text.split(';').next().unwrap_or_default().trim();
    usize::from_str_radix(size_text, 16).map_err(|_| format!("bad chunk size {size_text:?}"))
}

/// The end of a chunked body starting at `pos`, and its decoded length.
fn chunked_end(buf: &[u8], mut pos: usize) -> Result<Option<(usize, usize)>, String> {
    let mut body_len = 0;
    loop {
        let Some(line_end) = find(&buf[pos..], b"\r\n") else {
            return Ok(None);
        };
        let size = chunk_size(&buf[pos..pos + line_end])?;
        pos += line_end + 2;
        if size == 0 {
            // The trailer's lines, if any, end at the first empty line: complete only then.
            let end = if buf[pos..].starts_with(b"\r\n") {
                Some(pos + 2)
            } else {
                find(&buf[pos..], b"\r\n\r\n").map(|e| pos + e + 4)
            };
            return Ok(end.map(|end| (end, body_len)));
        }
        let end = pos.saturating_add(size).saturating_add(2);
        if buf.len() < end {
            return Ok(None);
        }
        if &buf[end - 2..end] != b"\r\n" {
            return Err("chunk data not followed by CRLF".into());
        }
        body_len += size;
        pos = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_content_length_responses_and_their_prefixes() {
        let response = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
        assert_eq!(
            frame(response),
            Ok(Frame::Complete {
                status: 200,
                len: response.len(),
                body_len: 5,
                chunked: false,
            })
        );
        for cut in 0..response.len() {
            assert_eq!(frame(&response[..cut]), Ok(Frame::Partial), "cut {cut}");
        }
    }

    #[test]
    fn frames_chunked_responses() {
        let response = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\nNEXT";
        assert_eq!(
            frame(response),
            Ok(Frame::Complete {
                status: 200,
                len: response.len() - 4,
                body_len: 5,
                chunked: true,
            })
        );
        assert_eq!(frame(&response[..response.len() - 6]), Ok(Frame::Partial));
    }

    #[test]
    fn the_status_line_is_parsed_not_read_at_offsets() {
        let framed = |head: &str| frame(format!("{head}\r\nContent-Length: 0\r\n\r\n").as_bytes());
        let status = |head: &str| match framed(head) {
            Ok(Frame::Complete { status, .. }) => Ok(status),
            other => Err(format!("{other:?}")),
        };
        assert_eq!(status("HTTP/1.1 404 Not Found Here"), Ok(404));
        assert_eq!(status("HTTP/1.1 204"), Ok(204), "the reason phrase may be absent");
        assert_eq!(status("HTTP/1.0 503 \t odd  spacing\tin the reason"), Ok(503));
        // Bytes 9..12 read "200" in each of these, yet none is a 200 status line.
        assert!(framed("HTTP/1.1 2000 OK").is_err(), "a four-digit status");
        assert!(framed("HTTP/1.1 200OK").is_err(), "no space after the status");
        assert!(framed("HTTP/1.1 200 OK\r\nbroken header line").is_err());
    }

    #[test]
    fn rejects_what_it_cannot_frame() {
        assert!(frame(b"SSH-2.0-OpenSSH\r\n\r\n").is_err());
        assert!(frame(b"HTTP/1.1 200 OK\r\n\r\n").is_err());
        assert!(frame(b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n").is_err());
        let unterminated = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhiXY0\r\n\r\n";
        assert_eq!(frame(unterminated), Err("chunk data not followed by CRLF".into()));
        let huge = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\nhi";
        assert!(
            matches!(frame(huge), Ok(Frame::Partial)),
            "a chunk larger than memory is never complete"
        );
    }
}

//! Minimal response framing and validation: the status line, then the body by
//! Content-Length or to the end of a chunked body. Enough to count and check responses
//! at full speed, not a general HTTP parser.

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

/// Frames the response at the start of `buf`.
pub fn frame(buf: &[u8]) -> Result<Frame, String> {
    let Some(head_end) = find(buf, b"\r\n\r\n") else {
        return if buf.len() > 64 * 1024 {
            Err("response head over 64 KiB".into())
        } else {
            Ok(Frame::Partial)
        };
    };
    let head = &buf[..head_end];
    if !head.starts_with(b"HTTP/1.") || head.len() < 12 {
        return Err(format!(
            "not an HTTP/1 response: {:?}",
            String::from_utf8_lossy(&head[..head.len().min(40)])
        ));
    }
    let status = std::str::from_utf8(&head[9..12])
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or("malformed status line")?;
    let body_start = head_end + 4;
    if let Some(length) = header(head, b"content-length") {
        let body_len: usize = std::str::from_utf8(length)
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .ok_or("malformed Content-Length")?;
        return Ok(if buf.len() >= body_start + body_len {
            Frame::Complete {
                status,
                len: body_start + body_len,
                body_len,
                chunked: false,
            }
        } else {
            Frame::Partial
        });
    }
    if header(head, b"transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case(b"chunked")) {
        return chunked_end(buf, body_start).map(|end| match end {
            Some((len, body_len)) => Frame::Complete {
                status,
                len,
                body_len,
                chunked: true,
            },
            None => Frame::Partial,
        });
    }
    Err("response without Content-Length or chunked framing".into())
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

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn header<'a>(head: &'a [u8], name: &[u8]) -> Option<&'a [u8]> {
    head.split(|&b| b == b'\n').skip(1).find_map(|line| {
        let colon = line.iter().position(|&b| b == b':')?;
        line[..colon]
            .eq_ignore_ascii_case(name)
            .then(|| line[colon + 1..].trim_ascii())
    })
}

/// The end of a chunked body starting at `pos`, and its decoded length.
fn chunked_end(buf: &[u8], mut pos: usize) -> Result<Option<(usize, usize)>, String> {
    let mut body_len = 0;
    loop {
        let Some(line_end) = find(&buf[pos..], b"\r\n") else {
            return Ok(None);
        };
        let size_text = std::str::from_utf8(&buf[pos..pos + line_end]).map_err(|_| "bad chunk size")?;
        let size_text = size_text.split(';').next().unwrap_or_default().trim();
        let size =
            usize::from_str_radix(size_text, 16).map_err(|_| format!("bad chunk size {size_text:?}"))?;
        pos += line_end + 2;
        if size == 0 {
            return Ok(find(&buf[pos..], b"\r\n").map(|_| {
                let trailer_end = find(&buf[pos..], b"\r\n\r\n").map_or(pos + 2, |e| pos + e + 4);
                let end = if buf[pos..].starts_with(b"\r\n") {
                    pos + 2
                } else {
                    trailer_end
                };
                (end, body_len)
            }));
        }
        if buf.len() < pos + size + 2 {
            return Ok(None);
        }
        body_len += size;
        pos += size + 2;
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
    fn rejects_what_it_cannot_frame() {
        assert!(frame(b"SSH-2.0-OpenSSH\r\n\r\n").is_err());
        assert!(frame(b"HTTP/1.1 200 OK\r\n\r\n").is_err());
        assert!(frame(b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n").is_err());
    }
}

//! Parses one request head with httparse and applies the head-size, header-count and
//! version rules; header-level rules come from [`crate::headers`].

use std::mem::MaybeUninit;

use crate::error::HttpError;
use crate::headers::{self, HeadInfo};
use crate::limits::{Limits, MAX_HEADERS};
use crate::routes::limits_for;

/// A complete, valid request head.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Head<'a> {
    pub method: &'a str,
    /// The request target as sent, query included.
    pub target: &'a str,
    /// Bytes the head occupies in the input, blank line included.
    pub len: usize,
    pub info: HeadInfo<'a>,
}

/// Parses the head at the start of `input`. `Ok(None)` means more input is needed.
pub fn parse_head<'a>(input: &'a [u8], limits: &Limits) -> Result<Option<Head<'a>>, HttpError> {
    let mut slots = [const { MaybeUninit::<httparse::Header>::uninit() }; MAX_HEADERS];
    let mut spill = Vec::new();
    let slots: &mut [MaybeUninit<httparse::Header>] = if limits.max_headers <= MAX_HEADERS {
        &mut slots[..limits.max_headers]
    } else {
        spill.resize_with(limits.max_headers, MaybeUninit::uninit);
        &mut spill
    };
    let mut request = httparse::Request::new(&mut []);
    let len = match request.parse_with_uninit_headers(input, slots) {
        Ok(httparse::Status::Complete(len)) => len,
        Ok(httparse::Status::Partial) => return partial(input, limits),
        Err(httparse::Error::TooManyHeaders) => return Err(HttpError::HeadTooLarge),
        Err(httparse::Error::Version) => return Err(version_error(input)),
        Err(_) => return Err(HttpError::BadRequest("malformed request line or header")),
    };
    if len > limits.max_head_bytes {
        return Err(oversized(input, limits));
    }
    let minor = request.version.unwrap_or(1);
    let method = request.method.unwrap_or_default();
    let target = request.path.unwrap_or_default();
    let fields = request.headers.iter().map(|h| (h.name, h.value));
    let info = headers::inspect(minor, fields, &limits_for(limits, method, target))?;
    Ok(Some(Head {
        method,
        target,
        len,
        info,
    }))
}

/// An incomplete head is fine until it reaches the limit.
fn partial<'a>(input: &[u8], limits: &Limits) -> Result<Option<Head<'a>>, HttpError> {
    if input.len() >= limits.max_head_bytes {
        Err(oversized(input, limits))
    } else {
        Ok(None)
    }
}

/// 414 when the request line alone is over the head limit, else 431.
fn oversized(input: &[u8], limits: &Limits) -> HttpError {
    let window = &input[..input.len().min(limits.max_head_bytes)];
    if window.contains(&b'\n') {
        HttpError::HeadTooLarge
    } else {
        HttpError::UriTooLong
    }
}

/// httparse accepts only HTTP/1.0 and HTTP/1.1; another major version gets 505.
fn version_error(input: &[u8]) -> HttpError {
    let line = input.split(|&b| b == b'\n').next().unwrap_or_default();
    let version = line
        .trim_ascii_end()
        .rsplit(|&b| b == b' ')
        .next()
        .unwrap_or_default();
    match version.strip_prefix(b"HTTP/") {
        Some([major, ..]) if major.is_ascii_digit() && *major != b'1' => HttpError::UnsupportedVersion,
        _ => HttpError::BadRequest("malformed HTTP version"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::MAX_HEAD_BYTES;

    fn parse(input: &[u8]) -> Result<Option<Head<'_>>, HttpError> {
        parse_head(input, &Limits::default())
    }

    fn status(input: &[u8]) -> u16 {
        match parse(input) {
            Ok(Some(_)) => 200,
            Ok(None) => 0,
            Err(e) => e.status(),
        }
    }

    #[test]
    fn parses_a_simple_head() {
        let head = parse(b"GET /json?x=1 HTTP/1.1\r\nHost: a\r\n\r\nrest")
            .unwrap()
            .unwrap();
        assert_eq!((head.method, head.target, head.len), ("GET", "/json?x=1", 35));
    }

    #[test]
    fn every_prefix_of_a_head_needs_more_input() {
        let full = b"POST /payload HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\n";
        for cut in 0..full.len() {
            assert_eq!(parse(&full[..cut]), Ok(None), "cut at {cut}");
        }
        assert!(parse(full).unwrap().is_some());
    }

    #[test]
    fn malformed_lines_are_400() {
        let cases: &[&[u8]] = &[
            b"GET\r\n\r\n",
            b"G(T / HTTP/1.1\r\nHost: a\r\n\r\n",
            b"GET / HTTP/1.1\r\nHost: a\r\nBad Name: x\r\n\r\n",
            b"GET / HTTP/1.1\r\nHost: a\r\nName : x\r\n\r\n",
            b"GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n folded\r\n\r\n",
            b"GET / HTTP/1.1\r\nHost: a\r\nX: a\0b\r\n\r\n",
            b"GET / HTTP/1.1\r\nHost: a\r\nX: a\rb\r\n\r\n",
            b"GET / HTTP/1.1\r\nHost: a\r\nX: a\x01b\r\n\r\n",
            b"GET / HTTP/1.1\r\nHo\0st: a\r\n\r\n",
            b"GET / HTTP/x.1\r\nHost: a\r\n\r\n",
        ];
        for case in cases {
            assert_eq!(status(case), 400, "{:?}", String::from_utf8_lossy(case));
        }
    }

    #[test]
    fn other_major_versions_are_505() {
        assert_eq!(status(b"GET / HTTP/2.0\r\n\r\n"), 505);
        assert_eq!(status(b"GET / HTTP/3.0\r\nHost: a\r\n\r\n"), 505);
        assert_eq!(status(b"GET / HTTP/1.0\r\n\r\n"), 200);
    }

    #[test]
    fn head_and_header_count_limits() {
        let long_uri = format!("GET /{} HTTP/1.1\r\nHost: a\r\n\r\n", "a".repeat(MAX_HEAD_BYTES));
        assert_eq!(status(long_uri.as_bytes()), 414);
        assert_eq!(status(&long_uri.as_bytes()[..MAX_HEAD_BYTES]), 414);
        let big = format!(
            "GET / HTTP/1.1\r\nHost: a\r\nX: {}\r\n\r\n",
            "a".repeat(MAX_HEAD_BYTES)
        );
        assert_eq!(status(big.as_bytes()), 431);
        assert_eq!(status(&big.as_bytes()[..MAX_HEAD_BYTES]), 431);
        let many = format!(
            "GET / HTTP/1.1\r\nHost: a\r\n{}\r\n",
            "X: y\r\n".repeat(MAX_HEADERS)
        );
        assert_eq!(status(many.as_bytes()), 431);
        let just = format!(
            "GET / HTTP/1.1\r\nHost: a\r\n{}\r\n",
            "X: y\r\n".repeat(MAX_HEADERS - 1)
        );
        assert_eq!(status(just.as_bytes()), 200);
    }

    #[test]
    fn configured_limits_apply() {
        let limits = Limits {
            max_headers: 100,
            max_head_bytes: 64,
            ..Limits::default()
        };
        let many = format!("GET / HTTP/1.1\r\nHost: a\r\n{}\r\n", "X: y\r\n".repeat(80));
        assert_eq!(parse_head(many.as_bytes(), &limits), Err(HttpError::HeadTooLarge));
        let limits = Limits {
            max_headers: 100,
            max_head_bytes: 4096,
            ..Limits::default()
        };
        assert!(parse_head(many.as_bytes(), &limits).unwrap().is_some());
    }
}

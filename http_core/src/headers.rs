//! The header-level rules of RFC 9112 and RFC 9110 that decide framing, persistence and
//! validity of one request. Shared by the codec and by the hyper engine, which hands
//! over the headers hyper has already parsed.

use crate::error::HttpError;
use crate::limits::Limits;

/// How the request body is delimited (RFC 9112 section 6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// No body.
    Empty,
    /// `Content-Length` bytes follow the head.
    Length(usize),
    /// `Transfer-Encoding: chunked`.
    Chunked,
}

/// What the headers of one request say, once they have passed every rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeadInfo<'a> {
    /// Whether the connection persists after this request (RFC 9112 section 9.3).
    pub keep_alive: bool,
    /// Whether an HTTP/1.0 client asked for persistence, which the response must confirm.
    pub keep_alive_requested: bool,
    /// How the body is delimited.
    pub framing: Framing,
    /// `Expect: 100-continue` on an HTTP/1.1 request.
    pub expect_continue: bool,
    /// The first `Content-Type` value, if any.
    pub content_type: Option<&'a [u8]>,
}

/// Applies every header rule of the contract to one request's headers.
///
/// `version_minor` is 0 or 1 (the major version is already known to be 1).
pub fn inspect<'a>(
    version_minor: u8,
    headers: impl IntoIterator<Item = (&'a str, &'a [u8])>,
    limits: &Limits,
) -> Result<HeadInfo<'a>, HttpError> {
    let mut hosts = 0usize;
    let mut content_length: Option<u64> = None;
    let mut codings = Codings::default();
    let mut close = false;
    let mut keep_alive_token = false;
    let mut expect_continue = false;
    let mut content_type = None;

    for (name, value) in headers {
        if name.eq_ignore_ascii_case("host") {
            hosts += 1;
        } else if name.eq_ignore_ascii_case("content-length") {
            for element in value.split(|&b| b == b',').map(<[u8]>::trim_ascii) {
                let n = parse_content_length(element)?;
                if content_length.is_some_and(|seen| seen != n) {
                    return Err(HttpError::BadRequest("conflicting Content-Length values"));
                }
                content_length = Some(n);
            }
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            codings.seen = true;
            list_elements(value).for_each(|coding| codings.push(coding));
        } else if name.eq_ignore_ascii_case("connection") {
            for token in list_elements(value) {
                close |= token.eq_ignore_ascii_case(b"close");
                keep_alive_token |= token.eq_ignore_ascii_case(b"keep-alive");
            }
        } else if name.eq_ignore_ascii_case("expect") {
            expect_continue |= value.trim_ascii().eq_ignore_ascii_case(b"100-continue");
        } else if name.eq_ignore_ascii_case("content-type") && content_type.is_none() {
            content_type = Some(value);
        }
    }

    if hosts > 1 || (version_minor == 1 && hosts == 0) {
        return Err(HttpError::BadRequest("HTTP/1.1 needs exactly one Host header"));
    }
    let framing = match (codings.seen, content_length) {
        (true, _) if version_minor == 0 => {
            return Err(HttpError::BadRequest("Transfer-Encoding in HTTP/1.0"));
        }
        (true, Some(_)) => {
            return Err(HttpError::BadRequest("both Content-Length and Transfer-Encoding"));
        }
        (true, None) => codings.framing()?,
        (false, Some(n)) if n > limits.max_body_bytes as u64 => {
            return Err(HttpError::BodyTooLarge);
        }
        (false, Some(0)) | (false, None) => Framing::Empty,
        (false, Some(n)) => Framing::Length(n as usize),
    };
    let keep_alive = if version_minor == 0 {
        keep_alive_token && !close
    } else {
        !close
    };
    Ok(HeadInfo {
        keep_alive,
        keep_alive_requested: version_minor == 0 && keep_alive,
        framing,
        expect_continue: expect_continue && version_minor == 1,
        content_type,
    })
}

/// The transfer codings named across every `Transfer-Encoding` header, in order.
#[derive(Default)]
struct Codings {
    seen: bool,
    chunked_count: usize,
    last_is_chunked: bool,
    other: bool,
}

impl Codings {
    fn push(&mut self, coding: &[u8]) {
        let chunked = coding.eq_ignore_ascii_case(b"chunked");
        self.chunked_count += usize::from(chunked);
        self.other |= !chunked;
        self.last_is_chunked = chunked;
    }

    /// RFC 9112 section 6.3: chunked must be the final coding, applied once; we decode
    /// no other coding.
    fn framing(&self) -> Result<Framing, HttpError> {
        if self.chunked_count > 0 && (!self.last_is_chunked || self.chunked_count > 1) {
            Err(HttpError::BadRequest("chunked is not the final transfer coding"))
        } else if self.other || self.chunked_count == 0 {
            Err(HttpError::UnsupportedEncoding)
        } else {
            Ok(Framing::Chunked)
        }
    }
}

/// The non-empty elements of a comma-separated header list, without surrounding whitespace.
fn list_elements(value: &[u8]) -> impl Iterator<Item = &[u8]> {
    value
        .split(|&b| b == b',')
        .map(<[u8]>::trim_ascii)
        .filter(|element| !element.is_empty())
}

/// `Content-Length = 1*DIGIT` (RFC 9110 section 8.6): no sign, no spaces, no overflow.
fn parse_content_length(element: &[u8]) -> Result<u64, HttpError> {
    const INVALID: HttpError = HttpError::BadRequest("invalid Content-Length");
    if element.is_empty() || !element.iter().all(u8::is_ascii_digit) {
        return Err(INVALID);
    }
    element.iter().try_fold(0u64, |n, &d| {
        n.checked_mul(10)
            .and_then(|n| n.checked_add(u64::from(d - b'0')))
            .ok_or(INVALID)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(minor: u8, headers: &[(&'static str, &'static str)]) -> Result<HeadInfo<'static>, HttpError> {
        inspect(
            minor,
            headers.iter().map(|(n, v)| (*n, v.as_bytes())),
            &Limits::default(),
        )
    }

    fn status(minor: u8, headers: &[(&'static str, &'static str)]) -> u16 {
        check(minor, headers).map_or_else(|e| e.status(), |_| 200)
    }

    const HOST: (&str, &str) = ("Host", "x");

    #[test]
    fn host_is_required_once_on_http_1_1() {
        assert_eq!(status(1, &[]), 400);
        assert_eq!(status(1, &[HOST, HOST]), 400);
        assert_eq!(status(0, &[HOST, HOST]), 400);
        assert_eq!(status(1, &[HOST]), 200);
        assert_eq!(status(0, &[]), 200);
    }

    #[test]
    fn content_length_must_be_plain_digits_that_agree() {
        for bad in [
            "-1",
            "abc",
            "+5",
            "",
            " ",
            "5 5",
            "99999999999999999999999",
            "0x10",
        ] {
            assert_eq!(status(1, &[HOST, ("Content-Length", bad)]), 400, "{bad:?}");
        }
        assert_eq!(status(1, &[HOST, ("Content-Length", "5, 6")]), 400);
        assert_eq!(
            status(1, &[HOST, ("Content-Length", "5"), ("Content-Length", "6")]),
            400
        );
        let same = check(1, &[HOST, ("Content-Length", "5, 5"), ("content-length", "5")]);
        assert_eq!(same.unwrap().framing, Framing::Length(5));
        assert_eq!(
            check(1, &[HOST, ("Content-Length", "0")]).unwrap().framing,
            Framing::Empty
        );
    }

    #[test]
    fn content_length_over_the_limit_is_413() {
        assert_eq!(status(1, &[HOST, ("Content-Length", "1048577")]), 413);
        assert_eq!(status(1, &[HOST, ("Content-Length", "1048576")]), 200);
    }

    #[test]
    fn transfer_encoding_rules() {
        assert_eq!(
            check(1, &[HOST, ("Transfer-Encoding", "chunked")])
                .unwrap()
                .framing,
            Framing::Chunked
        );
        assert_eq!(
            check(1, &[HOST, ("Transfer-Encoding", "Chunked")])
                .unwrap()
                .framing,
            Framing::Chunked
        );
        assert_eq!(status(1, &[HOST, ("Transfer-Encoding", "gzip")]), 501);
        assert_eq!(status(1, &[HOST, ("Transfer-Encoding", "gzip, chunked")]), 501);
        assert_eq!(status(1, &[HOST, ("Transfer-Encoding", "chunked, gzip")]), 400);
        assert_eq!(
            status(
                1,
                &[
                    HOST,
                    ("Transfer-Encoding", "chunked"),
                    ("Transfer-Encoding", "chunked")
                ]
            ),
            400
        );
        assert_eq!(status(1, &[HOST, ("Transfer-Encoding", "")]), 501);
        assert_eq!(status(0, &[("Transfer-Encoding", "chunked")]), 400);
        assert_eq!(
            status(
                1,
                &[HOST, ("Transfer-Encoding", "chunked"), ("Content-Length", "5")]
            ),
            400
        );
    }

    #[test]
    fn persistence_follows_rfc_9112() {
        assert!(check(1, &[HOST]).unwrap().keep_alive);
        assert!(!check(1, &[HOST, ("Connection", "Close")]).unwrap().keep_alive);
        assert!(
            !check(1, &[HOST, ("Connection", "foo, close")])
                .unwrap()
                .keep_alive
        );
        assert!(!check(0, &[]).unwrap().keep_alive);
        let ka = check(0, &[("Connection", "Keep-Alive")]).unwrap();
        assert!(ka.keep_alive && ka.keep_alive_requested);
        assert!(
            !check(1, &[HOST, ("Connection", "keep-alive")])
                .unwrap()
                .keep_alive_requested
        );
    }

    #[test]
    fn expect_continue_only_counts_on_http_1_1() {
        assert!(
            check(1, &[HOST, ("Expect", "100-Continue")])
                .unwrap()
                .expect_continue
        );
        assert!(!check(0, &[("Expect", "100-continue")]).unwrap().expect_continue);
    }

    #[test]
    fn first_content_type_is_kept() {
        let info = check(1, &[HOST, ("Content-Type", "a/b"), ("Content-Type", "c/d")]).unwrap();
        assert_eq!(info.content_type, Some(&b"a/b"[..]));
    }
}

//! Why a request was refused, and the status code each reason maps to.

/// A request the server refuses. Every variant closes the connection after its response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HttpError {
    /// Malformed request line, header, framing or chunk: 400.
    BadRequest(&'static str),
    /// The declared or decoded body is over the body limit: 413.
    BodyTooLarge,
    /// The request line alone is over the head limit: 414.
    UriTooLong,
    /// The head is over the head limit, or has too many header fields: 431.
    HeadTooLarge,
    /// A transfer coding other than chunked: 501.
    UnsupportedEncoding,
    /// An HTTP major version other than 1: 505.
    UnsupportedVersion,
}

impl HttpError {
    /// The status code this error is answered with.
    pub fn status(self) -> u16 {
        match self {
            HttpError::BadRequest(_) => 400,
            HttpError::BodyTooLarge => 413,
            HttpError::UriTooLong => 414,
            HttpError::HeadTooLarge => 431,
            HttpError::UnsupportedEncoding => 501,
            HttpError::UnsupportedVersion => 505,
        }
    }
}

/// The reason phrase sent after a status code (RFC 9110 section 15).
pub fn reason(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        413 => "Content Too Large",
        414 => "URI Too Long",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        505 => "HTTP Version Not Supported",
        _ => "Unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_has_a_4xx_or_5xx_status_with_a_reason() {
        let all = [
            HttpError::BadRequest("x"),
            HttpError::BodyTooLarge,
            HttpError::UriTooLong,
            HttpError::HeadTooLarge,
            HttpError::UnsupportedEncoding,
            HttpError::UnsupportedVersion,
        ];
        for e in all {
            assert!((400..600).contains(&e.status()), "{e:?}");
            assert_ne!(reason(e.status()), "Unknown", "{e:?}");
        }
    }
}

//! Limits and timeouts every server applies, each a named constant with its default.
//!
//! Servers expose each of these as a command-line flag (see [`crate::args`]), so the
//! defaults below are what a user gets when they pass nothing.

use std::time::Duration;

/// Largest request head (request line plus headers, including the blank line) accepted.
/// A longer head is answered with 431, or 414 when the request line alone is longer.
/// Default is 16 KiB.
pub const MAX_HEAD_BYTES: usize = 16 * 1024;

/// Most header fields accepted in one request; one more is answered with 431.
/// Default is 64.
pub const MAX_HEADERS: usize = 64;

/// Largest request body accepted (after chunked decoding); a larger one is answered with 413.
/// Default is 1 MiB.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// Largest body `POST /upload` accepts (after chunked decoding); a larger one is answered
/// with 413. The body is read as it arrives and never held whole (see [`crate::upload`]),
/// so this limit bounds time, not memory. Default is 32 MiB.
pub const MAX_UPLOAD_BYTES: usize = 32 * 1024 * 1024;

/// A connection that has sent part of a request, then nothing for this long, is closed.
/// Default is 10 seconds.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// A keep-alive connection with no request in progress is closed after this long.
/// Default is 60 seconds.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(60);

/// On graceful shutdown, connections still busy after this long are closed anyway.
/// Default is 5 seconds.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// Rendered output a connection may hold unsent before it stops answering (and reading)
/// requests, so a client that never reads cannot grow server memory without limit. The
/// codec stops before the request that would start past it (see
/// [`crate::Codec::serve_within`]), so output exceeds it by at most one response.
/// Default is 1 MiB.
pub const OUTPUT_LIMIT: usize = 1024 * 1024;

/// Size limits the codec enforces on each request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// See [`MAX_HEAD_BYTES`].
    pub max_head_bytes: usize,
    /// See [`MAX_HEADERS`].
    pub max_headers: usize,
    /// See [`MAX_BODY_BYTES`].
    pub max_body_bytes: usize,
    /// See [`MAX_UPLOAD_BYTES`].
    pub max_upload_bytes: usize,
}

impl Limits {
    /// The most bytes one complete request can occupy in a connection's input buffer:
    /// a full head, the largest body, and chunked framing around it (bounded by
    /// allowing the framing to be as large as the head limit again). An upload's body is
    /// consumed as it arrives, so it never counts here.
    pub fn max_request_bytes(&self) -> usize {
        2 * self.max_head_bytes + self.max_body_bytes
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_head_bytes: MAX_HEAD_BYTES,
            max_headers: MAX_HEADERS,
            max_body_bytes: MAX_BODY_BYTES,
            max_upload_bytes: MAX_UPLOAD_BYTES,
        }
    }
}

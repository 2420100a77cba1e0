//! A raw HTTP/1.1 client for tests, over TCP or TLS ([`Endpoint`]): it sends exact bytes,
//! parses exact responses, and tells a close from a reset from a silent connection (and
//! over TLS, a close with `close_notify` from one without).

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

pub use crate::endpoint::ANSWER_TIMEOUT;
use crate::endpoint::{Endpoint, Wire};

/// What a TLS connection's end without the server's `close_notify` reads as.
const WITHOUT_CLOSE_NOTIFY: &str = "the server closed the TLS connection without close_notify";

/// One parsed response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    /// Header names lower-cased, in order of arrival.
    pub headers: Vec<(String, Vec<u8>)>,
    pub body: Vec<u8>,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&[u8]> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_slice())
    }

    /// Status, headers sorted by name with Date masked, and body: equal for two servers
    /// that answered the same way, whatever their header order and case.
    pub fn normalized(&self) -> String {
        let mut headers: Vec<String> = self
            .headers
            .iter()
            .map(|(name, value)| match name.as_str() {
                "date" => "date: <masked>".to_string(),
                _ => format!("{name}: {}", String::from_utf8_lossy(value)),
            })
            .collect();
        headers.sort();
        format!(
            "{} | {} | {:?}",
            self.status,
            headers.join(" | "),
            String::from_utf8_lossy(&self.body)
        )
    }
}

/// Parses one response at the start of `buf`: `Ok(None)` if incomplete, else the response
/// and the bytes it used. `no_body` is for answers to HEAD.
pub fn parse_response(buf: &[u8], no_body: bool) -> Result<Option<(Response, usize)>, String> {
    let mut slots = [httparse::EMPTY_HEADER; 64];
    let mut parsed = httparse::Response::new(&mut slots);
    let head_len = match parsed.parse(buf) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(e) => {
            return Err(format!(
                "malformed response ({e}): {:?}",
                String::from_utf8_lossy(buf)
            ));
        }
    };
    let status = parsed.code.unwrap_or_default();
    let headers: Vec<(String, Vec<u8>)> = parsed
        .headers
        .iter()
        .map(|h| (h.name.to_ascii_lowercase(), h.value.to_vec()))
        .collect();
    let length = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| std::str::from_utf8(v).ok()?.parse::<usize>().ok());
    let body_len = match (status, no_body, length) {
        (100..=199, _, _) | (_, true, _) => 0,
        (_, false, Some(n)) => n,
        (_, false, None) => return Err(format!("status {status} without Content-Length")),
    };
    if buf.len() < head_len + body_len {
        return Ok(None);
    }
    let body = buf[head_len..head_len + body_len].to_vec();
    Ok(Some((
        Response {
            status,
            headers,
            body,
        },
        head_len + body_len,
    )))
}

/// A client connection with its unparsed input.
pub struct Conn {
    stream: Wire,
    pending: Vec<u8>,
}

/// A connection the caller opened (and perhaps wrote to) itself, as [`Endpoint::try_connect`]
/// returns it.
impl From<Wire> for Conn {
    fn from(stream: Wire) -> Conn {
        Conn {
            stream,
            pending: Vec::new(),
        }
    }
}

impl Conn {
    /// A connection to `to` (a `SocketAddr` or an [`Endpoint`]), its TLS handshake done
    /// where the endpoint speaks TLS; panics if the server is not there.
    pub fn connect(to: impl Into<Endpoint>) -> Conn {
        Conn {
            stream: to.into().connect(),
            pending: Vec::new(),
        }
    }

    /// The TLS session, over TLS: what was negotiated.
    pub fn session(&self) -> Option<&rustls::ClientConnection> {
        self.stream.session()
    }

    /// The TCP socket (under TLS, the one its records travel on).
    pub fn stream(&self) -> &TcpStream {
        self.stream.tcp()
    }

    /// The connection itself, to write to in ways [`Conn::send`] does not (TLS records
    /// cut by hand).
    pub fn wire_mut(&mut self) -> &mut Wire {
        &mut self.stream
    }

    /// Writes all of `bytes` (over TLS, as records sent at once); an error (the server
    /// closed early) is returned, not a panic.
    pub fn send(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.stream.write_all(bytes)?;
        self.stream.flush()
    }

    /// Reads the next response, waiting at most `ANSWER_TIMEOUT`.
    pub fn response(&mut self, no_body: bool) -> Result<Response, String> {
        self.response_within_limit(ANSWER_TIMEOUT, no_body)
    }

    /// Reads the next response (not to HEAD), waiting at most `limit`.
    pub fn response_within(&mut self, limit: Duration) -> Result<Response, String> {
        self.response_within_limit(limit, false)
    }

    fn response_within_limit(&mut self, limit: Duration, no_body: bool) -> Result<Response, String> {
        let deadline = Instant::now() + limit;
        loop {
            if let Some((response, used)) = parse_response(&self.pending, no_body)? {
                self.pending.drain(..used);
                return Ok(response);
            }
            match self.fill(deadline)? {
                0 => {
                    return Err(format!(
                        "connection closed after {} unparsed bytes",
                        self.pending.len()
                    ));
                }
                _ => continue,
            }
        }
    }

    /// Expects the server to close a connection it gave up on (a timeout): as
    /// [`Conn::expect_close`], but over TLS an end without `close_notify` counts too, as
    /// nginx ends a timed-out connection (a quiet shutdown: the peer has stopped talking).
    pub fn expect_abandoned(&mut self, limit: Duration) -> Result<(), String> {
        match self.expect_close(limit) {
            Err(e) if e.contains(WITHOUT_CLOSE_NOTIFY) && self.pending.is_empty() => Ok(()),
            Err(e) if e.contains("reset") && self.pending.is_empty() => Ok(()),
            result => result,
        }
    }

    /// Expects the server to close: EOF (or a reset) within `limit`, with no more data;
    /// over TLS, EOF after the server's `close_notify`.
    pub fn expect_close(&mut self, limit: Duration) -> Result<(), String> {
        let rest = self.drain_for(limit)?;
        if rest.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "unexpected bytes before close: {:?}",
                String::from_utf8_lossy(&rest)
            ))
        }
    }

    /// Reads until the server closes (EOF or a reset; over TLS, only EOF after its
    /// `close_notify`), for at most `limit`, and returns every byte received; a server
    /// still sending or silent at `limit` is an error.
    pub fn drain_for(&mut self, limit: Duration) -> Result<Vec<u8>, String> {
        let deadline = Instant::now() + limit;
        loop {
            match self.fill(deadline) {
                Ok(0) => break,
                Ok(_) => continue,
                Err(e) if e.contains("reset") && !matches!(self.stream, Wire::Tls(_)) => break,
                Err(e) => return Err(format!("{e} ({} bytes received)", self.pending.len())),
            }
        }
        Ok(std::mem::take(&mut self.pending))
    }

    /// Reads once into `pending`; returns the byte count (0 at EOF).
    fn fill(&mut self, deadline: Instant) -> Result<usize, String> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err("timed out waiting for the server".into());
        }
        self.stream
            .tcp()
            .set_read_timeout(Some(left))
            .expect("set_read_timeout");
        let mut chunk = [0u8; 16 * 1024];
        match self.stream.read(&mut chunk) {
            Ok(n) => {
                self.pending.extend_from_slice(&chunk[..n]);
                Ok(n)
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                Err("timed out waiting for the server".into())
            }
            Err(e) if e.kind() == ErrorKind::ConnectionReset => Err("connection reset".into()),
            Err(e) if e.kind() == ErrorKind::UnexpectedEof => Err(WITHOUT_CLOSE_NOTIFY.into()),
            Err(e) => Err(format!("read failed: {e}")),
        }
    }
}

/// One `GET /` on a new connection; `Ok` only for a 200 with the hello body.
pub fn probe(to: impl Into<Endpoint>) -> Result<(), String> {
    let mut conn = Conn::connect(to);
    conn.send(b"GET / HTTP/1.1\r\nHost: probe\r\n\r\n")
        .map_err(|e| e.to_string())?;
    let response = conn.response(false)?;
    match (response.status, response.body.as_slice()) {
        (200, http_core::routes::HELLO) => Ok(()),
        _ => Err(format!("probe got {}", response.normalized())),
    }
}

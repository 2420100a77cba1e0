//! Reading a client's answers: one complete, valid response at a time off its
//! connection (status, length and, with `--check-body`, the body checked), given up at
//! the run's patience (its end plus a grace).

use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;
use tokio::time::Instant;

use crate::config::Config;
use crate::errors::{ErrorKind, Failure};
use crate::response::{Frame, frame};

/// A Content-Length body must equal `expected`; a chunked one is checked by length only.
fn check_body(body: &[u8], expected: Option<&[u8]>) -> Result<(), String> {
    match expected {
        Some(expected) if body != expected => {
            let at = body.iter().zip(expected).position(|(a, b)| a != b);
            Err(format!(
                "body differs from the expected {} bytes (got {}; first difference at {at:?})",
                expected.len(),
                body.len()
            ))
        }
        _ => Ok(()),
    }
}

/// Reads until one complete, valid response is at the front of `buffer`, and drops it.
pub(crate) async fn read_response(
    stream: &mut TcpStream,
    buffer: &mut Vec<u8>,
    config: &Config,
    patience: Instant,
) -> Result<(), Failure> {
    loop {
        let framed = frame(buffer).map_err(|e| Failure::new(ErrorKind::Body, e))?;
        if let Frame::Complete {
            status,
            len,
            body_len,
            chunked,
        } = framed
        {
            config.expect().check(status, body_len)?;
            if !chunked {
                check_body(&buffer[len - body_len..len], config.expect_body.as_deref())
                    .map_err(|e| Failure::new(ErrorKind::Body, e))?;
            }
            buffer.drain(..len);
            return Ok(());
        }
        if read_some(stream, buffer, patience).await? == 0 {
            return Err(Failure::new(ErrorKind::Read, "the server closed the connection"));
        }
    }
}

/// Appends what one read brings to `buffer`; 0 at the end of the stream.
pub(crate) async fn read_some(
    stream: &mut TcpStream,
    buffer: &mut Vec<u8>,
    patience: Instant,
) -> Result<usize, Failure> {
    let mut chunk = [0u8; 16 * 1024];
    match tokio::time::timeout_at(patience, stream.read(&mut chunk)).await {
        Ok(Ok(n)) => {
            buffer.extend_from_slice(&chunk[..n]);
            Ok(n)
        }
        Ok(Err(e)) => Err(Failure::new(ErrorKind::Read, format!("read: {e}"))),
        Err(_) => Err(Failure::new(
            ErrorKind::Timeout,
            "no response within 5 s after the run's end",
        )),
    }
}

//! Reading a client's answers: one complete, valid response at a time off its
//! connection (status, length and, with `--check-body`, the body checked; in the file
//! mode, the body of the file asked for), given up at the run's patience (its end plus a
//! grace).

use tokio::io::AsyncReadExt;
use tokio::time::Instant;

use crate::config::Config;
use crate::errors::{ErrorKind, Failure};
use crate::response::{Frame, frame};
use crate::tls::Stream;

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

/// The body a response must carry: the file's when `file` names the one asked for (with
/// Content-Length: a file answer is never chunked), else `expected` as [`check_body`] says.
fn check_answer(config: &Config, file: Option<usize>, body: &[u8], chunked: bool) -> Result<(), String> {
    match (&config.files, file) {
        (Some(_), Some(_)) if chunked => Err("a file answer without Content-Length".into()),
        (Some(files), Some(index)) => files.check(index, body),
        _ if chunked => Ok(()),
        _ => check_body(body, config.expect_body.as_deref()),
    }
}

/// Reads until one complete, valid response is at the front of `buffer`, and drops it;
/// `file` is the corpus file asked for in the file mode.
pub(crate) async fn read_response(
    stream: &mut Stream,
    buffer: &mut Vec<u8>,
    (config, file): (&Config, Option<usize>),
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
            check_answer(config, file, &buffer[len - body_len..len], chunked)
                .map_err(|e| Failure::new(ErrorKind::Body, e))?;
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
    stream: &mut Stream,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::Files;

    #[test]
    fn a_file_answer_is_checked_against_the_file_asked_for() {
        let files = Files::by_label("4k", 1).unwrap();
        let config = Config {
            files: Some(files.clone()),
            ..Config::new(
                "127.0.0.1:9".parse().unwrap(),
                b"GET /files/ HTTP/1.1\r\n\r\n".to_vec(),
            )
        };
        assert_eq!(config.expect().body_len, Some(4096));
        assert_eq!(check_answer(&config, Some(3), &files.body(3), false), Ok(()));
        assert!(check_answer(&config, Some(4), &files.body(3), false).is_err());
        assert!(
            check_answer(&config, Some(3), &files.body(3), true).is_err(),
            "chunked"
        );
        let plain = Config {
            expect_body: Some(b"abc".to_vec()),
            files: None,
            ..config
        };
        assert_eq!(check_answer(&plain, None, b"abc", false), Ok(()));
        assert!(check_answer(&plain, None, b"abd", false).is_err());
        assert_eq!(
            check_answer(&plain, None, b"abd", true),
            Ok(()),
            "chunked: by length only"
        );
    }
}

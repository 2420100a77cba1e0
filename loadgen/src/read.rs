//! Reading a client's answers: one complete, valid response at a time off its
//! connection (status, length and, with `--check-body`, the body checked; in the file
//! mode, the body of the file asked for). Reads carry no timer of their own: a caller
//! gives up its whole exchange at the run's patience (its end plus a grace), so a request
//! costs no timer-wheel entry. A read with nothing pending lands in the thread's one
//! buffer ([`crate::scratch`]); what it brings past the answer's end (the start of the
//! next one) is kept in the connection's [`Inbox`] and framed first by the next read.
//! Only after a partial line (of a head, a chunk size or a trailer) does a read land in
//! the inbox, behind those bytes, with a small room: what follows is consumed from there
//! and the next read goes to the thread's buffer again. A [`Framer`] frames each response
//! once and checks its body in place as it arrives, and the consumed bytes are dropped by
//! moving an offset (a partial line left over is moved to the front before the next read,
//! never a body).

use tokio::io::AsyncReadExt;
use tokio::time::Instant;

use crate::config::Config;
use crate::errors::{ErrorKind, Failure};
use crate::framer::{Framer, Reference, Step};
use crate::scratch::read_and_feed;
use crate::tls::Stream;

/// The room a read into a connection's own buffer is given: enough for a partial line and
/// what follows it, while a body's bulk goes through the thread's buffer.
const INBOX_READ: usize = 16 * 1024;

/// A connection's received bytes: `buffer[start..]` are not consumed yet.
#[derive(Debug, Default)]
pub(crate) struct Inbox {
    buffer: Vec<u8>,
    start: usize,
}

impl Inbox {
    /// The bytes received and not consumed yet.
    pub(crate) fn pending(&self) -> &[u8] {
        &self.buffer[self.start..]
    }

    /// Holds `bytes` (what a read into the thread's buffer left unconsumed) as the
    /// pending bytes, in place of none ([`crate::scratch`]).
    pub(crate) fn keep(&mut self, bytes: &[u8]) {
        debug_assert!(self.pending().is_empty());
        self.buffer.clear();
        self.start = 0;
        self.buffer.extend_from_slice(bytes);
    }

    /// Appends what one read brings, into [`INBOX_READ`] bytes of room; 0 at the end of
    /// the stream. The pending bytes are moved to the front first: when a read is needed
    /// they are only a partial line of a head, a chunk size or a trailer (bodies are
    /// consumed as they arrive).
    async fn read(&mut self, stream: &mut Stream) -> Result<usize, Failure> {
        if self.start > 0 {
            self.buffer.copy_within(self.start.., 0);
            self.buffer.truncate(self.buffer.len() - self.start);
            self.start = 0;
        }
        self.buffer.reserve(INBOX_READ);
        stream.read_buf(&mut self.buffer).await.map_err(read_failed)
    }

    /// After the last answer, on a connection the server closes: how many bytes came
    /// after it (those pending, else what one read brings, into a small buffer of its
    /// own, not the inbox's); 0 when the stream ended cleanly.
    pub(crate) async fn bytes_before_the_end(&mut self, stream: &mut Stream) -> Result<usize, Failure> {
        if !self.pending().is_empty() {
            return Ok(self.pending().len());
        }
        let mut after = [0; 64];
        stream.read(&mut after).await.map_err(read_failed)
    }
}

fn read_failed(e: std::io::Error) -> Failure {
    Failure::new(ErrorKind::Read, format!("read: {e}"))
}

/// Runs `exchange` until `patience`, when it fails with [`ErrorKind::Timeout`]: one timer
/// for a whole connection's (or run's) reads, not one per read.
pub(crate) async fn within<T>(
    patience: Instant,
    exchange: impl Future<Output = Result<T, Failure>>,
) -> Result<T, Failure> {
    tokio::time::timeout_at(patience, exchange)
        .await
        .unwrap_or_else(|_| {
            let message = "no response within 5 s after the run's end";
            Err(Failure::new(ErrorKind::Timeout, message))
        })
}

/// Reads until one complete, valid response has been consumed from `inbox`; `file` is the
/// corpus file asked for in the file mode.
pub(crate) async fn read_response(
    stream: &mut Stream,
    inbox: &mut Inbox,
    (config, file): (&Config, Option<usize>),
) -> Result<(), Failure> {
    let mut framer = Framer::new(config.expect(), Reference::of(config, file));
    loop {
        let (used, step) = framer.feed(inbox.pending())?;
        inbox.start += used;
        if step == Step::Done {
            return Ok(());
        }
        // With nothing pending, the read lands in the thread's buffer; after a partial
        // line, in the inbox behind it.
        if inbox.pending().is_empty() {
            if read_and_feed(stream, &mut framer, |rest| inbox.keep(rest)).await? == Step::Done {
                return Ok(());
            }
        } else if inbox.read(stream).await? == 0 {
            return Err(Failure::new(ErrorKind::Read, "the server closed the connection"));
        }
    }
}

#[cfg(test)]
#[path = "read_tests.rs"]
mod tests;

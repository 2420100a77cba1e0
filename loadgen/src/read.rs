//! Reading a client's answers: one complete, valid response at a time off its
//! connection (status, length and, with `--check-body`, the body checked; in the file
//! mode, the body of the file asked for). Reads carry no timer of their own: a caller
//! gives up its whole exchange at the run's patience (its end plus a grace), so a request
//! costs no timer-wheel entry. A read with nothing pending lands in the thread's one
//! buffer ([`crate::scratch`]); after a partial head it lands in the connection's
//! [`Inbox`], as much as the socket offers up to its room.
//! A [`Framer`] frames each response once and checks its body in place as it arrives,
//! and the consumed bytes are dropped by moving an offset (the rare partial head left
//! over is moved to the front before the next read, never a body).

use tokio::io::AsyncReadExt;
use tokio::time::Instant;

use crate::config::Config;
use crate::errors::{ErrorKind, Failure};
use crate::framer::{Framer, Reference, Step};
use crate::scratch::{MAX_READ, read_and_feed};
use crate::tls::Stream;

/// The room a read into a connection's own buffer is given at least (at most, the
/// thread's buffer's size, [`MAX_READ`]).
pub(crate) const MIN_READ: usize = 16 * 1024;

/// A connection's received bytes: `buffer[start..]` are not consumed yet.
#[derive(Debug, Default)]
pub(crate) struct Inbox {
    buffer: Vec<u8>,
    start: usize,
    /// The last response's length: the room a read for the next one's head starts with.
    last: usize,
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

    /// Appends what one read brings, into room for `want` bytes (clamped to
    /// `MIN_READ..=MAX_READ`, and at least what the buffer already holds); 0 at the end
    /// of the stream. The pending bytes are moved to the front first: when a read is
    /// needed they are only a response's partial head or chunk line (bodies are consumed
    /// as they arrive), usually none.
    pub(crate) async fn read(&mut self, stream: &mut Stream, want: usize) -> Result<usize, Failure> {
        if self.start > 0 {
            self.buffer.copy_within(self.start.., 0);
            self.buffer.truncate(self.buffer.len() - self.start);
            self.start = 0;
        }
        self.buffer.reserve(want.clamp(MIN_READ, MAX_READ));
        stream
            .read_buf(&mut self.buffer)
            .await
            .map_err(|e| Failure::new(ErrorKind::Read, format!("read: {e}")))
    }
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
        let (used, mut step) = framer.feed(inbox.pending())?;
        inbox.start += used;
        // With nothing pending, the read lands in the thread's buffer.
        if step != Step::Done && inbox.pending().is_empty() {
            step = read_and_feed(stream, &mut framer, |rest| inbox.keep(rest)).await?;
            if step != Step::Done {
                continue;
            }
        }
        let want = match step {
            Step::Done => {
                inbox.last = framer.consumed();
                return Ok(());
            }
            Step::More(0) => inbox.last.max(framer.consumed()),
            Step::More(want) => want,
        };
        if inbox.read(stream, want).await? == 0 {
            return Err(Failure::new(ErrorKind::Read, "the server closed the connection"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt;
    use tokio::net::{TcpListener, TcpStream};
    use tokio::time::Duration;

    /// Two 1 MiB answers and a third with one wrong byte, written back to back over a real
    /// socket in pieces of odd sizes: each is read, framed once and checked as it arrives,
    /// in a buffer that never grows to hold a body.
    #[test]
    fn large_answers_arriving_in_pieces_are_checked_in_a_small_buffer() {
        let body: Vec<u8> = (0..1 << 20).map(http_core::routes::pattern_byte).collect();
        let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", body.len());
        let answer = [head.as_bytes(), &body].concat();
        let mut wrong = answer.clone();
        wrong[head.len() + 777_777] ^= 1;
        let stream = [answer.clone(), answer, wrong].concat();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let writer = tokio::spawn(async move {
                let (mut socket, _) = listener.accept().await.unwrap();
                let mut rest = stream.as_slice();
                for size in [1, 7, 30, 100, 65_539].into_iter().cycle() {
                    let (piece, after) = rest.split_at(size.min(rest.len()));
                    socket.write_all(piece).await.unwrap();
                    tokio::task::yield_now().await;
                    rest = after;
                    if rest.is_empty() {
                        return;
                    }
                }
            });
            let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
            let mut stream = Stream::Left(tcp);
            let config = Config {
                expect_body: Some(body),
                ..Config::new(addr, Vec::new())
            };
            let patience = Instant::now() + std::time::Duration::from_secs(10);
            let mut inbox = Inbox::default();
            for _ in 0..2 {
                let read = within(patience, read_response(&mut stream, &mut inbox, (&config, None))).await;
                assert_eq!(read, Ok(()));
                assert!(
                    inbox.buffer.capacity() <= 2 * MAX_READ,
                    "{}",
                    inbox.buffer.capacity()
                );
            }
            let failure = within(patience, read_response(&mut stream, &mut inbox, (&config, None)))
                .await
                .unwrap_err();
            assert!(
                failure.message.contains("first difference at Some(777777)"),
                "{}",
                failure.message
            );
            writer.await.unwrap();
        });
    }

    /// Two connections of one thread read 1 MiB answers at once, their pieces interleaved,
    /// through the thread's one buffer: each answer is checked against the right body, and
    /// a wrong byte in the second connection's second answer fails that read alone.
    #[test]
    fn connections_sharing_the_threads_buffer_each_check_their_own_answers() {
        let body: Vec<u8> = (0..1 << 20).map(http_core::routes::pattern_byte).collect();
        let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", body.len());
        let answer = [head.as_bytes(), &body].concat();
        let mut wrong = answer.clone();
        wrong[head.len() + 500_001] ^= 1;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let (first, second) = (
                TcpStream::connect(addr).await.unwrap(),
                TcpStream::connect(addr).await.unwrap(),
            );
            let (mut one, _) = listener.accept().await.unwrap();
            let (mut two, _) = listener.accept().await.unwrap();
            let streams = [
                [answer.clone(), answer.clone()].concat(),
                [answer, wrong].concat(),
            ];
            let writer = tokio::spawn(async move {
                // Pieces of both streams in turn, so that the two readers' reads interleave.
                let [a, b] = streams;
                for start in (0..a.len()).step_by(40_000) {
                    let end = (start + 40_000).min(a.len());
                    one.write_all(&a[start..end]).await.unwrap();
                    // The second reader stops at the wrong byte and closes its end.
                    let _ = two.write_all(&b[start..end]).await;
                    tokio::task::yield_now().await;
                }
            });
            let config = Config {
                expect_body: Some(body),
                ..Config::new(addr, Vec::new())
            };
            let patience = Instant::now() + Duration::from_secs(10);
            let read_two = |stream: TcpStream| {
                let config = &config;
                async move {
                    let (mut stream, mut inbox) = (Stream::Left(stream), Inbox::default());
                    let mut answers = Vec::new();
                    for _ in 0..2 {
                        let read = read_response(&mut stream, &mut inbox, (config, None));
                        answers.push(within(patience, read).await);
                    }
                    answers
                }
            };
            let (first, second) = tokio::join!(read_two(first), read_two(second));
            writer.await.unwrap();
            assert_eq!(first, [Ok(()), Ok(())]);
            assert_eq!(second[0], Ok(()));
            let failure = second[1].clone().unwrap_err();
            assert!(
                failure.message.contains("first difference at Some(500001)"),
                "{}",
                failure.message
            );
        });
    }
}

//! Reading a client's answers: one complete, valid response at a time off its
//! connection (status, length and, with `--check-body`, the body checked; in the file
//! mode, the body of the file asked for). Reads carry no timer of their own: a caller
//! gives up its whole exchange at the run's patience (its end plus a grace), so a request
//! costs no timer-wheel entry. A read with nothing pending lands in the thread's one
//! buffer ([`crate::scratch`]); only after a partial head or chunk line does it land in
//! the connection's [`Inbox`], behind those bytes, with a small room: the body that
//! follows is consumed from there and the next read goes to the thread's buffer again.
//! A [`Framer`] frames each response once and checks its body in place as it arrives,
//! and the consumed bytes are dropped by moving an offset (the rare partial head left
//! over is moved to the front before the next read, never a body).

use tokio::io::AsyncReadExt;
use tokio::time::Instant;

use crate::config::Config;
use crate::errors::{ErrorKind, Failure};
use crate::framer::{Framer, Reference, Step};
use crate::scratch::read_and_feed;
use crate::tls::Stream;

/// The room a read into a connection's own buffer is given: enough for a partial head or
/// chunk line and what follows it, while a body's bulk goes through the thread's buffer.
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
    /// they are only a response's partial head or chunk line (bodies are consumed as they
    /// arrive).
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
        // head or chunk line, in the inbox behind it.
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
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt;
    use tokio::net::{TcpListener, TcpStream};
    use tokio::time::Duration;

    /// A 1 MiB answer of the shared pattern, and where its body starts.
    fn answer() -> (Vec<u8>, Vec<u8>, usize) {
        let body: Vec<u8> = (0..1 << 20).map(http_core::routes::pattern_byte).collect();
        let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", body.len());
        let answer = [head.as_bytes(), &body].concat();
        (body, answer, head.len())
    }

    fn block_on<F: Future>(test: F) -> F::Output {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build();
        runtime.unwrap().block_on(test)
    }

    /// Writes `bytes` in pieces of `sizes` in turn, letting other tasks run after each;
    /// stops quietly when the reader has closed its end.
    async fn write_in_pieces(mut socket: TcpStream, mut bytes: &[u8], sizes: &[usize]) {
        for &size in sizes.iter().cycle() {
            let (piece, rest) = bytes.split_at(size.min(bytes.len()));
            if piece.is_empty() || socket.write_all(piece).await.is_err() {
                return;
            }
            tokio::task::yield_now().await;
            bytes = rest;
        }
    }

    /// The inbox holds at most a partial head and one small read behind it, never a body.
    fn assert_small(inbox: &Inbox) {
        let held = inbox.buffer.capacity();
        assert!(held <= 4 * INBOX_READ, "the inbox grew to {held} bytes");
    }

    /// Two 1 MiB answers and a third with one wrong byte, written back to back over a real
    /// socket in pieces of odd sizes (heads split anywhere): each is read, framed once and
    /// checked as it arrives, and the connection's inbox never grows to hold a body.
    #[test]
    fn large_answers_arriving_in_pieces_are_checked_in_a_small_buffer() {
        let (body, answer, body_start) = answer();
        let mut wrong = answer.clone();
        wrong[body_start + 777_777] ^= 1;
        let stream = [answer.clone(), answer, wrong].concat();
        block_on(async move {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let writer = tokio::spawn(async move {
                let (socket, _) = listener.accept().await.unwrap();
                write_in_pieces(socket, &stream, &[1, 7, 30, 100, 65_539]).await;
            });
            let mut stream = Stream::Left(TcpStream::connect(addr).await.unwrap());
            let config = Config {
                expect_body: Some(body),
                ..Config::new(addr, Vec::new())
            };
            let patience = Instant::now() + Duration::from_secs(10);
            let mut inbox = Inbox::default();
            for _ in 0..2 {
                let read = within(patience, read_response(&mut stream, &mut inbox, (&config, None))).await;
                assert_eq!(read, Ok(()));
                assert_small(&inbox);
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

    /// Two connections of one thread read 1 MiB answers at once, in pieces of different
    /// sizes (one connection's heads split), their reads interleaved through the thread's
    /// one buffer: each answer is checked against the right body, a wrong byte in the
    /// second connection's second answer fails that read alone, and neither inbox grows.
    #[test]
    fn connections_sharing_the_threads_buffer_each_check_their_own_answers() {
        let (body, answer, body_start) = answer();
        let mut wrong = answer.clone();
        wrong[body_start + 500_001] ^= 1;
        block_on(async move {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let (first, second) = (
                TcpStream::connect(addr).await.unwrap(),
                TcpStream::connect(addr).await.unwrap(),
            );
            let (one, _) = listener.accept().await.unwrap();
            let (two, _) = listener.accept().await.unwrap();
            let (a, b) = (
                [answer.clone(), answer.clone()].concat(),
                [answer, wrong].concat(),
            );
            let writers = tokio::spawn(async move {
                tokio::join!(
                    write_in_pieces(one, &a, &[40_000]),
                    write_in_pieces(two, &b, &[3, 65_539, 17, 9_000])
                )
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
                        assert_small(&inbox);
                    }
                    answers
                }
            };
            let (first, second) = tokio::join!(read_two(first), read_two(second));
            writers.await.unwrap();
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

//! One read buffer per thread for answers: a read lands in it (over TLS, the decrypted
//! bytes), the
//! [`Framer`] checks what it can straight out of it, and only what is left (a partial
//! head, or the start of the next pipelined answer) is kept in the connection's own
//! [`Inbox`]. A 1 MiB body so passes through the same warm 256 KiB on every connection of
//! the thread, instead of each connection growing (and first touching) a buffer of its
//! own. Each read and its check run without an `.await` between them, so the thread's
//! tasks, which take turns on one thread, never share the buffer at once.

use std::cell::RefCell;
use std::future::poll_fn;
use std::pin::Pin;
use std::task::Poll;

use tokio::io::{AsyncRead, ReadBuf};

use crate::errors::{ErrorKind, Failure};
use crate::framer::{Framer, Step};
use crate::read::{Inbox, MAX_READ};
use crate::tls::Stream;

thread_local! {
    /// The thread's read buffer, allocated at its first read.
    static SCRATCH: RefCell<Box<[u8]>> = RefCell::new(vec![0; MAX_READ].into_boxed_slice());
}

/// Reads what `stream` offers into the thread's buffer (waiting until it offers some) and
/// feeds it to `framer`; what the framer leaves goes to `inbox`, which must hold nothing
/// pending. Returns the framer's step: [`Step::Done`] once the answer is complete. The
/// read is tokio's own `poll_read`, borrowing the buffer for one poll at a time.
pub(crate) async fn read_and_feed(
    stream: &mut Stream,
    framer: &mut Framer<'_>,
    inbox: &mut Inbox,
) -> Result<Step, Failure> {
    let failed = |e: std::io::Error| Failure::new(ErrorKind::Read, format!("read: {e}"));
    poll_fn(|cx| {
        SCRATCH.with_borrow_mut(|scratch| {
            let mut buffer = ReadBuf::new(scratch);
            match Pin::new(&mut *stream).poll_read(cx, &mut buffer) {
                Poll::Pending => Poll::Pending,
                Poll::Ready(Err(e)) => Poll::Ready(Err(failed(e))),
                Poll::Ready(Ok(())) if buffer.filled().is_empty() => Poll::Ready(Err(Failure::new(
                    ErrorKind::Read,
                    "the server closed the connection",
                ))),
                Poll::Ready(Ok(())) => {
                    let read = buffer.filled();
                    Poll::Ready(framer.feed(read).map(|(used, step)| {
                        inbox.keep(&read[used..]);
                        step
                    }))
                }
            }
        })
    })
    .await
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncWriteExt;
    use tokio::net::{TcpListener, TcpStream};
    use tokio::time::{Duration, Instant};

    use crate::config::Config;
    use crate::read::{Inbox, read_response, within};
    use crate::tls::Stream;

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
                // Pieces of both streams in turn, so that both readers wait on each other.
                let [a, b] = streams;
                for (start, size) in (0..a.len()).step_by(40_000).map(|start| (start, 40_000)) {
                    one.write_all(&a[start..(start + size).min(a.len())])
                        .await
                        .unwrap();
                    // The second reader stops at the wrong byte and closes its end.
                    let _ = two.write_all(&b[start..(start + size).min(b.len())]).await;
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

//! One read buffer per thread for answers: a read lands in it (over TLS, the decrypted
//! bytes), the [`Framer`] checks what it can straight out of it, and only what is left (a
//! partial head or chunk line, or the start of the next pipelined answer) is kept in the
//! connection's own [`Inbox`](crate::read::Inbox). A 1 MiB body so mostly passes through
//! the same warm 256 KiB on every connection of the thread, instead of each connection
//! growing (and first touching) a buffer of its own. Each read and its check run without
//! an `.await` between them, so the thread's tasks, which take turns on one thread, never
//! share the buffer at once.

use std::cell::RefCell;
use std::future::poll_fn;
use std::pin::Pin;
use std::task::Poll;

use tokio::io::{AsyncRead, ReadBuf};

use crate::errors::{ErrorKind, Failure};
use crate::framer::{Framer, Step};
use crate::tls::Stream;

/// The thread's buffer: a large body arrives in reads of up to this many bytes, each
/// checked, then the room used again.
pub(crate) const MAX_READ: usize = 256 * 1024;

thread_local! {
    /// The thread's read buffer, allocated at its first read.
    static SCRATCH: RefCell<Box<[u8]>> = RefCell::new(vec![0; MAX_READ].into_boxed_slice());
}

/// Reads what `stream` offers into the thread's buffer (waiting until it offers some) and
/// feeds it to `framer`; what the framer leaves (a partial head or chunk line, or the
/// start of the next pipelined answer) goes to `keep`. Returns the framer's step:
/// [`Step::Done`] once the answer is complete. The read is tokio's own `poll_read`,
/// borrowing the buffer for one poll at a time.
pub(crate) async fn read_and_feed(
    stream: &mut Stream,
    framer: &mut Framer<'_>,
    mut keep: impl FnMut(&[u8]),
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
                        keep(&read[used..]);
                        step
                    }))
                }
            }
        })
    })
    .await
}

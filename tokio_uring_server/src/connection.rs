//! One connection: the loop tokio_server's codec engine runs too
//! (`server_kit::exchange`), over tokio-uring's ownership-passing I/O: each read lends a
//! buffer to the runtime until it completes, then its bytes are appended to the input
//! (the buffer sized for what the loop offers the read, `server_kit::read_size`); each
//! write lends the output's owned bytes, or a static body, one segment at a time.

use std::io;
use std::mem;
use std::net::Shutdown;

use http_core::Output;
use http_core::output::Segment;
use server_kit::Settings;
use server_kit::exchange::Transport;
use server_kit::read_size;

use crate::files::UringFiles;
use tokio_uring::buf::BoundedBuf;
use tokio_uring::net::TcpStream;

pub async fn serve(stream: TcpStream, settings: Settings) {
    let mut transport = Uring {
        stream: &stream,
        buffer: Vec::new(),
    };
    server_kit::exchange::serve(&mut transport, &settings).await;
    // Dropping a tokio-uring future does not cancel its operation: a read still in flight
    // keeps the socket open until it completes. Shutting the socket down completes it, so
    // the descriptor really closes when the stream is dropped.
    let _ = stream.shutdown(Shutdown::Both);
}

/// The stream, and the buffer each read lends to the runtime while it is in flight (a
/// read dropped before it completes takes the buffer with it, and is never followed by
/// another).
struct Uring<'a> {
    stream: &'a TcpStream,
    buffer: Vec<u8>,
}

impl Uring<'_> {
    /// Reads into the buffer, sized for `reserve` bytes (uninitialised: the runtime
    /// reads into its capacity and extends its length over the bytes read).
    async fn read(&mut self, reserve: usize) -> io::Result<usize> {
        read_size::fit(&mut self.buffer, reserve);
        let (read, buffer) = self.stream.read(mem::take(&mut self.buffer)).await;
        self.buffer = buffer;
        read
    }
}

impl Transport for Uring<'_> {
    type Files = UringFiles;

    /// tokio-uring takes buffers by value, and reads into its own buffer that `receive`
    /// copies from: an echoed body is copied into the output as before.
    const LENDS_INPUT: bool = false;

    async fn receive(&mut self, input: &mut Vec<u8>, reserve: usize) -> io::Result<usize> {
        let n = self.read(reserve).await?;
        input.extend_from_slice(&self.buffer[..n]);
        Ok(n)
    }

    async fn send_all(&mut self, output: &mut Output) -> io::Result<()> {
        let segments: Vec<Segment> = output.segments().collect();
        let mut owned = mem::take(output.owned_mut());
        let mut written = Ok(());
        for segment in segments {
            written = match segment {
                Segment::Owned(range) => {
                    let (written, slice) = self.stream.write_all(owned.slice(range)).await;
                    owned = slice.into_inner();
                    written
                }
                Segment::Static(bytes) => self.stream.write_all(bytes).await.0,
                Segment::Adopted(_) => unreachable!("this transport does not lend its input"),
            };
            if written.is_err() {
                break;
            }
        }
        *output.owned_mut() = owned;
        written
    }

    async fn finish(&mut self) -> io::Result<()> {
        self.stream.shutdown(Shutdown::Write)
    }

    async fn discard(&mut self) -> io::Result<usize> {
        self.read(read_size::INITIAL).await
    }
}

#[cfg(test)]
mod tests {
    use std::os::fd::{AsRawFd, BorrowedFd};

    /// No setsockopt per connection: sockets accepted through tokio-uring (io_uring's
    /// accept) inherit TCP_NODELAY from the listener group, as `server_kit::listener` says.
    #[test]
    fn accepted_connections_have_tcp_nodelay() {
        let mut group = server_kit::listener::bind_group("127.0.0.1:0".parse().unwrap(), 1).unwrap();
        let listener = group.remove(0);
        let addr = listener.local_addr().unwrap();
        tokio_uring::start(async move {
            let listener = tokio_uring::net::TcpListener::from_std(listener);
            let _client = std::net::TcpStream::connect(addr).unwrap();
            let (stream, _) = listener.accept().await.unwrap();
            // SAFETY: the descriptor belongs to `stream`, which stays open for the whole
            // borrow; only a duplicate (its own descriptor) outlives the statement.
            let accepted = unsafe { BorrowedFd::borrow_raw(stream.as_raw_fd()) };
            let accepted = std::net::TcpStream::from(accepted.try_clone_to_owned().unwrap());
            assert!(accepted.nodelay().unwrap(), "TCP_NODELAY was not inherited");
        });
    }
}

//! tokio's streams as the shared loop's [`Transport`]: the TCP stream on epoll (reads land
//! straight in the input's spare capacity; a large file can go out by `sendfile(2)`), and
//! the same stream under TLS (tokio-rustls: rustls decrypts into the input and encrypts
//! the output into its own buffer before each write; finishing says `close_notify`, then
//! FIN). Both read, write and drain alike; only the file path and the close differ.

use std::io::{self, IoSlice};

use http_core::Output;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, Interest};
use tokio::net::TcpStream;
use tokio_rustls::server::TlsStream;

use crate::tokio_files::TokioFiles;
use crate::transport::Transport;

impl Transport for TcpStream {
    type Files = TokioFiles;
    const SENDFILE: bool = true;

    /// `sendfile(2)` on the non-blocking socket whenever it is writable, as an expert
    /// tokio user writes it (tokio has no sendfile of its own). It runs on the runtime's
    /// thread: a file not in the page cache blocks that thread on the disk, as nginx's
    /// sendfile (without its thread pool) does.
    async fn send_file(&mut self, file: &tokio::fs::File, offset: u64, len: u64) -> io::Result<()> {
        let (mut offset, end) = (offset, offset + len);
        while offset < end {
            self.writable().await?;
            let left = (end - offset) as usize;
            let sent = self.try_io(Interest::WRITABLE, || {
                Ok(rustix::fs::sendfile(&*self, file, Some(&mut offset), left)?)
            });
            match sent {
                Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    async fn receive(&mut self, input: &mut Vec<u8>, reserve: usize) -> io::Result<usize> {
        receive(self, input, reserve).await
    }

    async fn send_all(&mut self, output: &mut Output) -> io::Result<()> {
        send_all(self, output).await
    }

    async fn finish(&mut self) -> io::Result<()> {
        self.shutdown().await
    }

    async fn discard(&mut self) -> io::Result<usize> {
        discard(self).await
    }
}

/// HTTPS over tokio's stream. Shutting it down sends `close_notify`, then FIN.
impl Transport for TlsStream<TcpStream> {
    type Files = TokioFiles;

    async fn receive(&mut self, input: &mut Vec<u8>, reserve: usize) -> io::Result<usize> {
        receive(self, input, reserve).await
    }

    /// tokio-rustls takes bytes once rustls has encrypted them, whether or not the socket
    /// took them: the flush sends what is still queued, or the end of a response would
    /// wait for the next write.
    async fn send_all(&mut self, output: &mut Output) -> io::Result<()> {
        send_all(self, output).await?;
        self.flush().await
    }

    async fn goodbye(&mut self) {
        let _ = self.shutdown().await;
    }

    async fn finish(&mut self) -> io::Result<()> {
        self.shutdown().await
    }

    async fn discard(&mut self) -> io::Result<usize> {
        discard(self).await
    }
}

/// Appends what the peer sent next to `input`, into its spare capacity: at least
/// `reserve` bytes of it.
async fn receive<S: AsyncRead + Unpin>(
    stream: &mut S,
    input: &mut Vec<u8>,
    reserve: usize,
) -> io::Result<usize> {
    input.reserve(reserve);
    stream.read_buf(input).await
}

/// Writes every slice of `output`: one write for one slice, else vectored writes.
async fn send_all<S: AsyncWrite + Unpin>(stream: &mut S, output: &mut Output) -> io::Result<()> {
    let mut segments = output.slices();
    if let (Some(only), None) = (segments.next(), segments.next()) {
        // The common case, one response or a few small ones: no list to build.
        return stream.write_all(only).await;
    }
    let mut slices: Vec<IoSlice> = output.slices().map(IoSlice::new).collect();
    let mut unsent = &mut slices[..];
    while !unsent.is_empty() {
        match stream.write_vectored(unsent).await? {
            0 => return Err(io::ErrorKind::WriteZero.into()),
            n => IoSlice::advance_slices(&mut unsent, n),
        }
    }
    Ok(())
}

/// Reads and drops what the peer sent next.
async fn discard<S: AsyncRead + Unpin>(stream: &mut S) -> io::Result<usize> {
    // On the heap: an array here would sit in every connection's future, idle or not.
    let mut sink = vec![0u8; 4096];
    stream.read(&mut sink).await
}

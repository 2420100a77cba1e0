//! What a runtime supplies to the shared connection loop ([`crate::exchange`]): its
//! socket's I/O ([`Transport`]) and its file I/O ([`FileIo`], for `/files/{name}`, see
//! [`crate::file_reply`]).

use std::future::Future;
use std::io;
use std::path::Path;
use std::time::Duration;

use http_core::Output;

/// A connected socket's I/O as the loop needs it. A future dropped before it completes
/// (shutdown, timeout) is never followed by another call on the same transport.
pub trait Transport {
    /// The runtime's own file I/O, for `/files/{name}`.
    type Files: FileIo;
    /// `send_all` writes an echoed body from the input buffer it was read into, which the
    /// output adopts for the write ([`http_core::Lending`]); otherwise it is copied.
    const LENDS_INPUT: bool = true;
    /// Appends what the peer sent next to `input`, offering the read room for `reserve`
    /// bytes (the loop's [`crate::read_size::ReadSize`]; more where `input` already has
    /// it); `Ok(0)` at end of stream. A transport that reads into a buffer of its own
    /// sizes it with [`crate::read_size::fit`].
    fn receive(&mut self, input: &mut Vec<u8>, reserve: usize) -> impl Future<Output = io::Result<usize>>;
    /// Writes all of `output`, and leaves it as it was given.
    fn send_all(&mut self, output: &mut Output) -> impl Future<Output = io::Result<()>>;
    /// Sends FIN; over TLS, `close_notify` first.
    fn finish(&mut self) -> impl Future<Output = io::Result<()>>;
    /// Over TLS, says `close_notify` (then FIN) where a connection ends without the
    /// lingering close: the peer said it first, or the server shuts down between
    /// requests. Nothing over plain TCP, which just closes.
    fn goodbye(&mut self) -> impl Future<Output = ()> {
        std::future::ready(())
    }
    /// Reads and throws away what the peer sent next; `Ok(0)` at end of stream.
    fn discard(&mut self) -> impl Future<Output = io::Result<usize>>;
    /// The transport can hand a file's pages to its socket with `sendfile(2)`
    /// ([`Transport::send_file`]).
    const SENDFILE: bool = false;
    /// Sends `len` bytes of `file` from `offset` with `sendfile(2)`, waiting for the
    /// socket to take them. Called only where [`Transport::SENDFILE`] says it can.
    fn send_file(
        &mut self,
        file: &<Self::Files as FileIo>::File,
        offset: u64,
        len: u64,
    ) -> impl Future<Output = io::Result<()>> {
        let _ = (file, offset, len);
        std::future::ready(Err(io::ErrorKind::Unsupported.into()))
    }
    /// Sleeps `duration` on the transport's runtime timer; tokio's by default, which a
    /// transport on another runtime must override (tokio's timer panics outside tokio).
    fn sleep(duration: Duration) -> impl Future<Output = ()> {
        tokio::time::sleep(duration)
    }
}

/// A runtime's own file I/O. A future dropped before it completes (shutdown, timeout) is
/// never followed by another call on the same file.
pub trait FileIo {
    type File;
    /// Opens `path` read-only with [`OPEN_FLAGS`].
    fn open(path: &Path) -> impl Future<Output = io::Result<Self::File>>;
    /// Whether the opened file is a regular file, and its length.
    fn metadata(file: &Self::File) -> impl Future<Output = io::Result<(bool, u64)>>;
    /// Takes [`OPEN_FLAGS`]' `O_NONBLOCK` off a regular file once it is known to be one
    /// (with [`clear_nonblocking`] on its descriptor): on io_uring a read of a non-blocking
    /// file that would wait for the disk may fail with EAGAIN instead of waiting.
    fn let_reads_wait(file: &Self::File) -> io::Result<()>;
    /// Appends at most `len` bytes of the file, from `offset`, to `buffer`; `Ok(0)` at
    /// its end. Reads follow each other from offset 0, so a runtime whose files have a
    /// position may read from it instead.
    fn read(
        file: &mut Self::File,
        offset: u64,
        buffer: &mut Vec<u8>,
        len: usize,
    ) -> impl Future<Output = io::Result<usize>>;
}

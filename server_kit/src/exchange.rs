//! The one connection loop of the codec-driven servers (tokio_server's `codec` engine on
//! epoll; tokio_uring_server, monoio_server and compio_server on io_uring): read into a buffer, hand it to
//! http_core's codec, write every response it produced in one (vectored) write, a large
//! static body straight from its shared buffer and an echoed body from the buffer it was
//! read into, and close with a lingering drain. Each server supplies its socket's I/O (and
//! its runtime's timer) as a [`Transport`], so the HTTP work and the timeouts are the same
//! code on every I/O layer and runtime: tokio on epoll, tokio-uring, monoio and compio.

use std::future::Future;
use std::io::{self, IoSlice};
use std::time::Duration;

use http_core::{Codec, Output, Received};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::{Activity, Settings};

/// Bytes reserved for each read. Default is 16 KiB.
pub const READ_CHUNK: usize = 16 * 1024;

/// After the last response of a connection the server closes, it reads and discards what
/// the client still sends for at most this long, so the client sees the response and a
/// FIN rather than a reset (RFC 9112 section 9.6). Default is 1 second.
pub const LINGER: Duration = Duration::from_secs(1);

/// A connected socket's I/O as the loop needs it. A future dropped before it completes
/// (shutdown, timeout) is never followed by another call on the same transport.
pub trait Transport {
    /// `send_all` writes an echoed body from the input buffer it was read into, which the
    /// output adopts for the write ([`http_core::Lending`]); otherwise it is copied.
    const LENDS_INPUT: bool = true;
    /// Appends what the peer sent next to `input`; `Ok(0)` at end of stream.
    fn receive(&mut self, input: &mut Vec<u8>) -> impl Future<Output = io::Result<usize>>;
    /// Writes all of `output`, and leaves it as it was given.
    fn send_all(&mut self, output: &mut Output) -> impl Future<Output = io::Result<()>>;
    /// Sends FIN.
    fn finish(&mut self) -> impl Future<Output = io::Result<()>>;
    /// Reads and throws away what the peer sent next; `Ok(0)` at end of stream.
    fn discard(&mut self) -> impl Future<Output = io::Result<usize>>;
    /// Sleeps `duration` on the transport's runtime timer; tokio's by default, which a
    /// transport on another runtime must override (tokio's timer panics outside tokio).
    fn sleep(duration: Duration) -> impl Future<Output = ()> {
        tokio::time::sleep(duration)
    }
}

/// Serves one connection until either side closes, the codec says to close, the server
/// shuts down between requests, or the connection times out.
pub async fn serve<T: Transport>(transport: &mut T, settings: &Settings) {
    let activity = Activity::new();
    let watchdog = activity.clone();
    tokio::select! {
        _ = exchange(transport, settings, &activity) => {}
        _ = watchdog.expired((settings.request_timeout, settings.idle_timeout), T::sleep) => {}
    }
}

/// Reads, answers and writes until either side closes or the codec says to close.
async fn exchange<T: Transport>(transport: &mut T, settings: &Settings, activity: &Activity) {
    let mut codec = Codec::new(settings.limits);
    let mut input: Vec<u8> = Vec::with_capacity(READ_CHUNK);
    // An echoed body is sent from the buffer it was read into; that buffer then becomes
    // the next input's, so a connection echoing large bodies alternates two.
    let mut spare: Vec<u8> = Vec::new();
    let mut output = Output::default();
    loop {
        let read = tokio::select! {
            read = transport.receive(&mut input) => read,
            _ = settings.shutdown.cancelled(), if input.is_empty() => return,
        };
        match read {
            Ok(0) | Err(_) => return,
            Ok(_) => activity.touch(true),
        }
        let (outcome, kept_input) = codec.serve_lending(
            Received::Writable(&mut input),
            &mut output,
            usize::MAX,
            T::LENDS_INPUT,
        );
        if kept_input {
            let rest = std::mem::take(&mut spare);
            let answered = std::mem::replace(&mut input, rest);
            input.extend_from_slice(&answered[outcome.consumed..]);
            output.adopt(answered);
        } else {
            input.drain(..outcome.consumed);
        }
        if !output.is_empty() {
            if transport.send_all(&mut output).await.is_err() {
                return;
            }
            if let Some(mut answered) = output.reclaim() {
                answered.clear();
                spare = answered;
            }
        }
        activity.touch(!input.is_empty());
        if outcome.close {
            return linger_close(transport).await;
        }
        if settings.shutdown.is_cancelled() && input.is_empty() {
            return;
        }
    }
}

/// Sends FIN, then drains the client's remaining bytes briefly before closing.
pub async fn linger_close<T: Transport>(transport: &mut T) {
    if transport.finish().await.is_err() {
        return;
    }
    tokio::select! {
        _ = async { while let Ok(1..) = transport.discard().await {} } => {}
        _ = T::sleep(LINGER) => {}
    }
}

/// tokio's epoll-driven stream: reads land straight in the input's spare capacity.
impl Transport for TcpStream {
    async fn receive(&mut self, input: &mut Vec<u8>) -> io::Result<usize> {
        input.reserve(READ_CHUNK);
        self.read_buf(input).await
    }

    async fn send_all(&mut self, output: &mut Output) -> io::Result<()> {
        let mut segments = output.slices();
        if let (Some(only), None) = (segments.next(), segments.next()) {
            // The common case, one response or a few small ones: no list to build.
            return self.write_all(only).await;
        }
        let mut slices: Vec<IoSlice> = output.slices().map(IoSlice::new).collect();
        let mut unsent = &mut slices[..];
        while !unsent.is_empty() {
            match self.write_vectored(unsent).await? {
                0 => return Err(io::ErrorKind::WriteZero.into()),
                n => IoSlice::advance_slices(&mut unsent, n),
            }
        }
        Ok(())
    }

    async fn finish(&mut self) -> io::Result<()> {
        self.shutdown().await
    }

    async fn discard(&mut self) -> io::Result<usize> {
        // On the heap: an array here would sit in every connection's future, idle or not.
        let mut sink = vec![0u8; 4096];
        self.read(&mut sink).await
    }
}

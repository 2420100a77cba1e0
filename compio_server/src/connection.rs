//! One connection: the loop every codec-driven server runs (`server_kit::exchange`), over
//! compio's ownership-passing I/O: each read lends a buffer to the runtime until it
//! completes, then its bytes are appended to the input (the buffer sized for what the
//! loop offers the read, `server_kit::read_size`); each write lends the output's
//! owned bytes, or a static body, one segment at a time; the watchdog sleeps on compio's
//! timer. Over HTTPS the stream is compio's own TLS stream (compio-tls on rustls), after
//! a handshake bounded by the request timeout: the same loop reads and writes through it.

use std::io;
use std::mem;
use std::time::Duration;

use compio::BufResult;
use compio::buf::{IntoInner, IoBuf};
use compio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use compio::net::TcpStream;
use compio::tls::TlsAcceptor;
use http_core::Output;
use http_core::output::Segment;
use server_kit::Settings;
use server_kit::exchange::Transport;
use server_kit::read_size;

use crate::files::CompioFiles;

/// Serves one connection, over TLS where `tls` is given: a client that has not finished
/// its handshake within the request timeout, or when the server shuts down, is closed.
pub async fn serve(stream: TcpStream, settings: Settings, tls: Option<TlsAcceptor>) {
    let Some(acceptor) = tls else {
        return serve_over(stream, &settings, false).await;
    };
    let handshake = compio::time::timeout(settings.request_timeout, acceptor.accept(stream));
    let stream = tokio::select! {
        done = handshake => match done {
            Ok(Ok(stream)) => stream,
            Ok(Err(_)) | Err(_) => return,
        },
        _ = settings.shutdown.cancelled() => return,
    };
    serve_over(stream, &settings, true).await
}

async fn serve_over<S: AsyncRead + AsyncWrite>(stream: S, settings: &Settings, tls: bool) {
    let mut transport = Compio {
        stream,
        buffer: Vec::new(),
        tls,
    };
    server_kit::exchange::serve(&mut transport, settings).await;
}

/// The stream, and the buffer each read lends to the runtime while it is in flight (a
/// read dropped before it completes takes the buffer with it, and is never followed by
/// another).
struct Compio<S> {
    stream: S,
    buffer: Vec<u8>,
    /// The stream is TLS: [`Transport::goodbye`] says `close_notify`.
    tls: bool,
}

impl<S: AsyncRead> Compio<S> {
    /// Reads into the buffer, sized for `reserve` bytes (and replaced where an earlier
    /// read was dropped in flight and took it).
    async fn read(&mut self, reserve: usize) -> io::Result<usize> {
        read_size::fit(&mut self.buffer, reserve);
        let BufResult(read, buffer) = self.stream.read(mem::take(&mut self.buffer)).await;
        self.buffer = buffer;
        read
    }
}

impl<S: AsyncRead + AsyncWrite> Transport for Compio<S> {
    type Files = CompioFiles;

    /// compio takes buffers by value and reads into its own buffer, which `receive`
    /// copies from: an echoed body is copied into the output.
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
                    let BufResult(written, slice) = self.stream.write_all(owned.slice(range)).await;
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
        // compio's TLS stream encrypts into its own buffer and sends on flush (plain TCP
        // has nothing to flush).
        written?;
        self.stream.flush().await
    }

    /// FIN; over TLS, `close_notify` first.
    async fn finish(&mut self) -> io::Result<()> {
        self.stream.shutdown().await
    }

    async fn discard(&mut self) -> io::Result<usize> {
        self.read(read_size::INITIAL).await
    }

    async fn goodbye(&mut self) {
        if self.tls {
            let _ = self.stream.shutdown().await;
        }
    }

    fn sleep(duration: Duration) -> impl Future<Output = ()> {
        compio::time::sleep(duration)
    }
}

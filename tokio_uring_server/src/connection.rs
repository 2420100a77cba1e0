//! One connection: the loop tokio_server's codec engine runs too
//! (`server_kit::exchange`), over tokio-uring's ownership-passing I/O: each read lends a
//! buffer to the runtime until it completes, then its bytes are appended to the input.

use std::io;
use std::mem;
use std::net::Shutdown;

use server_kit::Settings;
use server_kit::exchange::{READ_CHUNK, Transport};
use tokio_uring::net::TcpStream;

pub async fn serve(stream: TcpStream, settings: Settings) {
    let mut transport = Uring {
        stream: &stream,
        buffer: vec![0u8; READ_CHUNK],
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
    async fn read(&mut self) -> io::Result<usize> {
        let (read, buffer) = self.stream.read(mem::take(&mut self.buffer)).await;
        self.buffer = buffer;
        read
    }
}

impl Transport for Uring<'_> {
    async fn receive(&mut self, input: &mut Vec<u8>) -> io::Result<usize> {
        let n = self.read().await?;
        input.extend_from_slice(&self.buffer[..n]);
        Ok(n)
    }

    async fn send_all(&mut self, output: &mut Vec<u8>) -> io::Result<()> {
        let (written, returned) = self.stream.write_all(mem::take(output)).await;
        *output = returned;
        written
    }

    async fn finish(&mut self) -> io::Result<()> {
        self.stream.shutdown(Shutdown::Write)
    }

    async fn discard(&mut self) -> io::Result<usize> {
        self.read().await
    }
}

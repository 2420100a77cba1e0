//! The `codec` engine: each connection reads into a buffer and hands it to http_core's
//! codec, then writes all the responses it produced in one write. This is tokio on epoll
//! doing exactly the HTTP work the io_uring server does.

use std::time::Duration;

use http_core::Codec;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::server::Settings;
use tokio_server::activity::Activity;

/// Bytes reserved for each read. Default is 16 KiB.
const READ_CHUNK: usize = 16 * 1024;

/// After the last response of a connection the server closes, it reads and discards what
/// the client still sends for at most this long, so the client sees the response and a
/// FIN rather than a reset (RFC 9112 section 9.6). Default is 1 second.
pub const LINGER: Duration = Duration::from_secs(1);

pub async fn serve(stream: TcpStream, settings: Settings) {
    let activity = Activity::new();
    let watchdog = activity.clone();
    tokio::select! {
        _ = exchange(stream, &settings, &activity) => {}
        _ = watchdog.expired(settings.request_timeout, settings.idle_timeout) => {}
    }
}

/// Reads, answers and writes until either side closes or the codec says to close.
async fn exchange(mut stream: TcpStream, settings: &Settings, activity: &Activity) {
    let mut codec = Codec::new(settings.limits);
    let mut input: Vec<u8> = Vec::with_capacity(READ_CHUNK);
    let mut output: Vec<u8> = Vec::with_capacity(READ_CHUNK);
    loop {
        input.reserve(READ_CHUNK);
        let read = tokio::select! {
            read = stream.read_buf(&mut input) => read,
            _ = settings.shutdown.cancelled(), if input.is_empty() => return,
        };
        match read {
            Ok(0) | Err(_) => return,
            Ok(_) => activity.touch(true),
        }
        let outcome = codec.serve(&input, &mut output);
        input.drain(..outcome.consumed);
        if !output.is_empty() {
            if stream.write_all(&output).await.is_err() {
                return;
            }
            output.clear();
        }
        activity.touch(!input.is_empty());
        if outcome.close {
            return linger_close(stream).await;
        }
        if settings.shutdown.is_cancelled() && input.is_empty() {
            return;
        }
    }
}

/// Sends FIN, then drains the client's remaining bytes briefly before closing.
async fn linger_close(mut stream: TcpStream) {
    if stream.shutdown().await.is_err() {
        return;
    }
    let mut sink = [0u8; 4096];
    let _ = tokio::time::timeout(LINGER, async {
        while let Ok(1..) = stream.read(&mut sink).await {}
    })
    .await;
}

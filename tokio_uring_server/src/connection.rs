//! One connection: read into a buffer the runtime owns while the read is in flight, hand
//! the bytes to http_core's codec, write every response it produced in one write. The
//! same loop as tokio_server's codec engine, in tokio-uring's ownership-passing style.

use std::net::Shutdown;
use std::time::Duration;

use http_core::Codec;
use tokio_server::activity::Activity;
use tokio_server::settings::Settings;
use tokio_uring::net::TcpStream;

/// Bytes per read. Default is 16 KiB.
const READ_CHUNK: usize = 16 * 1024;

/// After the last response of a connection the server closes, drain the client's input
/// for at most this long so it sees the response and a FIN, not a reset. Default is 1 s.
const LINGER: Duration = Duration::from_secs(1);

pub async fn serve(stream: TcpStream, settings: Settings) {
    if let Err(e) = stream.set_nodelay(true) {
        eprintln!("tokio_uring_server: TCP_NODELAY failed: {e}");
    }
    let activity = Activity::new();
    let watchdog = activity.clone();
    tokio::select! {
        _ = exchange(&stream, &settings, &activity) => {}
        _ = watchdog.expired(settings.request_timeout, settings.idle_timeout) => {}
    }
    // Dropping a tokio-uring future does not cancel its operation: a read still in flight
    // keeps the socket open until it completes. Shutting the socket down completes it, so
    // the descriptor really closes when the stream is dropped.
    let _ = stream.shutdown(Shutdown::Both);
}

/// Reads, answers and writes until either side closes or the codec says to close.
async fn exchange(stream: &TcpStream, settings: &Settings, activity: &Activity) {
    let mut codec = Codec::new(settings.limits);
    let mut input: Vec<u8> = Vec::with_capacity(READ_CHUNK);
    let mut output: Vec<u8> = Vec::with_capacity(READ_CHUNK);
    let mut buffer = vec![0u8; READ_CHUNK];
    loop {
        let (read, returned) = tokio::select! {
            read = stream.read(buffer) => read,
            _ = settings.shutdown.cancelled(), if input.is_empty() => return,
        };
        buffer = returned;
        match read {
            Ok(0) | Err(_) => return,
            Ok(n) => input.extend_from_slice(&buffer[..n]),
        }
        activity.touch(true);
        let outcome = codec.serve(&input, &mut output);
        input.drain(..outcome.consumed);
        if !output.is_empty() {
            let (written, returned) = stream.write_all(output).await;
            output = returned;
            if written.is_err() {
                return;
            }
            output.clear();
        }
        activity.touch(!input.is_empty());
        if outcome.close {
            return linger_close(stream, buffer).await;
        }
        if settings.shutdown.is_cancelled() && input.is_empty() {
            return;
        }
    }
}

/// Sends FIN, then drains the client's remaining bytes briefly before closing.
async fn linger_close(stream: &TcpStream, mut buffer: Vec<u8>) {
    if stream.shutdown(Shutdown::Write).is_err() {
        return;
    }
    let _ = tokio::time::timeout(LINGER, async {
        loop {
            let (read, returned) = stream.read(buffer).await;
            buffer = returned;
            if !matches!(read, Ok(1..)) {
                return;
            }
        }
    })
    .await;
}

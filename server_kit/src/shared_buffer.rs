//! The codec connection loop of tokio_server's `codec-shared` engine: the same HTTP work,
//! timeouts and lingering close as [`crate::exchange`], but an idle connection holds no
//! buffer. It waits for readiness (`readable()`), then reads with `try_read` into an input
//! buffer shared by every connection of its thread, lets the codec render into an output
//! buffer shared the same way, and writes with `try_write`. Only what does not finish
//! within that one step is copied into the connection's own buffers: the rest of a
//! partial request (received into directly until it is consumed, then freed) and the
//! part of the answer the socket did not take (written with `write_all`, then freed).
//! Each read takes at most what the connection's [`ReadSize`] says (more while reads fill
//! it, [`crate::read_size::INITIAL`] again between requests), however large another
//! connection grew the shared input. A step answers requests only until
//! [`OUTPUT_LIMIT`] bytes of answers wait; the complete requests after them are held
//! with the partial rest and answered, once the answers are written, before anything
//! more is read. So a client that pipelines and never reads holds at most one read of
//! requests and one limit of answers, until its timeout.
//!
//! Nothing awaits while the shared buffers are borrowed, so tasks that move between
//! threads (the multi-thread runtime) stay correct: each step uses its thread's buffers.
//! So a file request ends a step: its answer ([`crate::file_reply`], tokio's files) is
//! sent once the answers before it are, through a buffer of the connection's own, freed
//! after it; the requests after it are served from the held rest before reading again.

use std::cell::RefCell;
use std::io::ErrorKind;

use bytes::BufMut;
use http_core::files::FileRequest;
use http_core::limits::OUTPUT_LIMIT;
use http_core::{Codec, Output};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use crate::exchange::{Transport, linger_close};
use crate::file_reply;
use crate::read_size::ReadSize;
use crate::tokio_files::TokioFiles;
use crate::{Activity, Settings};

/// The buffers every connection of one thread reads into and renders into.
#[derive(Default)]
struct Shared {
    input: Vec<u8>,
    output: Vec<u8>,
}

thread_local! {
    static SHARED: RefCell<Shared> = RefCell::default();
}

/// What a connection keeps between readiness events: empty (unallocated) while idle.
#[derive(Default)]
struct Held {
    /// The received rest of a request not yet complete.
    partial: Vec<u8>,
    /// Answer bytes the socket did not take at once.
    unsent: Vec<u8>,
}

/// What one readiness event led to.
#[derive(Debug, PartialEq, Eq)]
enum Step {
    /// Nothing to read after all: wait for readiness again.
    Wait,
    /// End of stream or a socket error: the connection is over.
    End,
    /// Bytes were answered as far as they go, up to a `file` request if one was found
    /// (its answer is still to send) or up to the output limit (`more`: the held rest
    /// may hold complete requests); `close` as the codec said.
    Served {
        close: bool,
        file: Option<FileRequest>,
        more: bool,
    },
}

/// Serves one connection until either side closes, the codec says to close, the server
/// shuts down between requests, or the connection times out.
pub async fn serve(stream: &mut TcpStream, settings: &Settings) {
    let activity = Activity::new();
    let watchdog = activity.clone();
    tokio::select! {
        _ = exchange(stream, settings, &activity) => {}
        _ = watchdog.expired(settings.deadlines(), tokio::time::sleep) => {}
    }
}

async fn exchange(stream: &mut TcpStream, settings: &Settings, activity: &Activity) {
    let mut codec = Codec::new(settings.limits);
    let mut held = Held::default();
    let mut read_size = ReadSize::new();
    // After a file answer, or answers up to the output limit, the held rest may hold
    // complete requests: serve them first.
    let mut serve_held = false;
    loop {
        if !serve_held {
            if !mid_request(&held, &codec) {
                read_size.idle();
            }
            let ready = tokio::select! {
                ready = stream.readable() => ready,
                _ = settings.shutdown.cancelled(), if !mid_request(&held, &codec) => return,
            };
            if ready.is_err() {
                return;
            }
        }
        let read = (!serve_held).then_some(&mut read_size);
        let step = SHARED
            .with_borrow_mut(|shared| serve_step(stream, &mut codec, &mut held, shared, read, activity));
        let (mut close, file, more) = match step {
            Step::Wait => continue,
            Step::End => return,
            Step::Served { close, file, more } => (close, file, more),
        };
        if !held.unsent.is_empty() {
            if stream.write_all(&held.unsent).await.is_err() {
                return;
            }
            held.unsent = Vec::new();
        }
        if let Some(request) = file {
            match answer_file(stream, settings, &request, activity).await {
                Some(closes) => close |= closes,
                None => return,
            }
        }
        serve_held = (file.is_some() || more) && !held.partial.is_empty();
        activity.touch(mid_request(&held, &codec));
        if close {
            return linger_close(stream).await;
        }
        if settings.shutdown.is_cancelled() && !mid_request(&held, &codec) {
            return;
        }
    }
}

/// A request is under way: part of one is held, or an upload is half read.
fn mid_request(held: &Held, codec: &Codec) -> bool {
    !held.partial.is_empty() || codec.mid_request()
}

/// Sends the answer to a file request; whether the connection closes after it, or `None`
/// if it could not be completed.
async fn answer_file(
    stream: &mut TcpStream,
    settings: &Settings,
    request: &FileRequest,
    activity: &Activity,
) -> Option<bool> {
    let mut output = Output::default();
    let root = settings.files_dir.as_deref();
    let begun = file_reply::begin::<TokioFiles>(root, request, &mut output, settings.sendfile).await;
    stream.send_all(&mut output).await.ok()?;
    if let Some(rest) = begun.rest {
        file_reply::stream(stream, rest, &mut output, activity)
            .await
            .ok()?;
    }
    Some(begun.close)
}

/// Reads once if `read` gives the connection's read size (into the shared input, or onto
/// a partial request the connection holds, offering what it says), answers what is
/// complete into the shared output, writes what the socket takes now, and moves what is
/// left over into the connection's own buffers.
fn serve_step(
    stream: &TcpStream,
    codec: &mut Codec,
    held: &mut Held,
    shared: &mut Shared,
    read: Option<&mut ReadSize>,
    activity: &Activity,
) -> Step {
    let Shared { input, output } = shared;
    let from_shared = held.partial.is_empty();
    if let Some(read_size) = read {
        let reserve = read_size.next();
        let read = if from_shared {
            input.clear();
            read_now(stream, input, reserve)
        } else {
            read_now(stream, &mut held.partial, reserve)
        };
        match read {
            Ok(0) => return Step::End,
            Ok(n) => {
                read_size.record(n);
                activity.read(n);
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => return Step::Wait,
            Err(_) => return Step::End,
        }
    }
    output.clear();
    let offered = if from_shared {
        input.len()
    } else {
        held.partial.len()
    };
    let outcome = if from_shared {
        let outcome = codec.serve_within(input, output, OUTPUT_LIMIT);
        held.partial.extend_from_slice(&input[outcome.consumed..]);
        outcome
    } else {
        let outcome = codec.serve_within(&held.partial, output, OUTPUT_LIMIT);
        held.partial.drain(..outcome.consumed);
        if held.partial.is_empty() {
            held.partial = Vec::new();
        }
        outcome
    };
    let Ok(written) = write_now(stream, output) else {
        return Step::End;
    };
    held.unsent.extend_from_slice(&output[written..]);
    if outcome.responses > 0 || outcome.file.is_some() {
        activity.answered();
    }
    Step::Served {
        close: outcome.close,
        file: outcome.file,
        // The codec stopped with complete requests left: the answers reached the limit.
        more: outcome.consumed < offered && outcome.needed == 0,
    }
}

/// Appends what the socket has, at most `reserve` bytes, without waiting: the shared
/// input's capacity, grown by whichever connection read the most, never decides how much
/// one read takes.
fn read_now(stream: &TcpStream, input: &mut Vec<u8>, reserve: usize) -> std::io::Result<usize> {
    input.reserve(reserve);
    stream.try_read_buf(&mut input.limit(reserve))
}

/// Writes as much of `output` as the socket takes without waiting; returns how much.
fn write_now(stream: &TcpStream, output: &[u8]) -> std::io::Result<usize> {
    let mut written = 0;
    while written < output.len() {
        match stream.try_write(&output[written..]) {
            Ok(0) => return Err(ErrorKind::WriteZero.into()),
            Ok(n) => written += n,
            Err(e) if e.kind() == ErrorKind::WouldBlock => break,
            Err(e) => return Err(e),
        }
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    async fn pair() -> (TcpStream, TcpStream) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
        (listener.accept().await.unwrap().0, client)
    }

    /// Waits for `server` to be readable, then takes one step.
    async fn step(server: &TcpStream, codec: &mut Codec, held: &mut Held) -> Step {
        server.readable().await.unwrap();
        let mut read_size = ReadSize::new();
        let activity = Activity::new();
        SHARED.with_borrow_mut(|shared| {
            serve_step(server, codec, held, shared, Some(&mut read_size), &activity)
        })
    }

    #[tokio::test]
    async fn a_connection_holds_only_a_partial_request_and_nothing_once_answered() {
        let (server, mut client) = pair().await;
        let mut codec = Codec::new(http_core::Limits::default());
        let mut held = Held::default();
        client
            .write_all(b"GET / HTTP/1.1\r\nHost: a\r\n\r\nGET / HT")
            .await
            .unwrap();
        let first = step(&server, &mut codec, &mut held).await;
        assert_eq!(
            first,
            Step::Served {
                close: false,
                file: None,
                more: false
            }
        );
        assert_eq!(held.partial, b"GET / HT", "only the partial request is kept");
        assert!(held.unsent.is_empty());

        client.write_all(b"TP/1.1\r\nHost: a\r\n\r\n").await.unwrap();
        let second = step(&server, &mut codec, &mut held).await;
        assert_eq!(
            second,
            Step::Served {
                close: false,
                file: None,
                more: false
            }
        );
        assert_eq!((held.partial.capacity(), held.unsent.capacity()), (0, 0));

        let mut answers = vec![0u8; 4096];
        let mut received = 0;
        while answers[..received]
            .windows(13)
            .filter(|w| w == b"Hello, World!")
            .count()
            < 2
        {
            received += client.read(&mut answers[received..]).await.unwrap();
        }
        drop(client);
        assert_eq!(step(&server, &mut codec, &mut held).await, Step::End);
    }
}

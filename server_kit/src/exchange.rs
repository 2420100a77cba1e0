//! The one connection loop of the codec-driven servers (tokio_server's `codec` engine on
//! epoll; tokio_uring_server, monoio_server and compio_server on io_uring): read into a buffer, hand it to
//! http_core's codec, write every response it produced in one (vectored) write, a large
//! static body straight from its shared buffer and an echoed body from the buffer it was
//! read into, and close with a lingering drain. Reads grow while they fill what they were
//! offered ([`crate::read_size`]); between requests they start small again, and buffers
//! grown past what an idle connection keeps are freed. Each server supplies its socket's
//! I/O (and its runtime's timer) as a [`Transport`], so the HTTP work and the timeouts
//! are the same code on every I/O layer and runtime: tokio on epoll, tokio-uring, monoio
//! and compio.
//! A file request (`/files/{name}`) is answered through [`crate::file_reply`] with the
//! transport's own file I/O ([`Transport::Files`]).
//!
//! A client that pipelines requests and never reads cannot grow the server's memory: a
//! round answers requests only until [`OUTPUT_LIMIT`] bytes of answers wait (the codec
//! stops before the request that would start past it), writes them, and answers the rest
//! of the input before anything more is read. Writing waits for the client, so a client
//! that never reads holds at most the input (its capacity trimmed between requests) and
//! one limit of answers, until its timeout.

use std::time::Duration;

use http_core::limits::OUTPUT_LIMIT;
use http_core::{Codec, Output, Received};

use crate::file_reply;
use crate::read_size::{self, ReadSize};
pub use crate::transport::Transport;
use crate::{Activity, Settings};

/// After the last response of a connection the server closes, it reads and discards what
/// the client still sends for at most this long, so the client sees the response and a
/// FIN rather than a reset (RFC 9112 section 9.6). Default is 1 second.
pub const LINGER: Duration = Duration::from_secs(1);

/// Serves one connection until either side closes, the codec says to close, the server
/// shuts down between requests, or the connection times out.
pub async fn serve<T: Transport>(transport: &mut T, settings: &Settings) {
    let activity = Activity::new();
    let watchdog = activity.clone();
    tokio::select! {
        _ = exchange(transport, settings, &activity) => {}
        _ = watchdog.expired(settings.deadlines(), T::sleep) => {}
    }
}

/// Reads, answers and writes until either side closes or the codec says to close.
async fn exchange<T: Transport>(transport: &mut T, settings: &Settings, activity: &Activity) {
    let mut buffers = Buffers {
        codec: Codec::new(settings.limits),
        input: Vec::with_capacity(read_size::INITIAL),
        spare: Vec::new(),
        output: Output::default(),
        read_size: ReadSize::new(),
    };
    loop {
        if buffers.between_requests() {
            buffers.idle();
        }
        let reserve = buffers.read_size.next();
        let read = tokio::select! {
            read = transport.receive(&mut buffers.input, reserve) => read,
            _ = settings.shutdown.cancelled(), if buffers.between_requests() => return,
        };
        match read {
            Ok(0) => return say_goodbye(transport).await,
            Err(_) => return,
            Ok(n) => {
                buffers.read_size.record(n);
                activity.read(n);
            }
        }
        // A file answer, or answers up to the output limit, end a round of the codec:
        // the requests after them are served in the next round, before anything more is
        // read.
        loop {
            match serve_round(transport, &mut buffers, settings, activity).await {
                Round::Close => return linger_close(transport).await,
                Round::End => return,
                Round::More if !buffers.input.is_empty() => continue,
                Round::More | Round::Read => break,
            }
        }
        if settings.shutdown.is_cancelled() && buffers.between_requests() {
            return say_goodbye(transport).await;
        }
    }
}

/// [`Transport::goodbye`], given at most [`LINGER`]. (A connection idle when the server
/// shuts down has its read dropped mid-flight, after which nothing more is called on it:
/// it closes without one, as a timed-out one does.)
async fn say_goodbye<T: Transport>(transport: &mut T) {
    tokio::select! {
        _ = transport.goodbye() => {}
        _ = T::sleep(LINGER) => {}
    }
}

/// One connection's codec and buffers.
struct Buffers {
    codec: Codec,
    input: Vec<u8>,
    /// An echoed body is sent from the buffer it was read into; that buffer then becomes
    /// the next input's, so a connection echoing large bodies alternates two.
    spare: Vec<u8>,
    output: Output,
    /// How much the next read is offered.
    read_size: ReadSize,
}

impl Buffers {
    /// No request is under way: nothing of one is held, and no upload is half read.
    fn between_requests(&self) -> bool {
        self.input.is_empty() && !self.codec.mid_request()
    }

    /// Between requests: the next read starts small again, and the input buffers give
    /// back what a large request grew them to, so a connection waiting for its next
    /// request holds no more than [`read_size::IDLE_CAPACITY`] in each.
    fn idle(&mut self) {
        self.read_size.idle();
        read_size::trim_idle(&mut self.input);
        read_size::trim_idle(&mut self.spare);
    }
}

/// What a round of answering left to do.
enum Round {
    /// Read more: the input holds no complete request.
    Read,
    /// A file was answered, or answers reached the output limit: the input may hold
    /// complete requests.
    More,
    /// Close with a lingering drain, as the codec said.
    Close,
    /// Close now: the socket failed, or a file's response could not be completed.
    End,
}

/// Answers the complete requests at the start of the input up to the first file request
/// (its answer included) or until [`OUTPUT_LIMIT`] bytes of answers wait, and writes the
/// answers.
async fn serve_round<T: Transport>(
    transport: &mut T,
    buffers: &mut Buffers,
    settings: &Settings,
    activity: &Activity,
) -> Round {
    let Buffers {
        codec,
        input,
        spare,
        output,
        ..
    } = buffers;
    let offered = input.len();
    let (outcome, kept_input) =
        codec.serve_lending(Received::Writable(input), output, OUTPUT_LIMIT, T::LENDS_INPUT);
    // The codec stopped with complete requests left: the answers reached the limit.
    let limited = outcome.consumed < offered && outcome.needed == 0;
    if kept_input {
        let rest = std::mem::take(spare);
        let answered = std::mem::replace(input, rest);
        input.extend_from_slice(&answered[outcome.consumed..]);
        output.adopt(answered);
    } else {
        input.drain(..outcome.consumed);
    }
    if outcome.responses > 0 || outcome.file.is_some() {
        activity.answered();
    }
    let mut close = outcome.close;
    let mut streaming = None;
    if let Some(request) = outcome.file {
        let root = settings.files_dir.as_deref();
        let sendfile = settings.sendfile && T::SENDFILE;
        let begun = file_reply::begin::<T::Files>(root, &request, output, sendfile).await;
        close |= begun.close;
        streaming = begun.rest;
    }
    if !output.is_empty() {
        if transport.send_all(output).await.is_err() {
            return Round::End;
        }
        if let Some(mut answered) = output.reclaim() {
            answered.clear();
            *spare = answered;
        }
    }
    if let Some(rest) = streaming
        && file_reply::stream(transport, rest, output, activity)
            .await
            .is_err()
    {
        return Round::End;
    }
    activity.touch(!input.is_empty() || codec.mid_request());
    match (close, outcome.file.is_some() || limited) {
        (true, _) => Round::Close,
        (false, true) => Round::More,
        (false, false) => Round::Read,
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

#[cfg(test)]
mod tests {
    use std::io;

    use tokio_util::sync::CancellationToken;

    use super::*;
    use crate::read_size::{IDLE_CAPACITY, INITIAL, MAX};
    use crate::tokio_files::TokioFiles;

    /// A peer that sends its messages one after the other, each read taking as much of
    /// the current one as it is offered, then ends the stream. It notes what each read
    /// was offered and the input's capacity before it.
    #[derive(Default)]
    struct Peer {
        messages: Vec<Vec<u8>>,
        sent: usize,
        reads: Vec<(usize, usize)>,
        answers: Vec<u8>,
        /// The most bytes one `send_all` was given.
        largest_send: usize,
    }

    impl Transport for Peer {
        type Files = TokioFiles;

        async fn receive(&mut self, input: &mut Vec<u8>, reserve: usize) -> io::Result<usize> {
            self.reads.push((reserve, input.capacity()));
            let Some(message) = self.messages.first_mut() else {
                return Ok(0);
            };
            let n = reserve.min(message.len() - self.sent);
            input.reserve(reserve);
            input.extend_from_slice(&message[self.sent..][..n]);
            self.sent += n;
            if self.sent == message.len() {
                self.messages.remove(0);
                self.sent = 0;
            }
            Ok(n)
        }

        async fn send_all(&mut self, output: &mut Output) -> io::Result<()> {
            let before = self.answers.len();
            output
                .slices()
                .for_each(|slice| self.answers.extend_from_slice(slice));
            self.largest_send = self.largest_send.max(self.answers.len() - before);
            Ok(())
        }

        async fn finish(&mut self) -> io::Result<()> {
            Ok(())
        }

        async fn discard(&mut self) -> io::Result<usize> {
            Ok(0)
        }
    }

    #[tokio::test]
    async fn an_upload_is_read_in_growing_reads_and_leaves_no_large_buffer_behind() {
        const BODY: usize = 4 << 20;
        let mut upload =
            format!("POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: {BODY}\r\n\r\n").into_bytes();
        upload.resize(upload.len() + BODY, b'x');
        let mut peer = Peer {
            messages: vec![upload, b"GET / HTTP/1.1\r\nHost: a\r\n\r\n".to_vec()],
            ..Peer::default()
        };
        serve(&mut peer, &settings()).await;

        let answers = String::from_utf8_lossy(&peer.answers);
        assert_eq!(answers.matches("HTTP/1.1 200").count(), 2, "{answers}");
        let upload_reads = &peer.reads[..peer.reads.len() - 2];
        assert!(upload_reads.iter().any(|&(reserve, _)| reserve == MAX));
        // 16, 32, 64, 128 KiB, then 256 KiB reads: 20 in all, where 16 KiB reads take 257.
        assert!(upload_reads.len() <= 21, "{} reads", upload_reads.len());
        // The request after the upload, and the end of the stream after it, are read
        // between requests: offered the initial size, into an input no longer grown.
        for &(reserve, capacity) in &peer.reads[peer.reads.len() - 2..] {
            assert_eq!(reserve, INITIAL);
            assert!(capacity <= IDLE_CAPACITY, "{capacity} bytes kept while idle");
        }
    }

    #[tokio::test]
    async fn pipelined_requests_are_answered_a_limit_of_output_at_a_time() {
        const REQUESTS: usize = 2000;
        const BODY: usize = 4095;
        let request = format!("GET /bytes/{BODY} HTTP/1.1\r\nHost: a\r\n\r\n");
        let mut peer = Peer {
            messages: vec![request.repeat(REQUESTS).into_bytes()],
            ..Peer::default()
        };
        serve(&mut peer, &settings()).await;

        let answers = String::from_utf8_lossy(&peer.answers);
        assert_eq!(answers.matches("HTTP/1.1 200").count(), REQUESTS);
        // Over 8 MiB of answers, written at most one limit and one response at a time.
        let one_response = peer.answers.len() / REQUESTS;
        assert!(
            peer.largest_send <= OUTPUT_LIMIT + one_response,
            "{} bytes in one write",
            peer.largest_send
        );
    }

    fn settings() -> Settings {
        Settings {
            limits: http_core::Limits::default(),
            request_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(10),
            pace: http_core::pace::Pace::default(),
            files_dir: None,
            sendfile: false,
            shutdown: CancellationToken::new(),
        }
    }
}

//! The sans-I/O HTTP/1.1 server codec: bytes in, response bytes out, no I/O and no async,
//! so a tokio loop and an io_uring loop run exactly the same HTTP code.
//!
//! The codec is incremental: once a request's head is complete, its body is tracked as it
//! arrives without parsing the head again (a `Content-Length` body by its length, a
//! chunked one by a decoder that resumes after the last complete chunk, in place when the
//! caller's bytes are writable: [`Received`]), and the head is parsed a second time only
//! to answer. So the work for a request is linear in its bytes however the reads split
//! it. [`Outcome::needed`] tells the caller how much more input to wait for before calling
//! again. An upload (`POST /upload`) is the exception: its body is consumed as it arrives
//! ([`crate::upload`]), so the caller never holds it whole.

use crate::chunked::ChunkedDecoder;
use crate::error::HttpError;
use crate::files::FileRequest;
use crate::headers::Framing;
use crate::headers::HeadInfo;
use crate::limits::Limits;
use crate::output::{Output, Sink};
use crate::request::{Head, parse_head};
use crate::response::{CONTINUE, Persistence, render};
use crate::routes::{RouteRequest, is_upload, plain_error, requested_file, route, upload_reply};
use crate::upload::Upload;

/// One connection's codec. It keeps what must survive between reads: the body of the
/// request in progress (once its head is complete), whether that request was already
/// sent `100 Continue`, and a reusable buffer for decoded chunked bodies.
#[derive(Debug, Default)]
pub struct Codec {
    limits: Limits,
    continue_sent: bool,
    awaiting: Option<AwaitedBody>,
    chunked_body: Vec<u8>,
}

/// The body of the request at the start of the caller's input, whose head is complete.
#[derive(Debug, Clone, Copy)]
enum AwaitedBody {
    /// An upload's body, whose head and the body bytes read so far were consumed.
    Upload {
        upload: Upload,
        keep_alive: bool,
        persistence: Persistence,
    },
    /// The request occupies `total` bytes, head included.
    Length { total: usize },
    /// The encoded body starts at `head_len`; `decoder` has decoded its complete chunks.
    Chunked {
        head_len: usize,
        decoder: ChunkedDecoder,
    },
}

/// What one call to [`Codec::serve`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Input bytes fully handled; the caller drops them and keeps the rest for next time.
    pub consumed: usize,
    /// Complete responses appended to `out` (a `100 Continue` is not counted).
    pub responses: usize,
    /// Send `out`, then close the connection: no more requests are read.
    pub close: bool,
    /// More input bytes needed (beyond the unconsumed rest) before a call can answer the
    /// request in progress: exact for a `Content-Length` body, 1 while a head or a
    /// chunked body is incomplete, 0 when the rest holds no partial request. 1 during an
    /// upload too: it consumes whatever arrives, so call again with any new bytes.
    pub needed: usize,
    /// The last request consumed asks for a file (`/files/{name}`), which the codec
    /// does not read: the server appends its answer after `out`
    /// ([`crate::files::render_file_head`] and the bytes, or
    /// [`crate::files::render_file_error`]) before serving the rest of the input. It is
    /// not counted in `responses`; `close` is set when the connection closes after it.
    pub file: Option<FileRequest>,
}

enum Step {
    Answered {
        len: usize,
        keep_alive: bool,
    },
    /// Part of an upload's body was read: `len` bytes consumed, nothing answered yet.
    Reading {
        len: usize,
    },
    File {
        len: usize,
        request: FileRequest,
    },
    NeedMore(usize),
}

/// Where a complete chunked body's decoded bytes are.
#[derive(Clone, Copy)]
struct Decoded {
    /// Right after the head, over its encoding (else in the codec's own buffer).
    in_place: bool,
    len: usize,
    /// The bytes its encoding occupied after the head.
    encoded_len: usize,
}

/// The bytes a call serves: `Shared` ones are only read; in `Writable` ones a chunked body
/// is decoded where it lies (its chunks moved down over their framing), so that its echo
/// can be sent from there without a copy, as a `Content-Length` body's is. A caller that
/// passed writable bytes passes the same bytes, as the codec left them, next time.
pub enum Received<'a> {
    Shared(&'a [u8]),
    Writable(&'a mut [u8]),
}

impl Received<'_> {
    pub fn bytes(&self) -> &[u8] {
        match self {
            Received::Shared(bytes) => bytes,
            Received::Writable(bytes) => bytes,
        }
    }

    fn len(&self) -> usize {
        self.bytes().len()
    }

    /// The bytes from `start` on.
    fn tail(&mut self, start: usize) -> Received<'_> {
        match self {
            Received::Shared(bytes) => Received::Shared(&bytes[start..]),
            Received::Writable(bytes) => Received::Writable(&mut bytes[start..]),
        }
    }
}

impl Codec {
    pub fn new(limits: Limits) -> Self {
        Codec {
            limits,
            ..Codec::default()
        }
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Whether a request is under way though the caller may hold none of it: an upload's
    /// head and some of its body were consumed, the rest is still to come. The connection
    /// is then busy (the request timeout applies, a graceful shutdown waits for it) even
    /// with an empty input.
    pub fn mid_request(&self) -> bool {
        matches!(self.awaiting, Some(AwaitedBody::Upload { .. }))
    }

    /// The upload whose body is being read, between its head and its last byte.
    pub fn upload(&self) -> Option<&Upload> {
        match &self.awaiting {
            Some(AwaitedBody::Upload { upload, .. }) => Some(upload),
            _ => None,
        }
    }

    /// Answers every complete request at the start of `input`, in order, appending the
    /// responses to `out` so that a pipelined batch leaves in one write. `out` is a
    /// `Vec<u8>`, or an [`crate::Output`] that keeps large static bodies by reference.
    ///
    /// `input` is the caller's unconsumed bytes: what the last call did not consume, then
    /// whatever has arrived since. The unconsumed rest is a partial request and never
    /// exceeds [`Limits::max_request_bytes`]: past that the codec answers with an error.
    pub fn serve(&mut self, input: &[u8], out: &mut impl Sink) -> Outcome {
        self.serve_within(input, out, usize::MAX)
    }

    /// Like [`Codec::serve`], but answers no further request once `out` holds `out_limit`
    /// bytes or more: the rest of `input` (complete requests included) stays unconsumed
    /// for a later call, made once the caller has sent some of `out`. `out` exceeds the
    /// limit by at most one response. Servers pass the bytes they may still buffer, e.g.
    /// [`crate::limits::OUTPUT_LIMIT`] minus what is already waiting to be sent.
    pub fn serve_within(&mut self, input: &[u8], out: &mut impl Sink, out_limit: usize) -> Outcome {
        self.serve_received(Received::Shared(input), out, out_limit)
    }

    /// [`Codec::serve_within`] into an [`Output`], over shared or writable bytes (see
    /// [`Received`]); with `lend`, through a [`crate::Lending`] over `input`, so a large
    /// echoed body may be kept where it is. Returns whether it was: the caller must then
    /// hand `out` the buffer `input` starts at ([`Output::adopt`]).
    pub fn serve_lending(
        &mut self,
        input: Received,
        out: &mut Output,
        out_limit: usize,
        lend: bool,
    ) -> (Outcome, bool) {
        if !lend {
            return (self.serve_received(input, out, out_limit), false);
        }
        let mut lending = out.lending(input.bytes());
        let outcome = self.serve_received(input, &mut lending, out_limit);
        (outcome, lending.kept_any())
    }

    fn serve_received(&mut self, mut input: Received, out: &mut impl Sink, out_limit: usize) -> Outcome {
        let mut outcome = Outcome::default();
        while outcome.consumed < input.len() && out.written() < out_limit {
            match self.serve_one(input.tail(outcome.consumed), out) {
                Ok(Step::NeedMore(needed)) => {
                    outcome.needed = needed;
                    break;
                }
                Ok(Step::Reading { len }) => {
                    outcome.consumed += len;
                    outcome.needed = 1;
                    break;
                }
                Ok(Step::File { len, request }) => {
                    outcome.consumed += len;
                    outcome.file = Some(request);
                    outcome.close = request.closes();
                    break;
                }
                Ok(Step::Answered { len, keep_alive }) => {
                    outcome.consumed += len;
                    outcome.responses += 1;
                    if !keep_alive {
                        outcome.close = true;
                        break;
                    }
                }
                Err(error) => {
                    self.awaiting = None;
                    render(&plain_error(error.status()), false, Persistence::Close, out);
                    outcome.responses += 1;
                    outcome.close = true;
                    break;
                }
            }
        }
        outcome
    }

    fn serve_one(&mut self, mut input: Received, out: &mut impl Sink) -> Result<Step, HttpError> {
        let (head_len, mut decoder, expect_continue) = match self.awaiting.take() {
            Some(AwaitedBody::Length { total }) if input.len() < total => {
                self.awaiting = Some(AwaitedBody::Length { total });
                return Ok(Step::NeedMore(total - input.len()));
            }
            Some(AwaitedBody::Length { .. }) => return self.answer(input.bytes(), None, out),
            Some(AwaitedBody::Chunked { head_len, decoder }) => (head_len, decoder, false),
            Some(AwaitedBody::Upload {
                upload,
                keep_alive,
                persistence,
            }) => return self.read_upload(upload, 0, input.bytes(), (keep_alive, persistence), out),
            None => {
                let Some(head) = parse_head(input.bytes(), &self.limits)? else {
                    return Ok(Step::NeedMore(1));
                };
                let rest = input.len() - head.len;
                if is_upload(head.method, head.target) && head.info.framing != Framing::Empty {
                    let upload = Upload::new(head.info.framing, self.limits.max_upload_bytes);
                    let connection = (head.info.keep_alive, persistence(&head.info));
                    let step = self.read_upload(upload, head.len, input.bytes(), connection, out)?;
                    if head.info.expect_continue && matches!(step, Step::Reading { .. }) {
                        // The body is not all here: ask for the rest (nothing is rendered yet;
                        // the head is not read again, so this is sent once).
                        out.push(CONTINUE);
                    }
                    return Ok(step);
                }
                match head.info.framing {
                    Framing::Chunked => {
                        // Decoded below, where the input may be written (the head is parsed
                        // again once the body is complete).
                        self.chunked_body.clear();
                        (head.len, ChunkedDecoder::default(), head.info.expect_continue)
                    }
                    Framing::Length(n) if rest < n => {
                        let awaited = AwaitedBody::Length { total: head.len + n };
                        self.await_body(awaited, head.info.expect_continue, out);
                        return Ok(Step::NeedMore(n - rest));
                    }
                    _ => return Ok(self.answer_parsed(input.bytes(), &head, None, out)),
                }
            }
        };
        let decoded = match &mut input {
            Received::Shared(bytes) => {
                decoder.decode(&bytes[head_len..], &self.limits, &mut self.chunked_body)?
            }
            Received::Writable(bytes) => {
                decoder.decode_in_place(&mut bytes[head_len..], &self.limits, &self.chunked_body)?
            }
        };
        let Some(encoded_len) = decoded else {
            self.await_body(AwaitedBody::Chunked { head_len, decoder }, expect_continue, out);
            return Ok(Step::NeedMore(1));
        };
        let body = Decoded {
            in_place: decoder.is_in_place(),
            len: decoder.decoded_len(),
            encoded_len,
        };
        self.answer(input.bytes(), Some(body), out)
    }

    /// Answers the request at the start of `input`, whose head and body are complete:
    /// parses the head again (it was parsed when the body began to arrive).
    fn answer(
        &mut self,
        input: &[u8],
        decoded: Option<Decoded>,
        out: &mut impl Sink,
    ) -> Result<Step, HttpError> {
        let Some(head) = parse_head(input, &self.limits)? else {
            return Ok(Step::NeedMore(1));
        };
        Ok(self.answer_parsed(input, &head, decoded, out))
    }

    /// Routes and renders the complete request whose head is `head`; a chunked body is
    /// `decoded` (where the decoder left it), any other is read after the head.
    fn answer_parsed(
        &mut self,
        input: &[u8],
        head: &Head,
        decoded: Option<Decoded>,
        out: &mut impl Sink,
    ) -> Step {
        let rest = &input[head.len..];
        self.continue_sent = false;
        let (body, body_len): (&[u8], usize) = match (head.info.framing, decoded) {
            (Framing::Length(n), _) => (&rest[..n], n),
            (Framing::Chunked, Some(body)) if body.in_place => (&rest[..body.len], body.encoded_len),
            (Framing::Chunked, Some(body)) => (&self.chunked_body, body.encoded_len),
            _ => (&[], 0),
        };
        let persistence = persistence(&head.info);
        if let Some(name) = requested_file(head.method, head.target) {
            let request = FileRequest {
                name,
                head_only: head.method == "HEAD",
                persistence,
            };
            return Step::File {
                len: head.len + body_len,
                request,
            };
        }
        let reply = route(&RouteRequest {
            method: head.method,
            target: head.target,
            content_type: head.info.content_type,
            body,
        });
        render(&reply, head.method == "HEAD", persistence, out);
        Step::Answered {
            len: head.len + body_len,
            keep_alive: head.info.keep_alive,
        }
    }

    /// Reads what `input` holds of an upload's body from `start` (after its head, when the
    /// head was just parsed); answers with its length and CRC32C once it is complete.
    fn read_upload(
        &mut self,
        mut upload: Upload,
        start: usize,
        input: &[u8],
        (keep_alive, persistence): (bool, Persistence),
        out: &mut impl Sink,
    ) -> Result<Step, HttpError> {
        let (read, done) = upload.read(&input[start..], self.limits.max_head_bytes)?;
        let len = start + read;
        if !done {
            self.awaiting = Some(AwaitedBody::Upload {
                upload,
                keep_alive,
                persistence,
            });
            return Ok(Step::Reading { len });
        }
        render(
            &upload_reply(upload.length(), upload.crc32c()),
            false,
            persistence,
            out,
        );
        Ok(Step::Answered { len, keep_alive })
    }

    /// The head is complete but the body is not: remember the body so the head is not
    /// parsed again until it is, and answer `Expect: 100-continue` once.
    fn await_body(&mut self, awaited: AwaitedBody, expect_continue: bool, out: &mut impl Sink) {
        if expect_continue && !self.continue_sent {
            out.push(CONTINUE);
            self.continue_sent = true;
        }
        self.awaiting = Some(awaited);
    }
}

/// What a response to a request with this head says about the connection.
fn persistence(info: &HeadInfo) -> Persistence {
    match (info.keep_alive, info.keep_alive_requested) {
        (false, _) => Persistence::Close,
        (true, true) => Persistence::ConfirmKeepAlive,
        (true, false) => Persistence::KeepAlive,
    }
}

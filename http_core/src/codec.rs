//! The sans-I/O HTTP/1.1 server codec: bytes in, response bytes out, no I/O and no async,
//! so a tokio loop and an io_uring loop run exactly the same HTTP code.

use crate::chunked;
use crate::error::HttpError;
use crate::headers::Framing;
use crate::limits::Limits;
use crate::request::{Head, parse_head};
use crate::response::{CONTINUE, Persistence, render};
use crate::routes::{RouteRequest, plain_error, route};

/// One connection's codec. It keeps only what must survive between reads: whether the
/// current request was already sent `100 Continue`, and a reusable body buffer.
#[derive(Debug, Default)]
pub struct Codec {
    limits: Limits,
    continue_sent: bool,
    chunked_body: Vec<u8>,
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
}

enum Step {
    Answered { len: usize, keep_alive: bool },
    NeedMore,
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

    /// Answers every complete request at the start of `input`, in order, appending the
    /// responses to `out` so that a pipelined batch leaves in one write.
    ///
    /// The unconsumed rest is a partial request and never exceeds
    /// [`Limits::max_request_bytes`]: past that the codec answers with an error instead.
    pub fn serve(&mut self, input: &[u8], out: &mut Vec<u8>) -> Outcome {
        self.serve_within(input, out, usize::MAX)
    }

    /// Like [`Codec::serve`], but answers no further request once `out` holds `out_limit`
    /// bytes or more: the rest of `input` (complete requests included) stays unconsumed
    /// for a later call, made once the caller has sent some of `out`. `out` exceeds the
    /// limit by at most one response. Servers pass the bytes they may still buffer, e.g.
    /// [`crate::limits::OUTPUT_LIMIT`] minus what is already waiting to be sent.
    pub fn serve_within(&mut self, input: &[u8], out: &mut Vec<u8>, out_limit: usize) -> Outcome {
        let mut outcome = Outcome::default();
        while outcome.consumed < input.len() && out.len() < out_limit {
            match self.serve_one(&input[outcome.consumed..], out) {
                Ok(Step::NeedMore) => break,
                Ok(Step::Answered { len, keep_alive }) => {
                    outcome.consumed += len;
                    outcome.responses += 1;
                    if !keep_alive {
                        outcome.close = true;
                        break;
                    }
                }
                Err(error) => {
                    render(&plain_error(error.status()), false, Persistence::Close, out);
                    outcome.responses += 1;
                    outcome.close = true;
                    break;
                }
            }
        }
        outcome
    }

    fn serve_one(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<Step, HttpError> {
        let Some(head) = parse_head(input, &self.limits)? else {
            return Ok(Step::NeedMore);
        };
        let rest = &input[head.len..];
        let (body, body_len): (&[u8], usize) = match head.info.framing {
            Framing::Empty => (&[], 0),
            Framing::Length(n) if rest.len() >= n => (&rest[..n], n),
            Framing::Length(_) => return Ok(self.await_body(&head, out)),
            Framing::Chunked => match chunked::decode(rest, &self.limits, &mut self.chunked_body)? {
                Some(n) => (&self.chunked_body, n),
                None => return Ok(self.await_body(&head, out)),
            },
        };
        let reply = route(&RouteRequest {
            method: head.method,
            target: head.target,
            content_type: head.info.content_type,
            body,
        });
        let persistence = match (head.info.keep_alive, head.info.keep_alive_requested) {
            (false, _) => Persistence::Close,
            (true, true) => Persistence::ConfirmKeepAlive,
            (true, false) => Persistence::KeepAlive,
        };
        render(&reply, head.method == "HEAD", persistence, out);
        self.continue_sent = false;
        Ok(Step::Answered {
            len: head.len + body_len,
            keep_alive: head.info.keep_alive,
        })
    }

    /// The head is complete but the body is not: answer `Expect: 100-continue` once.
    fn await_body(&mut self, head: &Head, out: &mut Vec<u8>) -> Step {
        if head.info.expect_continue && !self.continue_sent {
            out.extend_from_slice(CONTINUE);
            self.continue_sent = true;
        }
        Step::NeedMore
    }
}

//! Framing each response once, as its bytes arrive (`read.rs` feeds a [`Framer`] what
//! each read brings): the head parsed once (`response::parse_head`), its status and length
//! checked as soon as it is whole, then the body consumed as it comes: a Content-Length
//! body compared in place, piece by piece while it is still in cache, with its one
//! [`Reference`] (the expected body, or the file's stamp and the shared pattern) and then
//! dropped, a chunked one decoded to its end and counted. No body is held whole, copied,
//! or framed again; the checks are those of `response::frame` and `Files::check`.

use crate::config::Config;
use crate::errors::{ErrorKind, Failure};
use crate::files::Files;
use crate::response::{Expect, Framing, chunk_size, find, parse_head};

/// What a response's body must be.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Reference<'a> {
    /// Any bytes (its length is the `Expect`'s to check).
    Any,
    /// Exactly these bytes (`--check-body`); a chunked body is checked by length only.
    Body(&'a [u8]),
    /// File `index` of the set; a file answer must have Content-Length.
    File(&'a Files, usize),
}

impl<'a> Reference<'a> {
    /// The body an answer must carry: the file's when `file` names the one asked for, else
    /// `config.expect_body` if given.
    pub(crate) fn of(config: &'a Config, file: Option<usize>) -> Reference<'a> {
        match (&config.files, file, &config.expect_body) {
            (Some(files), Some(index), _) => Reference::File(files, index),
            (_, _, Some(body)) => Reference::Body(body),
            _ => Reference::Any,
        }
    }

    /// The expected bytes as borrowed pieces, one after the other.
    fn pieces(self) -> [&'a [u8]; 2] {
        match self {
            Reference::Any => [&[], &[]],
            Reference::Body(body) => [body, &[]],
            Reference::File(files, index) => files.pieces(index),
        }
    }

    /// The expected body's length, if there is one.
    fn len(self) -> Option<usize> {
        match self {
            Reference::Any => None,
            Reference::Body(body) => Some(body.len()),
            Reference::File(files, _) => Some(files.set.size),
        }
    }

    /// Compares `got`, the body's bytes from `offset` on, with the expected bytes there
    /// (bytes past the expected end are not compared): the body offset of the first
    /// difference, if any.
    pub(crate) fn first_difference(self, offset: usize, got: &[u8]) -> Option<usize> {
        let mut start = 0;
        for piece in self.pieces() {
            let end = start + piece.len();
            let (from, to) = (offset.max(start), (offset + got.len()).min(end));
            if from < to {
                let (expected, actual) = (&piece[from - start..to - start], &got[from - offset..to - offset]);
                if expected != actual {
                    let at = expected.iter().zip(actual).position(|(a, b)| a != b);
                    return Some(from + at.unwrap_or(0));
                }
            }
            start = end;
        }
        None
    }

    /// What a Content-Length body of `got` bytes whose first difference is `at` fails with.
    fn differs(self, got: usize, at: Option<usize>) -> Failure {
        let message = match self {
            Reference::File(files, index) => files.difference(index, got, at),
            _ => format!(
                "body differs from the expected {} bytes (got {got}; first difference at {at:?})",
                self.len().unwrap_or_default()
            ),
        };
        Failure::new(ErrorKind::Body, message)
    }
}

/// Where a response stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Waiting for the whole head.
    Head,
    /// A Content-Length body of `len` bytes, the first `at` of them checked.
    Length { len: usize, at: usize },
    /// A chunked body with `body_len` bytes in its chunks so far.
    Chunked {
        status: u16,
        body_len: usize,
        part: Part,
    },
}

/// Where a chunked body stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    /// At a chunk-size line.
    Size,
    /// This many bytes left of a chunk's data.
    Data(usize),
    /// This many bytes (2 or 1) left of the CRLF that must end a chunk's data.
    DataEnd(usize),
    /// In the trailer, a line at a time up to the empty one.
    Trailer,
}

/// What [`Framer::feed`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// The response is complete and valid.
    Done,
    /// More bytes are needed: at least this many for the response (0: not known yet).
    More(usize),
}

/// One response being framed and checked, fed its bytes as they arrive.
#[derive(Debug)]
pub(crate) struct Framer<'a> {
    expect: Expect,
    reference: Reference<'a>,
    state: State,
}

fn malformed(message: String) -> Failure {
    Failure::new(ErrorKind::Body, message)
}

impl<'a> Framer<'a> {
    pub(crate) fn new(expect: Expect, reference: Reference<'a>) -> Framer<'a> {
        Framer {
            expect,
            reference,
            state: State::Head,
        }
    }

    /// Starts over, for the next response.
    pub(crate) fn restart(&mut self) {
        self.state = State::Head;
    }

    /// Consumes what it can of `input` (the bytes not consumed yet: the rest of this
    /// response, perhaps followed by others), checking them on the way: how many bytes it
    /// consumed, and whether the response is done. Bytes after its end are left alone.
    pub(crate) fn feed(&mut self, input: &[u8]) -> Result<(usize, Step), Failure> {
        let mut used = 0;
        let step = loop {
            let rest = &input[used..];
            match self.state {
                State::Head => {
                    let Some(head) = parse_head(rest).map_err(malformed)? else {
                        break Step::More(0);
                    };
                    used += head.len;
                    self.state = match head.framing {
                        Framing::Length(len) => {
                            self.expect.check(head.status, len)?;
                            State::Length { len, at: 0 }
                        }
                        Framing::Chunked => State::Chunked {
                            status: head.status,
                            body_len: 0,
                            part: Part::Size,
                        },
                    };
                }
                State::Length { len, at } => {
                    let n = (len - at).min(rest.len());
                    if let Some(diff) = self.reference.first_difference(at, &rest[..n]) {
                        return Err(self.reference.differs(len, Some(diff)));
                    }
                    used += n;
                    self.state = State::Length { len, at: at + n };
                    if at + n < len {
                        break Step::More(len - at - n);
                    }
                    if self.reference.len().is_some_and(|want| want != len) {
                        return Err(self.reference.differs(len, None));
                    }
                    break Step::Done;
                }
                State::Chunked {
                    status,
                    body_len,
                    part,
                } => {
                    let (taken, next) = match part {
                        Part::Data(left) if left > rest.len() => (rest.len(), Part::Data(left - rest.len())),
                        Part::Data(left) => (left, Part::DataEnd(2)),
                        Part::DataEnd(left) => {
                            let n = left.min(rest.len());
                            if rest[..n] != b"\r\n"[2 - left..2 - left + n] {
                                return Err(malformed("chunk data not followed by CRLF".into()));
                            }
                            (
                                n,
                                if n < left {
                                    Part::DataEnd(left - n)
                                } else {
                                    Part::Size
                                },
                            )
                        }
                        Part::Size | Part::Trailer => {
                            let Some(end) = find(rest, b"\r\n") else {
                                break Step::More(0);
                            };
                            if part == Part::Trailer && end == 0 {
                                used += 2;
                                self.expect.check(status, body_len)?;
                                if let Reference::File(..) = self.reference {
                                    return Err(malformed("a file answer without Content-Length".into()));
                                }
                                break Step::Done;
                            }
                            let next = match part {
                                Part::Trailer => Part::Trailer,
                                _ => match chunk_size(&rest[..end]).map_err(malformed)? {
                                    0 => Part::Trailer,
                                    size => Part::Data(size),
                                },
                            };
                            (end + 2, next)
                        }
                    };
                    let body_len = match (part, next) {
                        (Part::Size, Part::Data(left)) => body_len.saturating_add(left),
                        _ => body_len,
                    };
                    used += taken;
                    self.state = State::Chunked {
                        status,
                        body_len,
                        part: next,
                    };
                    if let Part::Data(left) | Part::DataEnd(left) = next
                        && taken == rest.len()
                    {
                        break Step::More(left);
                    }
                }
            }
        };
        Ok((used, step))
    }
}

#[cfg(test)]
#[path = "framer_tests.rs"]
mod tests;

//! One ring connection's answers, framed and checked straight out of the provided buffers
//! its recv completions name ([`Answers::absorb`]), each byte once, so the buffer can go
//! back to the kernel at once. Only what the [`Framer`] cannot consume yet (a head or a
//! chunk-size line cut by the end of a completion) is copied, into a small `carry`, and
//! joined with the next completion's first bytes a few hundred at a time until it is
//! consumed; a body is never copied. Bytes past the answers due fail the connection: no
//! request is waiting for them.

use crate::errors::{ErrorKind, Failure};
use crate::framer::{Framer, Step};

/// How many of a completion's bytes join the carry at a time at least (doubling with it).
const CARRY_STEP: usize = 256;

/// One connection's framing between completions.
pub(crate) struct Answers<'a> {
    framer: Framer<'a>,
    /// Received bytes the framer has not consumed yet (usually none).
    carry: Vec<u8>,
}

impl<'a> Answers<'a> {
    pub(crate) fn new(framer: Framer<'a>) -> Answers<'a> {
        Answers {
            framer,
            carry: Vec::new(),
        }
    }

    /// Frames and checks `bytes`, what one recv brought after everything before it, while
    /// answers are `due`: how many answers it completed (at most `due`).
    pub(crate) fn absorb(&mut self, bytes: &[u8], due: usize) -> Result<usize, Failure> {
        let mut done = 0;
        let mut rest = bytes;
        while !self.carry.is_empty() && !rest.is_empty() {
            let held = self.carry.len();
            let n = rest.len().min(held.max(CARRY_STEP));
            self.carry.extend_from_slice(&rest[..n]);
            rest = &rest[n..];
            let used = frame(&mut self.framer, &self.carry, due, &mut done)?;
            if used >= held {
                // The carried bytes are consumed: those of `bytes` the framer has left are
                // framed where they lie.
                let left = held + n - used;
                rest = &bytes[bytes.len() - rest.len() - left..];
                self.carry.clear();
            } else {
                self.carry.drain(..used);
            }
        }
        if self.carry.is_empty() {
            let used = frame(&mut self.framer, rest, due, &mut done)?;
            self.carry.extend_from_slice(&rest[used..]);
        }
        if done == due && !self.carry.is_empty() {
            let message = format!("{} bytes past the answers due", self.carry.len());
            return Err(Failure::new(ErrorKind::Body, message));
        }
        Ok(done)
    }
}

/// Feeds `input` to `framer` while answers are due (`done` of `due` so far, counted up):
/// the bytes it consumed.
fn frame(framer: &mut Framer, input: &[u8], due: usize, done: &mut usize) -> Result<usize, Failure> {
    let mut used = 0;
    while *done < due {
        let (n, step) = framer.feed(&input[used..])?;
        used += n;
        match step {
            Step::Done => {
                framer.restart();
                *done += 1;
            }
            Step::More(_) => break,
        }
    }
    Ok(used)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framer::Reference;
    use crate::response::Expect;

    fn answer(body: &[u8]) -> Vec<u8> {
        let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", body.len());
        [head.as_bytes(), body].concat()
    }

    fn expect(len: usize) -> Expect {
        Expect {
            status: 200,
            body_len: Some(len),
        }
    }

    /// Three answers cut at every pair of places into three completions, and a chunked
    /// one cut everywhere: each is framed once it is whole, and counted once.
    #[test]
    fn answers_cut_anywhere_across_completions_are_each_counted_once() {
        let body: Vec<u8> = (0..300u32).map(|i| i as u8).collect();
        let stream = [answer(&body), answer(&body), answer(&body)].concat();
        for a in (0..stream.len()).step_by(7) {
            for b in (a..stream.len()).step_by(13) {
                let mut answers = Answers::new(Framer::new(expect(300), Reference::Body(&body)));
                let mut due = 3;
                for piece in [&stream[..a], &stream[a..b], &stream[b..]] {
                    due -= answers.absorb(piece, due).unwrap();
                }
                assert_eq!((due, answers.carry.len()), (0, 0), "cut at {a} and {b}");
            }
        }
        let chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n";
        let any = Expect {
            status: 200,
            body_len: None,
        };
        for cut in 0..chunked.len() {
            let mut answers = Answers::new(Framer::new(any, Reference::Any));
            let first = answers.absorb(&chunked[..cut], 1).unwrap();
            assert_eq!(first + answers.absorb(&chunked[cut..], 1 - first).unwrap(), 1);
        }
    }

    /// A long head cut into one-byte completions is carried without being copied more
    /// than a few times over, and framed once whole.
    #[test]
    fn a_head_cut_into_single_bytes_is_carried_until_whole() {
        let stream = answer(b"abc");
        let mut answers = Answers::new(Framer::new(expect(3), Reference::Body(b"abc")));
        let mut done = 0;
        for byte in stream.chunks(1) {
            done += answers.absorb(byte, 1 - done).unwrap();
        }
        assert_eq!(done, 1);
    }

    #[test]
    fn a_wrong_body_byte_in_a_later_completion_fails() {
        let body = vec![7u8; 5000];
        let mut stream = [answer(&body), answer(&body)].concat();
        let at = stream.len() - 10;
        stream[at] = 8;
        let mut answers = Answers::new(Framer::new(expect(5000), Reference::Body(&body)));
        let (first, second) = stream.split_at(5020);
        assert_eq!(answers.absorb(first, 2), Ok(0));
        let failure = answers.absorb(second, 2).unwrap_err();
        assert_eq!(failure.kind, ErrorKind::Body);
        assert!(
            failure.message.contains("first difference at Some(4990)"),
            "{}",
            failure.message
        );
    }

    #[test]
    fn bytes_past_the_answers_due_fail() {
        let stream = [answer(b"x"), answer(b"x")].concat();
        let mut answers = Answers::new(Framer::new(expect(1), Reference::Any));
        let failure = answers.absorb(&stream, 1).unwrap_err();
        assert!(
            failure.message.contains("past the answers due"),
            "{}",
            failure.message
        );
        let mut idle = Answers::new(Framer::new(expect(1), Reference::Any));
        assert!(
            idle.absorb(b"H", 0).is_err(),
            "no byte may come with no answer due"
        );
    }
}

//! The receive side of a connection: what a recv hands it (bytes in a provided buffer, or
//! bytes a plain recv wrote into its input), and answering them. Complete requests are
//! answered straight from where they arrived when nothing is buffered; the rest is kept in
//! the connection's `Input`, which a plain recv can be lent to fill in place.
//!
//! An echoed body stays in the input buffer it was received into: that buffer moves into
//! the output (`Input::hand_over`, `Output::adopt`) and comes back as the input's spare
//! once sent (`DESIGN.md`, rule 4).

use http_core::Received;
use http_core::limits::OUTPUT_LIMIT;

use super::{Conn, DIRECT_BODY_MIN, Phase, Receiving};

/// Room given to an output buffer when it is allocated afresh, so that one small
/// response is rendered without regrowing it. Default is 512 bytes.
const OUTPUT_RESERVE: usize = 512;

/// The room lent to the one plain recv of a connection whose multishot recv found the
/// buffer ring empty: the head limit's default, so many connections starved at once
/// hold little, and a request head still fits whole. Default is 16 KiB.
const STARVED_ROOM: usize = 16 << 10;

impl Conn {
    /// The input's room lent to the plain recv just submitted; it stays in place until
    /// the recv's completion ([`Conn::on_recv`]).
    pub fn recv_room(&mut self) -> &mut [u8] {
        // An upload's recv is given its slice and no more: the buffer may have more room
        // than was lent for it.
        let slice = match self.bulk_upload() {
            Some(_) => self.upload_slice(),
            None => usize::MAX,
        };
        let room = self.input.lent_room();
        let len = room.len().min(slice);
        &mut room[..len]
    }

    /// A plain recv into the input was submitted: lend it room.
    pub(super) fn lend_input(&mut self) {
        if self.starved && !self.bulk && !self.body_to_come() && self.bulk_upload().is_none() {
            self.input.lend(STARVED_ROOM);
            return;
        }
        if self.bulk_upload().is_some() {
            let slice = self.upload_slice();
            self.input.lend(slice);
            return;
        }
        // Room for the rest of the body, but grown only as fast as bytes arrive,
        // so a head alone cannot make the server allocate its whole body.
        let body = self.input_needed.saturating_sub(self.input.len());
        let grown = body.min(self.input.len().max(DIRECT_BODY_MIN));
        self.input.lend(self.plain_size().max(grown));
    }

    /// A large part of a request's body is still to come.
    fn body_to_come(&self) -> bool {
        self.phase == Phase::Open && self.input_needed >= self.input.len() + DIRECT_BODY_MIN
    }

    /// Receive with plain recvs into the input rather than through the buffer ring.
    pub(super) fn wants_plain_recv(&self) -> bool {
        if self.encrypted {
            // Ciphertext goes through the session, never straight into the input.
            return false;
        }
        match self.receiving {
            Receiving::Plain { .. } => true,
            Receiving::Ring {
                large_bodies_plain, ..
            } => {
                (large_bodies_plain && (self.bulk || self.body_to_come()))
                    || self.bulk_upload().is_some()
                    || self.starved
            }
        }
    }

    /// The buffer group a multishot recv takes its buffers from.
    pub fn buffer_group(&self) -> u16 {
        match self.receiving {
            Receiving::Ring { group, .. } => group,
            Receiving::Plain { .. } => unreachable!("a plain-recv connection asks for RecvInto"),
        }
    }

    /// The least room a plain recv is given.
    fn plain_size(&self) -> usize {
        match self.receiving {
            Receiving::Plain { size } => size,
            Receiving::Ring { .. } => DIRECT_BODY_MIN,
        }
    }

    /// A recv completed with `result`; `data` is what it received into a provided
    /// buffer, if any (else a positive result counts bytes written into the input).
    /// Returns the responses rendered.
    pub fn on_recv(&mut self, result: i32, data: Option<&[u8]>, now: u64) -> usize {
        if self.input.is_lent() {
            self.starved = false;
            self.input.filled(result.max(0) as usize);
            if self.phase != Phase::Open {
                // No request is answered any more: what was buffered, and what this recv
                // wrote, is dropped (what a connection ending while lent left for here).
                self.input.clear();
            }
        }
        match (result, data) {
            (1.., Some(data)) if self.encrypted => self.on_ciphertext(data, now),
            (1.., Some(data)) => self.on_data(data, now),
            (1.., None) => {
                self.last_progress = now;
                if self.phase != Phase::Open {
                    return 0;
                }
                self.request_bytes(now, result as usize);
                let answered = self.answer_within_cap();
                self.request_timed(now, answered);
                answered
            }
            (0, _) => {
                self.on_eof();
                0
            }
            _ if -result == libc::ENOBUFS => {
                // Ciphertext is only ever received through the ring: re-armed as it was.
                self.starved = !self.encrypted;
                self.answer()
            }
            _ if -result == libc::ECANCELED => self.answer(),
            _ => {
                self.fail();
                0
            }
        }
    }

    /// Bytes arrived. While open they are answered; otherwise they are discarded. Returns
    /// the responses rendered. With nothing buffered, complete requests are answered
    /// straight from `data` and only the rest is copied: a body that arrives in one
    /// completion is never copied before it is answered.
    pub fn on_data(&mut self, data: &[u8], now: u64) -> usize {
        self.last_progress = now;
        if self.phase != Phase::Open {
            return 0;
        }
        self.request_bytes(now, data.len());
        let answered = self.answer_data(data);
        self.request_timed(now, answered);
        answered
    }

    /// Answers `data` (plain bytes, or over TLS a record's plaintext) while open, as
    /// [`Conn::on_data`] says; returns the responses rendered.
    pub(super) fn answer_data(&mut self, data: &[u8]) -> usize {
        if self.phase != Phase::Open {
            return 0;
        }
        let mut answered = 0;
        if self.input.is_empty() {
            let consumed;
            (consumed, answered, _) = self.serve(Received::Shared(data), false);
            if self.phase == Phase::Open {
                self.input.extend(&data[consumed..]);
            }
        } else {
            self.input.extend(data);
        }
        answered + self.answer_within_cap()
    }

    /// Input grew: answer what it can, then close if what is left passed the cap (while
    /// reading is held, [`Conn::held_cap`]).
    fn answer_within_cap(&mut self) -> usize {
        let answered = self.answer();
        let cap = match self.reading_held() {
            true => self.held_cap(),
            false => self.input_cap,
        };
        if self.input.len() > cap {
            self.phase = Phase::Closing;
        }
        answered
    }

    /// The input cap while reading is held (a file's answer under way with input waiting
    /// behind it, or output backed up). The input still grows by what the recv in flight
    /// was handed before the hold's cancel reached the kernel: the peer did nothing wrong,
    /// so that is kept (and answered once the hold ends). The input held at most the cap
    /// when the hold began; since, a multishot recv can have been handed at most every
    /// buffer of the ring, and a plain recv at most its room, never more than the cap
    /// (`lend_input`). So the cap, plus the larger of the cap and the ring's bytes.
    fn held_cap(&self) -> usize {
        let ring_bytes = match self.receiving {
            Receiving::Ring { ring_bytes, .. } => ring_bytes,
            Receiving::Plain { .. } => 0,
        };
        self.input_cap + self.input_cap.max(ring_bytes)
    }

    /// Runs the codec over buffered input if it can progress (and no recv is writing
    /// it); returns the responses rendered.
    pub(super) fn answer(&mut self) -> usize {
        let mut responses = 0;
        // Again after a request answered at once without reading (a file, without
        // `--files-dir`), until the codec stops consuming.
        while !self.input.is_empty() && self.input.len() >= self.input_needed && !self.input.is_lent() {
            // A large echoed body is kept where it was received: it leaves in the same
            // gathered send as its head, so keeping it costs nothing a copy would not.
            // (Not while input before it was consumed and not yet moved away: a kept body
            // is a range of the whole buffer. It is copied then, a rare case.)
            let mut input = std::mem::take(&mut self.input);
            let lend = input.at_front();
            let (consumed, answered, kept_input) = self.serve(Received::Writable(input.bytes_mut()), lend);
            responses += answered;
            self.input = input;
            if kept_input {
                // An echo refers to its body where it was received: the output owns that
                // buffer until the response is sent (`on_sent` gives it back).
                self.pending.adopt(self.input.hand_over(consumed));
            } else {
                self.input.consume(consumed);
            }
            if self.phase != Phase::Open {
                self.input.clear();
            }
            if !self.wants_plain_recv() {
                // The rest of a request split over completions, now answered: the next
                // one arrives in the buffer ring, so keep no buffer for it.
                self.input.free_if_empty();
            }
            if consumed == 0 {
                break;
            }
        }
        // Over TLS, the shutdown check `serve` skips (the session may hold more records)
        // is made here, where the session is in place and everything decrypted answered;
        // inside `on_ciphertext` the session is out, and it checks once every record is in.
        if self.encrypted && self.tls.is_some() {
            self.end_if_shutting_down();
        }
        self.settle();
        responses
    }

    /// Answers what it can of `input` (buffered or just received), rendering at most up to
    /// the output limit; returns the bytes consumed, the responses rendered, and whether a
    /// response refers to `input` (only when `lend`, for the connection's own input: the
    /// caller must then hand its buffer to `pending`).
    fn serve(&mut self, input: Received, lend: bool) -> (usize, usize, bool) {
        if self.phase != Phase::Open || self.paused() || self.file.is_some() {
            return (0, 0, false);
        }
        let room = self.pending.len() + OUTPUT_LIMIT - self.backlog();
        if self.pending.capacity() == 0 {
            self.pending.reserve(OUTPUT_RESERVE);
        }
        let len = input.bytes().len();
        let (outcome, kept_input) = self.codec.serve_lending(input, &mut self.pending, room, lend);
        let rest = len - outcome.consumed;
        self.input_needed = rest + outcome.needed;
        // A request this large still unfinished (a body to come, or a chunked one that has
        // grown): let its rest and what follows come straight into the input.
        self.bulk |= self.input_needed >= DIRECT_BODY_MIN;
        if let Some(request) = outcome.file {
            self.start_file(request, rest);
        } else if outcome.close
            || (self.shutting_down && rest == 0 && !self.encrypted && !self.codec.mid_request())
        {
            // Over TLS the session may hold records not yet handed over: `answer` and
            // `on_ciphertext` decide about shutdown (`Conn::end_if_shutting_down`).
            self.phase = Phase::Draining;
        }
        (outcome.consumed, outcome.responses, kept_input)
    }
}

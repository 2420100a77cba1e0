//! A connection's buffered input, which a plain recv can fill in place.
//!
//! The bytes live in an initialised `Vec` that only grows (until it is handed over or
//! freed): `start..used` of them are input, the rest is room a recv may be lent. While
//! it is lent, every call that would change the buffer asserts (`DESIGN.md`, rule 2).
//! Room lent to a recv is zeroed once, when a buffer grows. Consuming input moves the
//! start; the rest moves to the front only once as much has been consumed as is left (or
//! before the buffer grows), so answering a long pipelined input costs time linear in it.
//!
//! A response may keep an echoed body where it was received: the connection then hands
//! the whole buffer to its output ([`Input::hand_over`]) and continues in a spare one.
//! Once that response is sent the buffer comes back ([`Input::recycle`]) as the spare, so
//! a connection echoing large bodies alternates two buffers, neither zeroed nor regrown
//! again.

/// Input up to this long moves into a larger spare buffer rather than growing its own
/// (see `make_room`). Default is 4 KiB.
const MOVE_TO_SPARE_MAX: usize = 4 << 10;

#[derive(Default)]
pub struct Input {
    bytes: Vec<u8>,
    /// Where the input starts: what is before it was consumed.
    start: usize,
    used: usize,
    /// A recv is writing `bytes[used..]`.
    lent: bool,
    /// A buffer handed over earlier and given back, initialised to its length: the next
    /// one to grow into.
    spare: Vec<u8>,
}

/// Shows sizes only: the room may be being written by the kernel.
impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Input")
            .field("input", &(self.used - self.start))
            .field("allocated", &self.bytes.len())
            .field("lent", &self.lent)
            .finish()
    }
}

impl Input {
    #[cfg(test)]
    pub fn bytes(&self) -> &[u8] {
        &self.bytes[self.start..self.used]
    }

    /// The input, for the codec to decode a chunked body in place.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        assert!(!self.lent, "input changed while a recv writes it");
        &mut self.bytes[self.start..self.used]
    }

    /// The input starts at its buffer's first byte: a response may then keep a body where
    /// it lies ([`Input::hand_over`] gives up the buffer a response's ranges index).
    pub fn at_front(&self) -> bool {
        self.start == 0
    }

    pub fn len(&self) -> usize {
        self.used - self.start
    }

    pub fn is_empty(&self) -> bool {
        self.used == self.start
    }

    /// Bytes allocated, input, room and spare together.
    #[cfg(test)]
    pub fn allocated(&self) -> usize {
        self.bytes.capacity() + self.spare.capacity()
    }

    /// A recv is writing the room: until it completes, the input may not change.
    pub fn is_lent(&self) -> bool {
        self.lent
    }

    /// Appends `data`.
    pub fn extend(&mut self, data: &[u8]) {
        assert!(!self.lent, "input changed while a recv writes it");
        self.make_room(data.len());
        let end = self.used + data.len();
        if end > self.bytes.len() {
            self.bytes.truncate(self.used);
            self.bytes.extend_from_slice(data);
        } else {
            self.bytes[self.used..end].copy_from_slice(data);
        }
        self.used = end;
    }

    /// Drops the first `n` bytes of the input: moves its start, and the rest to the front
    /// once as much has been consumed as is left (each byte moved is paid for by one
    /// consumed).
    pub fn consume(&mut self, n: usize) {
        assert!(!self.lent, "input changed while a recv writes it");
        assert!(n <= self.len(), "consumed more than the input");
        self.start += n;
        if self.start == self.used {
            (self.start, self.used) = (0, 0);
        } else if self.start >= self.used - self.start {
            self.move_to_front();
        }
    }

    /// Moves the input to the buffer's front.
    fn move_to_front(&mut self) {
        if self.start > 0 {
            self.bytes.copy_within(self.start..self.used, 0);
            self.used -= self.start;
            self.start = 0;
        }
    }

    /// Drops everything.
    pub fn clear(&mut self) {
        self.consume(self.len());
    }

    /// Lends at least `at_least` bytes of room to a recv, which writes them until
    /// [`Input::filled`].
    pub fn lend(&mut self, at_least: usize) {
        assert!(!self.lent, "input lent twice");
        self.make_room(at_least);
        let end = self.used + at_least;
        if end > self.bytes.len() {
            self.bytes.resize(end, 0);
        }
        self.lent = true;
    }

    /// The room lent to a recv.
    pub fn lent_room(&mut self) -> &mut [u8] {
        assert!(self.lent, "no room is lent");
        &mut self.bytes[self.used..]
    }

    /// The recv lent the room completed, having written its first `n` bytes (0 when it
    /// failed or was cancelled).
    pub fn filled(&mut self, n: usize) {
        assert!(self.lent, "a recv completed into input that was not lent");
        self.lent = false;
        self.used += n.min(self.bytes.len() - self.used);
    }

    /// Gives up the whole buffer, whose input up to `consumed` a response now refers to,
    /// and continues in the spare one with the input after `consumed`.
    pub fn hand_over(&mut self, consumed: usize) -> Vec<u8> {
        assert!(!self.lent, "input handed over while a recv writes it");
        assert!(
            self.at_front(),
            "a response keeps ranges of the input at the front"
        );
        let buffer = std::mem::replace(&mut self.bytes, std::mem::take(&mut self.spare));
        let used = std::mem::replace(&mut self.used, 0);
        self.extend(&buffer[consumed..used]);
        buffer
    }

    /// A buffer handed over earlier comes back: kept as the spare if larger than it.
    pub fn recycle(&mut self, buffer: Vec<u8>) {
        if buffer.len() > self.spare.len() {
            self.spare = buffer;
        }
    }

    /// Before `additional` bytes are written after the input: if they do not fit after
    /// it, the input moves to the buffer's front; if they still do not fit, and the spare
    /// is large enough and the input short (at most [`MOVE_TO_SPARE_MAX`]), the input
    /// moves there instead (a copy of the input only; the spare's room is already
    /// initialised). A longer input grows in place, so that a large body received in two
    /// recvs is not copied into the spare between them on every request: its buffer grows
    /// once and is reused from then on.
    fn make_room(&mut self, additional: usize) {
        if self.used + additional <= self.bytes.len() {
            return;
        }
        self.move_to_front();
        let end = self.used + additional;
        let short = self.used <= MOVE_TO_SPARE_MAX;
        if end > self.bytes.len() && end <= self.spare.len() && short {
            self.spare[..self.used].copy_from_slice(&self.bytes[..self.used]);
            self.bytes = std::mem::take(&mut self.spare);
        }
    }

    /// Frees the spare, and the buffer if it holds no input and no recv writes it, so an
    /// idle connection keeps no memory of the bodies it once received.
    pub fn release_if_empty(&mut self) {
        self.spare = Vec::new();
        self.free_if_empty();
    }

    /// Frees the buffer, whatever its size, if it holds no input and no recv writes it.
    pub fn free_if_empty(&mut self) {
        if self.is_empty() && !self.lent {
            (self.start, self.used) = (0, 0);
            self.bytes = Vec::new();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn consuming_a_long_input_a_little_at_a_time_moves_each_byte_about_once() {
        let mut input = Input::default();
        let long: Vec<u8> = (0..100_000u32).map(|n| n as u8).collect();
        input.extend(&long);
        let mut consumed = 0;
        while consumed < long.len() {
            let n = 37.min(long.len() - consumed);
            input.consume(n);
            consumed += n;
            assert_eq!(input.bytes(), &long[consumed..], "after {consumed}");
            // The rest moved to the front only once half of what was there is consumed.
            assert!(input.start <= input.len() || input.start == 0);
        }
        assert!(input.is_empty() && input.at_front());
    }

    /// A partly consumed input extended into room its buffer already has (a head split
    /// behind a pipelined one): every byte in its place.
    #[test]
    fn input_partly_consumed_then_extended_within_its_buffer_keeps_every_byte() {
        let mut input = Input::default();
        input.extend(&[b'a'; 3990]);
        input.extend(&[b'b'; 20]);
        input.consume(4000);
        input.extend(&[b'c'; 590]);
        input.consume(100);
        assert!(input.start > 0, "the premise: consumed, not yet moved");
        input.extend(b"d");
        let mut want = vec![b'c'; 500];
        want.push(b'd');
        assert_eq!(input.bytes(), &want[..]);
    }

    /// Every sequence of appends, consumes and recvs keeps the bytes a plain `Vec` would.
    #[test]
    fn it_holds_what_a_plain_vec_would_under_any_mix_of_calls() {
        let mut seed = 0x2545_f491_u64;
        let mut next = move |below: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % below as u64) as usize
        };
        let (mut input, mut model) = (Input::default(), Vec::new());
        for step in 0..20_000u32 {
            let byte = step as u8;
            match next(4) {
                0 => {
                    let data = vec![byte; next(3000)];
                    input.extend(&data);
                    model.extend_from_slice(&data);
                }
                1 => {
                    let n = next(model.len() + 1);
                    input.consume(n);
                    model.drain(..n);
                }
                2 => {
                    let (room, n) = (1 + next(5000), next(5000));
                    input.lend(room);
                    let n = n.min(room);
                    input.lent_room()[..n].fill(byte);
                    input.filled(n);
                    model.extend(std::iter::repeat_n(byte, n));
                }
                _ => {
                    if input.at_front() && !model.is_empty() {
                        let n = next(model.len() + 1);
                        let buffer = input.hand_over(n);
                        assert_eq!(&buffer[..n], &model[..n]);
                        model.drain(..n);
                        input.recycle(buffer);
                    }
                }
            }
            assert_eq!(input.bytes(), &model[..], "step {step}");
        }
    }

    #[test]
    fn a_lent_room_becomes_input_once_filled() {
        let mut input = Input::default();
        input.extend(b"head:");
        input.lend(4);
        input.lent_room()[..3].copy_from_slice(b"abc");
        input.filled(3);
        assert_eq!(input.bytes(), b"head:abc");
        input.consume(5);
        assert_eq!(input.bytes(), b"abc");
    }

    #[test]
    #[should_panic(expected = "while a recv writes it")]
    fn input_cannot_grow_while_lent() {
        let mut input = Input::default();
        input.lend(16);
        input.extend(b"x");
    }

    #[test]
    fn a_large_emptied_buffer_is_freed() {
        let mut input = Input::default();
        input.lend(1 << 20);
        input.filled(1 << 20);
        input.clear();
        assert!(input.bytes.capacity() >= 1 << 20, "kept while requests follow");
        input.release_if_empty();
        assert_eq!(input.bytes.capacity(), 0);
    }

    #[test]
    fn a_handed_over_buffer_keeps_its_input_and_comes_back_as_the_spare() {
        let mut input = Input::default();
        input.extend(b"request one;request two");
        let buffer = input.hand_over(12);
        assert_eq!(
            &buffer[..12],
            b"request one;",
            "the answered request stays in place"
        );
        assert_eq!(input.bytes(), b"request two");
        let address = buffer.as_ptr();
        input.clear();
        input.recycle(buffer);
        input.lend(16);
        assert_eq!(
            input.lent_room().as_ptr(),
            address,
            "grown into the spare, not reallocated"
        );
        input.filled(0);
        input.recycle(vec![0; 1 << 16]);
        input.release_if_empty();
        assert_eq!(input.spare.capacity(), 0, "the spare is freed when idle");
    }

    #[test]
    fn large_bodies_received_in_two_recvs_alternate_between_two_buffers_without_copies() {
        // Each request's body arrives in two recvs: 64 KiB (the head and most of the body)
        // and the rest, as a connection echoing 64 KiB bodies receives them.
        let receive = |input: &mut Input, request: u8| {
            input.lent_room()[..1 << 16].fill(request);
            input.filled(1 << 16);
            input.lend(1 << 16);
            input.filled(100);
            assert_eq!(input.bytes()[0], request, "the body so far is kept");
        };
        let mut input = Input::default();
        input.lend(1 << 16);
        receive(&mut input, 0);
        let mut seen = Vec::new();
        for request in 1..8u8 {
            let answered = input.hand_over(input.len());
            // The next request's first recv is submitted before the response is sent.
            input.lend(1 << 16);
            let first = input.lent_room().as_ptr();
            input.recycle(answered);
            receive(&mut input, request);
            let (buffer, length) = (input.bytes().as_ptr(), input.bytes.len());
            // A buffer's first growth may reallocate it; from the third request on both
            // have grown, so a body that changes address was moved between its recvs.
            if request >= 3 {
                assert_eq!(buffer, first, "the body is not moved between its recvs");
            }
            seen.push((buffer, length));
        }
        // Once both buffers have grown, no buffer is dropped, so an address seen again is
        // the same buffer, reused.
        let steady = &seen[2..];
        assert!(steady.iter().all(|&seen| seen == steady[0] || seen == steady[1]));
        assert_ne!(steady[0], steady[1], "two buffers, taking turns");
    }

    #[test]
    fn input_moves_into_a_larger_spare_with_its_bytes() {
        let mut input = Input::default();
        input.extend(b"head");
        input.recycle(vec![0; 1 << 16]);
        input.extend(&[b'x'; 100]);
        assert_eq!(&input.bytes()[..5], b"headx");
        assert_eq!(input.len(), 104);
        assert_eq!(input.allocated(), 1 << 16, "the small buffer was dropped");
    }
}

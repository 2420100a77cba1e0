//! A connection's buffered input, which a plain recv can fill in place.
//!
//! The bytes live in one initialised `Vec` that only grows: `used` of them are input, the
//! rest is room a recv may be lent. While lent, the buffer neither grows, shrinks nor
//! moves its bytes (every such call asserts), so the address handed to the kernel stays
//! valid and unaliased until the recv's completion reports how much it wrote. No byte is
//! zeroed or copied twice: room lent to a recv is zeroed once, when the buffer grows.

/// Room past which an emptied buffer is freed by [`Input::release_if_empty`].
const KEEP_WHEN_EMPTY: usize = 64 << 10;

#[derive(Default)]
pub struct Input {
    bytes: Vec<u8>,
    used: usize,
    /// A recv is writing `bytes[used..]`.
    lent: bool,
}

/// Shows sizes only: the room may be being written by the kernel.
impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Input")
            .field("used", &self.used)
            .field("allocated", &self.bytes.len())
            .field("lent", &self.lent)
            .finish()
    }
}

impl Input {
    pub fn bytes(&self) -> &[u8] {
        &self.bytes[..self.used]
    }

    pub fn len(&self) -> usize {
        self.used
    }

    pub fn is_empty(&self) -> bool {
        self.used == 0
    }

    /// Bytes allocated, input and room together.
    #[cfg(test)]
    pub fn allocated(&self) -> usize {
        self.bytes.capacity()
    }

    /// A recv is writing the room: until it completes, the input may not change.
    pub fn is_lent(&self) -> bool {
        self.lent
    }

    /// Appends `data`.
    pub fn extend(&mut self, data: &[u8]) {
        assert!(!self.lent, "input changed while a recv writes it");
        let end = self.used + data.len();
        if end > self.bytes.len() {
            self.bytes.truncate(self.used);
            self.bytes.extend_from_slice(data);
        } else {
            self.bytes[self.used..end].copy_from_slice(data);
        }
        self.used = end;
    }

    /// Drops the first `n` bytes.
    pub fn consume(&mut self, n: usize) {
        assert!(!self.lent, "input changed while a recv writes it");
        self.bytes.copy_within(n..self.used, 0);
        self.used -= n;
    }

    /// Drops everything.
    pub fn clear(&mut self) {
        self.consume(self.used);
    }

    /// Lends at least `at_least` bytes of room to a recv, which writes them until
    /// [`Input::filled`].
    pub fn lend(&mut self, at_least: usize) {
        assert!(!self.lent, "input lent twice");
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

    /// Frees a large buffer holding no input, so an idle connection that once received a
    /// large body does not keep its memory.
    pub fn release_if_empty(&mut self) {
        if self.bytes.capacity() > KEEP_WHEN_EMPTY {
            self.free_if_empty();
        }
    }

    /// Frees the buffer, whatever its size, if it holds no input and no recv writes it.
    pub fn free_if_empty(&mut self) {
        if self.used == 0 && !self.lent {
            self.bytes = Vec::new();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}

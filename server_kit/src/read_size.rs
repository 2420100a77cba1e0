//! How many bytes a connection offers its next read, for every reader of the shared loop
//! ([`crate::exchange`]'s transports and [`crate::shared_buffer`]): hyper's adaptive
//! read strategy (`hyper/src/proto/h1/io.rs`, `ReadStrategy::Adaptive`), so a large body
//! costs few reads on every I/O layer, as it does behind hyper. A connection starts at
//! [`INITIAL`]; a read that fills what it was offered doubles the next (up to [`MAX`]);
//! two reads in a row under half of it halve it (down to [`INITIAL`]). Between requests
//! it starts again from [`INITIAL`], and buffers larger than a connection keeps
//! ([`IDLE_CAPACITY`]) are freed first ([`trim_idle`], [`fit`]), so a connection that
//! took a large upload and then waits holds no more than one that never did.
//!
//! A 20 MiB upload takes 84 reads (16, 32, 64, 128 KiB, then 256 KiB each) instead
//! of 1,280 at a fixed 16 KiB.

/// Bytes offered to a connection's first read, and to its first read after each request.
/// Default is 16 KiB: a request head and a small body in one read.
pub const INITIAL: usize = 16 * 1024;

/// The most bytes offered to one read. Default is 256 KiB: the fourth doubling of
/// [`INITIAL`]. Past it a read's system call is a fraction of a percent of the cost of
/// copying the bytes it returns (256 KiB takes tens of microseconds to copy), so a larger
/// read saves nothing while a busy connection holds more memory. hyper's default maximum
/// is about 400 KiB (8 KiB + 100 × 4 KiB); at 256 KiB a 20 MiB body costs 84 reads where
/// hyper's costs about 55, the same order of a few per MiB.
pub const MAX: usize = 256 * 1024;

/// The most capacity a connection keeps in a buffer while it waits between requests; a
/// larger one is freed before the wait. Default is 128 KiB: buffers that a request of up
/// to 64 KiB grew to (its head and body held whole while the reads grow toward it) are
/// kept, so keep-alive requests of that size reuse them; buffers grown by reads of a
/// large upload or body are given back.
pub const IDLE_CAPACITY: usize = 128 * 1024;

/// One connection's next read size: hyper's adaptive strategy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadSize {
    next: usize,
    /// The last read was small (under half of what was offered): one more, and the
    /// next read size halves.
    small_before: bool,
}

impl Default for ReadSize {
    fn default() -> Self {
        ReadSize::new()
    }
}

impl ReadSize {
    /// Starts at [`INITIAL`].
    pub const fn new() -> Self {
        ReadSize {
            next: INITIAL,
            small_before: false,
        }
    }

    /// Bytes to offer the next read.
    pub fn next(&self) -> usize {
        self.next
    }

    /// Takes note of a read of `read` bytes that was offered [`ReadSize::next`]: a full
    /// read (or a larger one, where the buffer had more room) doubles the next size up
    /// to [`MAX`]; a second read in a row under half of it halves it down to
    /// [`INITIAL`] (one small read may just be the end of a body); any other read keeps it.
    pub fn record(&mut self, read: usize) {
        if read >= self.next {
            self.next = (self.next * 2).min(MAX);
            self.small_before = false;
        } else if read < self.next / 2 {
            if self.small_before {
                self.next = (self.next / 2).max(INITIAL);
            }
            self.small_before = !self.small_before;
        } else {
            self.small_before = false;
        }
    }

    /// The connection is between requests: the next read is offered [`INITIAL`] again,
    /// so a connection waiting for its next request lends no large buffer to the wait.
    pub fn idle(&mut self) {
        *self = ReadSize::new();
    }
}

/// Readies a read buffer that holds nothing between reads (the buffer an io_uring
/// runtime borrows by value for each read, whose bytes are then copied out): cleared,
/// with room for at least `reserve` bytes and less than twice that. So it grows with the
/// reads, and is given back once they shrink or the connection goes idle; a buffer a
/// dropped read took with it (no capacity) is replaced.
pub fn fit(buffer: &mut Vec<u8>, reserve: usize) {
    buffer.clear();
    let capacity = buffer.capacity();
    if capacity < reserve || capacity >= 2 * reserve {
        *buffer = Vec::with_capacity(reserve);
    }
}

/// Frees an empty buffer that is larger than a connection keeps between requests
/// ([`IDLE_CAPACITY`]); the next read allocates what it needs.
pub fn trim_idle(buffer: &mut Vec<u8>) {
    debug_assert!(buffer.is_empty(), "only an empty buffer is trimmed");
    if buffer.capacity() > IDLE_CAPACITY {
        *buffer = Vec::new();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sizes offered while every read fills what it was offered.
    fn grown(reads: usize) -> Vec<usize> {
        let mut size = ReadSize::new();
        (0..reads)
            .map(|_| {
                let offered = size.next();
                size.record(offered);
                offered
            })
            .collect()
    }

    #[test]
    fn full_reads_double_the_next_size_up_to_the_maximum() {
        const KIB: usize = 1024;
        assert_eq!(
            grown(7),
            [
                16 * KIB,
                32 * KIB,
                64 * KIB,
                128 * KIB,
                256 * KIB,
                256 * KIB,
                256 * KIB
            ]
        );
    }

    #[test]
    fn a_read_larger_than_offered_grows_too() {
        let mut size = ReadSize::new();
        size.record(INITIAL + 1);
        assert_eq!(size.next(), 2 * INITIAL);
    }

    #[test]
    fn a_twenty_mib_upload_takes_a_few_dozen_reads() {
        let (mut size, mut left, mut reads) = (ReadSize::new(), 20 << 20, 0);
        while left > 0 {
            let read = size.next().min(left);
            size.record(read);
            left -= read;
            reads += 1;
        }
        // 16, 32, 64 and 128 KiB, then 80 reads of at most 256 KiB.
        assert_eq!(reads, 84);
    }

    #[test]
    fn two_small_reads_in_a_row_halve_the_next_size() {
        let mut size = ReadSize::new();
        for _ in 0..3 {
            size.record(size.next());
        }
        assert_eq!(size.next(), 8 * INITIAL);
        size.record(100);
        assert_eq!(size.next(), 8 * INITIAL, "one small read keeps the size");
        size.record(100);
        assert_eq!(size.next(), 4 * INITIAL);
        size.record(100);
        size.record(100);
        assert_eq!(size.next(), 2 * INITIAL);
        for _ in 0..4 {
            size.record(0);
        }
        assert_eq!(size.next(), INITIAL, "never below the initial size");
    }

    #[test]
    fn a_read_of_half_or_more_cancels_a_pending_decrease() {
        let mut size = ReadSize::new();
        size.record(INITIAL);
        size.record(2 * INITIAL);
        assert_eq!(size.next(), 4 * INITIAL);
        size.record(100);
        size.record(2 * INITIAL);
        size.record(100);
        assert_eq!(size.next(), 4 * INITIAL, "the small reads were not in a row");
    }

    #[test]
    fn going_idle_starts_again_from_the_initial_size() {
        let mut size = ReadSize::new();
        for _ in 0..10 {
            size.record(size.next());
        }
        assert_eq!(size.next(), MAX);
        size.idle();
        assert_eq!(size, ReadSize::new());
    }

    #[test]
    fn a_lent_buffer_grows_with_the_reads_and_shrinks_back() {
        let mut buffer = Vec::new();
        fit(&mut buffer, INITIAL);
        assert!(buffer.capacity() >= INITIAL);
        buffer.extend_from_slice(&[1; 100]);
        fit(&mut buffer, MAX);
        assert!(buffer.is_empty() && buffer.capacity() >= MAX);
        fit(&mut buffer, MAX / 2 + 1);
        assert!(buffer.capacity() >= MAX, "kept while under twice the reads");
        fit(&mut buffer, INITIAL);
        assert!((INITIAL..2 * INITIAL).contains(&buffer.capacity()));
    }

    #[test]
    fn an_idle_buffer_keeps_at_most_the_idle_capacity() {
        let mut kept = Vec::with_capacity(IDLE_CAPACITY);
        trim_idle(&mut kept);
        assert_eq!(kept.capacity(), IDLE_CAPACITY);
        let mut large = Vec::<u8>::with_capacity(MAX);
        trim_idle(&mut large);
        assert_eq!(large.capacity(), 0);
    }
}

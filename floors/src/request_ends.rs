//! Counting requests without parsing them: a request without a body ends at its first
//! `\r\n\r\n`, so the bare loops answer once per such end, wherever reads split them.

const END: &[u8; 4] = b"\r\n\r\n";

/// How much of `\r\n\r\n` the bytes seen so far end with, carried across reads.
#[derive(Debug, Default, Clone, Copy)]
pub struct RequestEnds {
    matched: usize,
}

impl RequestEnds {
    /// The number of request ends completed by `bytes`.
    pub fn count(&mut self, bytes: &[u8]) -> usize {
        let mut ends = 0;
        for &byte in bytes {
            self.matched = if byte == END[self.matched] {
                self.matched + 1
            } else {
                usize::from(byte == b'\r')
            };
            if self.matched == END.len() {
                ends += 1;
                self.matched = 0;
            }
        }
        ends
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REQUEST: &[u8] = b"GET / HTTP/1.1\r\nHost: a\r\n\r\n";

    #[test]
    fn counts_whole_and_pipelined_requests() {
        let mut ends = RequestEnds::default();
        assert_eq!(ends.count(REQUEST), 1);
        assert_eq!(ends.count(&REQUEST.repeat(16)), 16);
        assert_eq!(ends.count(b"GET / HTTP/1.1\r\nHost: a\r\n"), 0);
    }

    #[test]
    fn an_end_split_across_reads_counts_once() {
        let pipelined = REQUEST.repeat(3);
        for split in 0..=pipelined.len() {
            let mut ends = RequestEnds::default();
            let (a, b) = pipelined.split_at(split);
            assert_eq!(ends.count(a) + ends.count(b), 3, "split at {split}");
        }
    }

    #[test]
    fn near_misses_are_not_ends() {
        let mut ends = RequestEnds::default();
        assert_eq!(ends.count(b"\r\n\n\r\r\n\r\r\n"), 0);
        assert_eq!(ends.count(b"\r\n"), 1);
    }
}

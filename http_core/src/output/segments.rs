//! The walk behind [`Output::segments`]: the owned bytes before each spliced body, the
//! body, and the owned bytes after the last one, skipping empty ones. A plain loop over
//! indices, because servers walk an output several times per send and a one-segment
//! response should cost a few comparisons, not a chain of iterator adapters.

use super::{Output, Piece, Segment};

pub struct Segments<'a> {
    output: &'a Output,
    /// The next splice whose owned bytes before it are due; one past the last stands for
    /// the owned bytes after every splice.
    splice: usize,
    /// Where the owned bytes not yet walked start.
    start: usize,
    /// The body of splice `splice - 1` is due next.
    body_due: bool,
}

impl<'a> Segments<'a> {
    pub(super) fn new(output: &'a Output) -> Self {
        Segments {
            output,
            splice: 0,
            start: 0,
            body_due: false,
        }
    }
}

impl Iterator for Segments<'_> {
    type Item = Segment;

    fn next(&mut self) -> Option<Segment> {
        let output = self.output;
        loop {
            let segment = if std::mem::take(&mut self.body_due) {
                match &output.spliced[self.splice - 1].1 {
                    Piece::Static(bytes) => Segment::Static(bytes),
                    Piece::Adopted(range) => Segment::Adopted(range.clone()),
                }
            } else if self.splice <= output.spliced.len() {
                let end = (output.spliced.get(self.splice)).map_or(output.owned.len(), |(at, _)| *at);
                let before = Segment::Owned(self.start..end);
                self.start = end;
                self.body_due = self.splice < output.spliced.len();
                self.splice += 1;
                before
            } else {
                return None;
            };
            if !output.bytes(&segment).is_empty() {
                return Some(segment);
            }
        }
    }
}

//! Where the codec appends rendered responses. A `Vec<u8>` takes a copy of every byte; an
//! [`Output`] keeps large `'static` bodies (such as `GET /bytes/{n}`'s) by reference
//! between its owned bytes, so a server writes them from the one shared buffer instead of
//! copying them per request. Both hold the same bytes in the same order.

use std::ops::Range;

/// A `'static` body shorter than this is copied into an [`Output`]'s owned bytes: a
/// separate piece to write would cost more than the copy. Default is 4 KiB.
pub const BY_REFERENCE_MIN: usize = 4 * 1024;

/// What the codec appends to.
pub trait Sink {
    /// Bytes appended so far, static ones included.
    fn written(&self) -> usize;
    /// Appends a copy of `bytes`.
    fn push(&mut self, bytes: &[u8]);
    /// Appends bytes that live forever; the sink may keep a reference instead of a copy.
    fn push_static(&mut self, bytes: &'static [u8]);
}

impl Sink for Vec<u8> {
    fn written(&self) -> usize {
        self.len()
    }

    fn push(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }

    fn push_static(&mut self, bytes: &'static [u8]) {
        self.extend_from_slice(bytes);
    }
}

/// Responses waiting to be written: owned bytes with static bodies spliced in.
#[derive(Debug, Default)]
pub struct Output {
    owned: Vec<u8>,
    /// Each static body with the length `owned` had when it was appended: it goes
    /// between `owned[..at]` and `owned[at..]`, after any earlier body at the same `at`.
    spliced: Vec<(usize, &'static [u8])>,
    spliced_len: usize,
}

/// One contiguous piece of an [`Output`], never empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// A range of [`Output::owned`].
    Owned(Range<usize>),
    Static(&'static [u8]),
}

impl Sink for Output {
    fn written(&self) -> usize {
        self.len()
    }

    fn push(&mut self, bytes: &[u8]) {
        self.owned.extend_from_slice(bytes);
    }

    fn push_static(&mut self, bytes: &'static [u8]) {
        if bytes.len() < BY_REFERENCE_MIN {
            self.owned.extend_from_slice(bytes);
        } else {
            self.spliced.push((self.owned.len(), bytes));
            self.spliced_len += bytes.len();
        }
    }
}

impl Output {
    /// All bytes, static ones included.
    pub fn len(&self) -> usize {
        self.owned.len() + self.spliced_len
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Empties it, keeping the owned bytes' capacity.
    pub fn clear(&mut self) {
        self.owned.clear();
        self.spliced.clear();
        self.spliced_len = 0;
    }

    /// Bytes allocated for owned bytes (static bodies are shared, not held).
    pub fn capacity(&self) -> usize {
        self.owned.capacity()
    }

    /// Room for at least `additional` more owned bytes.
    pub fn reserve(&mut self, additional: usize) {
        self.owned.reserve(additional);
    }

    /// The owned bytes that [`Segment::Owned`] ranges index.
    pub fn owned(&self) -> &[u8] {
        &self.owned
    }

    /// The owned bytes, to lend to a runtime that takes buffers by value. They must be
    /// given back unchanged before the segments are used again.
    pub fn owned_mut(&mut self) -> &mut Vec<u8> {
        &mut self.owned
    }

    /// The pieces in order: for each static body, the owned bytes before it and the body;
    /// then the owned bytes after the last one.
    pub fn segments(&self) -> impl Iterator<Item = Segment> + '_ {
        let mut start = 0;
        let splices = self.spliced.iter().map(Some).chain([None]);
        splices
            .flat_map(move |splice| {
                let end = splice.map_or(self.owned.len(), |&(at, _)| at);
                let before = Segment::Owned(start..end);
                start = end;
                [Some(before), splice.map(|&(_, bytes)| Segment::Static(bytes))]
            })
            .flatten()
            .filter(|segment| !self.bytes(segment).is_empty())
    }

    /// The bytes a segment stands for.
    pub fn bytes<'a>(&'a self, segment: &Segment) -> &'a [u8] {
        match segment {
            Segment::Owned(range) => &self.owned[range.clone()],
            Segment::Static(bytes) => bytes,
        }
    }

    /// The pieces in order as slices, for a vectored write.
    pub fn slices(&self) -> impl Iterator<Item = &[u8]> {
        self.segments().map(|segment| self.bytes(&segment))
    }

    /// The bytes from `offset` to the end of the segment holding it (empty at or past the
    /// end), and whether they are static.
    pub fn rest_of_segment(&self, offset: usize) -> (&[u8], bool) {
        let mut start = 0;
        for segment in self.segments() {
            let bytes = self.bytes(&segment);
            if offset < start + bytes.len() {
                return (&bytes[offset - start..], matches!(segment, Segment::Static(_)));
            }
            start += bytes.len();
        }
        (&[], false)
    }

    /// Every byte in order, as one buffer.
    pub fn to_vec(&self) -> Vec<u8> {
        self.slices().flatten().copied().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static LARGE: [u8; BY_REFERENCE_MIN] = [b'x'; BY_REFERENCE_MIN];

    #[test]
    fn splices_large_statics_in_order_and_copies_the_rest() {
        let mut output = Output::default();
        output.push(b"head1");
        output.push_static(&LARGE);
        output.push(b"head2");
        output.push_static(b"small");
        output.push_static(&LARGE);
        output.push_static(&LARGE);
        let mut copied = Vec::new();
        for part in [&b"head1"[..], &LARGE, b"head2", b"small", &LARGE, &LARGE] {
            copied.push(part);
        }
        assert_eq!(output.to_vec(), copied.concat());
        assert_eq!(output.len(), copied.concat().len());
        let segments: Vec<Segment> = output.segments().collect();
        assert_eq!(
            segments,
            [
                Segment::Owned(0..5),
                Segment::Static(&LARGE),
                Segment::Owned(5..15),
                Segment::Static(&LARGE),
                Segment::Static(&LARGE),
            ]
        );
        assert_eq!(output.rest_of_segment(2), (&b"ad1"[..], false));
        assert_eq!(output.rest_of_segment(6), (&LARGE[1..], true));
        assert_eq!(output.rest_of_segment(output.len()), (&b""[..], false));
        output.clear();
        assert!(output.is_empty() && output.segments().next().is_none());
    }

    #[test]
    fn a_vec_sink_copies_everything() {
        let mut out: Vec<u8> = Vec::new();
        Sink::push(&mut out, b"a");
        out.push_static(&LARGE);
        assert_eq!(out.written(), 1 + LARGE.len());
    }
}

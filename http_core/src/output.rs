//! Where the codec appends rendered responses. A `Vec<u8>` takes a copy of every byte; an
//! [`Output`] keeps large `'static` bodies (such as `GET /bytes/{n}`'s) by reference
//! between its owned bytes, so a server writes them from the one shared buffer instead of
//! copying them per request. Through a [`Lending`], it also keeps a large body borrowed
//! from the request (`POST /payload`'s echo) as a range of the server's input buffer,
//! which the server then hands over ([`Output::adopt`]) and gets back once the response
//! is sent ([`Output::reclaim`]): the echo is written from where it was received. All of
//! them hold the same bytes in the same order.

use std::ops::Range;

mod segments;

/// A `'static` body shorter than this is copied into an [`Output`]'s owned bytes: a
/// separate piece to write would cost more than the copy. Default is 4 KiB.
pub const BY_REFERENCE_MIN: usize = 4 * 1024;

/// A body borrowed from the input shorter than this is copied: keeping it holds the
/// whole input buffer until the response is sent, and costs a write of its own. Default
/// is 16 KiB.
pub const BORROWED_BY_REFERENCE_MIN: usize = 16 * 1024;

/// What the codec appends to.
pub trait Sink {
    /// Bytes appended so far, static ones included.
    fn written(&self) -> usize;
    /// Appends a copy of `bytes`.
    fn push(&mut self, bytes: &[u8]);
    /// Appends bytes that live forever; the sink may keep a reference instead of a copy.
    fn push_static(&mut self, bytes: &'static [u8]);
    /// Appends bytes borrowed from the request being answered; a sink lent the input they
    /// lie in ([`Lending`]) may keep their place instead of a copy.
    fn push_borrowed(&mut self, bytes: &[u8]) {
        self.push(bytes);
    }
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

/// Responses waiting to be written: owned bytes with bodies spliced in.
#[derive(Debug, Default)]
pub struct Output {
    owned: Vec<u8>,
    /// Each body kept by reference with the length `owned` had when it was appended: it
    /// goes between `owned[..at]` and `owned[at..]`, after any earlier body at the same `at`.
    spliced: Vec<(usize, Piece)>,
    spliced_len: usize,
    /// The input buffer handed over by the server, which [`Piece::Adopted`] ranges are
    /// of. One at most: while it is held, further borrowed bodies are copied, so an
    /// output never pins more than one input buffer.
    adopted: Option<Vec<u8>>,
    /// A [`Lending`] kept a range of a buffer not yet adopted.
    awaiting_adoption: bool,
}

/// A body kept by reference.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Static(&'static [u8]),
    Adopted(Range<usize>),
}

/// One contiguous piece of an [`Output`], never empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// A range of [`Output::owned`].
    Owned(Range<usize>),
    Static(&'static [u8]),
    /// A range of the output's adopted input buffer.
    Adopted(Range<usize>),
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
            self.splice(Piece::Static(bytes), bytes.len());
        }
    }
}

/// A sink appending to an [`Output`] that keeps a body borrowed from `input` (the bytes
/// the codec is serving), if at least [`BORROWED_BY_REFERENCE_MIN`] long and the output
/// holds no adopted buffer yet, as a range of `input` instead of a copy. If it kept any
/// ([`Lending::kept_any`]), the caller must hand the output the buffer `input` starts at
/// ([`Output::adopt`]) before the output is read, and must not change that buffer's first
/// `input.len()` bytes from then on.
pub struct Lending<'a> {
    output: &'a mut Output,
    /// Where `input` lies in memory: only compared with, never read, so the codec may
    /// still write `input` while the lending is alive (see [`crate::codec::Received`]).
    input: Range<usize>,
}

impl Lending<'_> {
    /// A range of `input` was kept: its buffer awaits adoption.
    pub fn kept_any(&self) -> bool {
        self.output.awaiting_adoption
    }
}

impl Sink for Lending<'_> {
    fn written(&self) -> usize {
        self.output.len()
    }

    fn push(&mut self, bytes: &[u8]) {
        self.output.push(bytes);
    }

    fn push_static(&mut self, bytes: &'static [u8]) {
        self.output.push_static(bytes);
    }

    fn push_borrowed(&mut self, bytes: &[u8]) {
        let may_keep = bytes.len() >= BORROWED_BY_REFERENCE_MIN && self.output.adopted.is_none();
        match offset_within(&self.input, bytes) {
            Some(start) if may_keep => {
                let range = start..start + bytes.len();
                self.output.splice(Piece::Adopted(range), bytes.len());
                self.output.awaiting_adoption = true;
            }
            _ => self.output.push(bytes),
        }
    }
}

/// Where `part` starts within the memory `whole` spans, if it lies entirely inside it.
fn offset_within(whole: &Range<usize>, part: &[u8]) -> Option<usize> {
    let len = whole.end - whole.start;
    let start = (part.as_ptr() as usize).checked_sub(whole.start)?;
    (start <= len && part.len() <= len - start).then_some(start)
}

impl Output {
    /// All bytes, static ones included.
    pub fn len(&self) -> usize {
        self.owned.len() + self.spliced_len
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Empties it, keeping the owned bytes' capacity and dropping adopted buffers.
    pub fn clear(&mut self) {
        self.reclaim();
    }

    /// Empties it like [`Output::clear`], but gives back the adopted buffer (its length
    /// as adopted, every byte initialised) for the server to receive into again.
    pub fn reclaim(&mut self) -> Option<Vec<u8>> {
        self.owned.clear();
        self.spliced.clear();
        self.spliced_len = 0;
        self.awaiting_adoption = false;
        self.adopted.take()
    }

    /// A sink that appends to this output and keeps a large body borrowed from `input`
    /// by reference (see [`Lending`]).
    pub fn lending<'a>(&'a mut self, input: &[u8]) -> Lending<'a> {
        let start = input.as_ptr() as usize;
        Lending {
            output: self,
            input: start..start + input.len(),
        }
    }

    /// Takes over the buffer whose start a [`Lending`] kept ranges of: it is dropped or
    /// reclaimed with this output's contents, and not changed before.
    pub fn adopt(&mut self, buffer: Vec<u8>) {
        assert!(self.awaiting_adoption, "no lending kept a range of this buffer");
        self.adopted = Some(buffer);
        self.awaiting_adoption = false;
    }

    /// Bytes allocated for owned bytes and adopted buffers (static bodies are shared, not
    /// held).
    pub fn capacity(&self) -> usize {
        self.owned.capacity() + self.adopted.as_ref().map_or(0, Vec::capacity)
    }

    fn splice(&mut self, piece: Piece, len: usize) {
        self.spliced.push((self.owned.len(), piece));
        self.spliced_len += len;
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

    /// The pieces in order: for each body kept by reference (static or adopted), the
    /// owned bytes before it and the body; then the owned bytes after the last one.
    pub fn segments(&self) -> impl Iterator<Item = Segment> + '_ {
        assert!(!self.awaiting_adoption, "a lent buffer was never adopted");
        segments::Segments::new(self)
    }

    /// The bytes a segment stands for.
    pub fn bytes<'a>(&'a self, segment: &Segment) -> &'a [u8] {
        match segment {
            Segment::Owned(range) => &self.owned[range.clone()],
            Segment::Static(bytes) => bytes,
            Segment::Adopted(range) => {
                let adopted = self
                    .adopted
                    .as_ref()
                    .expect("kept ranges are of an adopted buffer");
                &adopted[range.clone()]
            }
        }
    }

    /// The pieces in order as slices, for a vectored write.
    pub fn slices(&self) -> impl Iterator<Item = &[u8]> {
        self.segments().map(|segment| self.bytes(&segment))
    }

    /// The pieces from `offset` on, for a send that resumes there: the rest of the
    /// segment holding `offset`, then every later segment whole; each with whether it is
    /// static (bytes that outlive any send). Nothing at or past the end.
    pub fn slices_from(&self, offset: usize) -> impl Iterator<Item = (&[u8], bool)> {
        let mut start = 0;
        self.segments().filter_map(move |segment| {
            let bytes = self.bytes(&segment);
            let skip = offset.saturating_sub(start).min(bytes.len());
            start += bytes.len();
            let rest = &bytes[skip..];
            (!rest.is_empty()).then_some((rest, matches!(segment, Segment::Static(_))))
        })
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
        let from = |offset| output.slices_from(offset).collect::<Vec<_>>();
        assert_eq!(from(2)[..2], [(&b"ad1"[..], false), (&LARGE[..], true)]);
        assert_eq!(from(6)[0], (&LARGE[1..], true));
        assert_eq!(from(6).len(), 4, "every later segment follows whole");
        assert_eq!(from(output.len()), []);
        output.clear();
        assert!(output.is_empty() && output.segments().next().is_none());
    }

    #[test]
    fn a_lending_keeps_a_large_borrowed_body_in_place_until_reclaimed() {
        const MIN: usize = BORROWED_BY_REFERENCE_MIN;
        let input: Vec<u8> = (0..3 * MIN).map(|i| i as u8).collect();
        let (head, body) = (&input[..10], &input[10..10 + MIN]);
        let mut output = Output::default();
        let mut lending = output.lending(&input);
        lending.push(b"answer:");
        lending.push_borrowed(body);
        lending.push_borrowed(head);
        lending.push_borrowed(&LARGE);
        assert!(lending.kept_any());
        let expected = [&b"answer:"[..], body, head, &LARGE].concat();
        let address = input.as_ptr();
        output.adopt(input);
        assert_eq!(output.to_vec(), expected);
        assert_eq!(output.len(), expected.len());
        let kept = Segment::Adopted(10..10 + MIN);
        assert_eq!(output.segments().nth(1), Some(kept), "kept, not copied");
        let later_input = vec![9u8; MIN];
        let mut lending = output.lending(&later_input);
        lending.push_borrowed(&later_input);
        assert!(
            !lending.kept_any(),
            "one adopted buffer at most: the next is copied"
        );
        assert!(output.to_vec().ends_with(&later_input));
        let back = output.reclaim().expect("the adopted buffer comes back");
        assert_eq!(back.as_ptr(), address);
        assert!(output.is_empty() && output.reclaim().is_none());
    }

    #[test]
    fn a_lending_copies_small_bodies_and_keeps_nothing() {
        let input = vec![7u8; BORROWED_BY_REFERENCE_MIN];
        let mut output = Output::default();
        let mut lending = output.lending(&input);
        lending.push_borrowed(&input[8..]);
        assert!(!lending.kept_any());
        assert_eq!(output.to_vec(), &input[8..]);
    }

    #[test]
    #[should_panic(expected = "never adopted")]
    fn a_kept_range_cannot_be_read_before_its_buffer_is_adopted() {
        let input = vec![1u8; BORROWED_BY_REFERENCE_MIN];
        let mut output = Output::default();
        output.lending(&input).push_borrowed(&input);
        output.to_vec();
    }

    #[test]
    fn a_vec_sink_copies_everything() {
        let mut out: Vec<u8> = Vec::new();
        Sink::push(&mut out, b"a");
        out.push_static(&LARGE);
        assert_eq!(out.written(), 1 + LARGE.len());
    }
}

//! The memory a gathered send (IORING_OP_SENDMSG) hands the kernel besides the bytes
//! themselves: a `msghdr` and the `iovec`s it names, so that a response's head and its
//! body (static, or echoed from the input) leave in one send instead of two. It is boxed
//! so that it stays put while its connection moves; when it may change: `DESIGN.md`,
//! rule 5. Apart from zeroing the `msghdr`, building it is safe: the push that hands it to
//! the kernel is in `ops.rs`.

/// With `--zero-copy-send`, a static body (its unsent rest) at least this large is sent
/// with SEND_ZC; below it, pinning the pages and the extra notification cost more than
/// the copy they save. Default is 16 KiB.
pub const ZERO_COPY_MIN: usize = 16 << 10;

/// The most slices one send gathers; a response is a head and at most one body, so a
/// few pipelined responses fit. Default is 8.
pub const MAX_SLICES: usize = 8;

use http_core::Output;

#[derive(Debug)]
pub struct Gather {
    iovecs: [libc::iovec; MAX_SLICES],
    header: libc::msghdr,
}

impl Gather {
    pub fn new() -> Box<Gather> {
        let empty = libc::iovec {
            iov_base: std::ptr::null_mut(),
            iov_len: 0,
        };
        // SAFETY: a `msghdr` is plain data (pointers, lengths, flags) for which all zeros
        // is a valid value: no name, no control data, no iovecs yet. Zeroing rather than
        // naming its fields also covers libcs whose `msghdr` has padding fields (musl).
        let header: libc::msghdr = unsafe { std::mem::zeroed() };
        Box::new(Gather {
            iovecs: [empty; MAX_SLICES],
            header,
        })
    }

    /// Names `slices` (at most [`MAX_SLICES`]) in the header to hand the kernel. It is
    /// valid while `self` and the slices are neither moved, changed nor dropped; it must
    /// not be called again while a send that was handed the header is in flight.
    pub fn point_at<'a>(&mut self, slices: impl IntoIterator<Item = &'a [u8]>) {
        let mut count = 0;
        for slice in slices {
            assert!(count < MAX_SLICES, "a send gathers at most {MAX_SLICES} slices");
            self.iovecs[count] = libc::iovec {
                iov_base: slice.as_ptr() as *mut libc::c_void,
                iov_len: slice.len(),
            };
            count += 1;
        }
        self.iovecs[count..].fill(libc::iovec {
            iov_base: std::ptr::null_mut(),
            iov_len: 0,
        });
        self.header.msg_iov = self.iovecs.as_mut_ptr();
        self.header.msg_iovlen = count as _;
    }

    /// The header naming the slices of the last [`Gather::point_at`].
    pub fn header(&self) -> &libc::msghdr {
        &self.header
    }

    /// What the header names: each slice's start and length.
    #[cfg(test)]
    pub fn named(&self) -> Vec<(*const u8, usize)> {
        let count: usize = self.header.msg_iovlen as _;
        let named = self.iovecs[..count].iter();
        named
            .map(|iovec| (iovec.iov_base as *const u8, iovec.iov_len))
            .collect()
    }
}

/// A piece of output a zero-copy send takes alone: a static body of at least
/// [`ZERO_COPY_MIN`] bytes.
pub fn worth_zero_copy(&(bytes, is_static): &(&[u8], bool)) -> bool {
    is_static && bytes.len() >= ZERO_COPY_MIN
}

/// The slices of `sending`'s next send, with `sent` bytes already acknowledged: the rest
/// of the segment holding the first unsent byte, then up to [`MAX_SLICES`] segments in
/// all, so that a head and its body leave together. With `zero_copy`, a static body worth
/// a zero-copy send goes alone, and a gathered send stops before one.
pub fn to_send(sending: &Output, sent: usize, zero_copy: bool) -> impl Iterator<Item = &[u8]> {
    let mut slices = sending.slices_from(sent).peekable();
    let alone = zero_copy && slices.peek().is_some_and(worth_zero_copy);
    let count = if alone { 1 } else { MAX_SLICES };
    (slices.enumerate())
        .take_while(move |(i, slice)| *i == 0 || !(zero_copy && worth_zero_copy(slice)))
        .take(count)
        .map(|(_, (bytes, _))| bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_names_every_slice_in_order_and_nothing_else() {
        let (head, body) = (b"head".to_vec(), vec![7u8; 100]);
        let mut gather = Gather::new();
        gather.point_at([&head[..], &body[..]]);
        let header = gather.header();
        assert!(header.msg_name.is_null() && header.msg_control.is_null());
        assert_eq!(header.msg_iov as *const libc::iovec, gather.iovecs.as_ptr());
        let expected = [&head[..], &body[..]].map(|slice| (slice.as_ptr(), slice.len()));
        assert_eq!(gather.named(), expected);
        gather.point_at([&body[..1]]);
        assert_eq!(
            gather.named(),
            [(body.as_ptr(), 1)],
            "a later send names only its own"
        );
        assert!(
            gather.iovecs[1].iov_base.is_null(),
            "nor keeps the earlier send's"
        );
    }
}

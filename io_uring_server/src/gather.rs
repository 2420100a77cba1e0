//! The memory a gathered send (IORING_OP_SENDMSG) hands the kernel besides the bytes
//! themselves: a `msghdr` and the `iovec`s it names, so that a response's head and its
//! body (static, or echoed from the input) leave in one send instead of two. It is boxed
//! so that it stays put while its connection moves within the slab; the connection
//! leaves it untouched from the send's submission to its completion. Building it is
//! safe: only the push that hands its address to the kernel is not (`ops.rs`).

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
        Box::new(Gather {
            iovecs: [empty; MAX_SLICES],
            header: libc::msghdr {
                msg_name: std::ptr::null_mut(),
                msg_namelen: 0,
                msg_iov: std::ptr::null_mut(),
                msg_iovlen: 0,
                msg_control: std::ptr::null_mut(),
                msg_controllen: 0,
                msg_flags: 0,
            },
        })
    }

    /// Names `slices` (at most [`MAX_SLICES`]) and returns the header naming them, to
    /// hand the kernel. It is valid while `self` and the slices are neither moved,
    /// changed nor dropped.
    pub fn point_at<'a>(&mut self, slices: impl IntoIterator<Item = &'a [u8]>) -> &libc::msghdr {
        let mut count = 0;
        for slice in slices {
            assert!(count < MAX_SLICES, "a send gathers at most {MAX_SLICES} slices");
            self.iovecs[count] = libc::iovec {
                iov_base: slice.as_ptr() as *mut libc::c_void,
                iov_len: slice.len(),
            };
            count += 1;
        }
        self.header.msg_iov = self.iovecs.as_mut_ptr();
        self.header.msg_iovlen = count as _;
        &self.header
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
        let header = gather.point_at([&head[..], &body[..]]);
        assert!(header.msg_name.is_null() && header.msg_control.is_null());
        let (iov, count) = (header.msg_iov, header.msg_iovlen);
        assert_eq!((iov as *const libc::iovec, count), (gather.iovecs.as_ptr(), 2));
        let named: Vec<(usize, usize)> = gather.iovecs[..2]
            .iter()
            .map(|iovec| (iovec.iov_base as usize, iovec.iov_len))
            .collect();
        let expected = [&head[..], &body[..]].map(|slice| (slice.as_ptr() as usize, slice.len()));
        assert_eq!(named, expected);
        let header = gather.point_at([&body[..1]]);
        assert_eq!(header.msg_iovlen, 1, "a later send names only its own slices");
    }
}

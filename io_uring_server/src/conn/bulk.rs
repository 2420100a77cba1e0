//! An upload's large body (`--bulk-recv`): received by plain recvs straight into a slice
//! of the input instead of a multishot recv's completion per arrival, and back to the
//! buffer ring once the body ends.
//!
//! The codec consumes an upload as it arrives (`http_core::upload`), so the input never
//! holds the body: each plain recv's bytes are folded into the upload's length and CRC32C
//! where they were written, and dropped. The slice lent is [`UPLOAD_SLICE_MIN`] at first
//! and grows with the body bytes read so far, up to [`UPLOAD_SLICE_MAX`]: a head alone
//! costs no more than a large echo's head does, and a connection holds at most one slice
//! plus a partial chunk-size line or trailer section (bounded by the head limit), far
//! below its input cap.

use http_core::upload::Upload;

use super::{Conn, DIRECT_BODY_MIN, Receiving};
use crate::config::BulkRecv;

/// The first slice lent to an upload's plain recv (as a large echo's first).
pub const UPLOAD_SLICE_MIN: usize = DIRECT_BODY_MIN;

/// The largest slice: the read size of the epoll servers (tokio's codec engine).
pub const UPLOAD_SLICE_MAX: usize = 256 << 10;

/// The upload is known to be large: its `Content-Length` is [`DIRECT_BODY_MIN`] or more,
/// or as a chunked body it has passed that many bytes. Stays true until the body ends, so
/// a connection switches at most twice per upload.
fn is_large(upload: &Upload) -> bool {
    let read = upload.length() as usize;
    match upload.still_to_come() {
        Some(left) => read + left >= DIRECT_BODY_MIN,
        None => read >= DIRECT_BODY_MIN,
    }
}

impl Conn {
    /// The way the upload under way is received, if it is large and `--bulk-recv` asks
    /// for plain recvs.
    pub(super) fn bulk_upload(&self) -> Option<BulkRecv> {
        let mode = match self.receiving {
            Receiving::Ring { bulk_recv, .. } if bulk_recv != BulkRecv::Multishot => bulk_recv,
            _ => return None,
        };
        self.codec
            .upload()
            .filter(|upload| is_large(upload))
            .map(|_| mode)
    }

    /// The slice to lend an upload's plain recv: grown with the body read so far.
    pub(super) fn upload_slice(&self) -> usize {
        let upload = self.codec.upload().expect("an upload is under way");
        (upload.length() as usize).clamp(UPLOAD_SLICE_MIN, UPLOAD_SLICE_MAX)
    }
}

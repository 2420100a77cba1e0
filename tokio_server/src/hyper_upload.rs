//! `POST /upload` on the hyper engine: the body is read frame by frame as hyper receives
//! it, each folded into a running length and CRC32C and dropped, so it is never held
//! whole (what the codec engine does with [`http_core::upload`]). hyper answers
//! `Expect: 100-continue` itself when the body is first read.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use http_core::routes::{Body, upload_reply};
use hyper::Response;
use hyper::body::Incoming;

use crate::hyper_reply::{build, refuse};

/// Reads the upload's body (at most `limit` bytes) and answers its length and CRC32C;
/// 413 and a close past the limit, 400 and a close when the body is cut off or malformed.
pub async fn respond(mut body: Incoming, limit: usize, close: bool) -> Response<Full<Bytes>> {
    let (mut length, mut crc32c) = (0u64, 0u32);
    while let Some(frame) = body.frame().await {
        let Ok(frame) = frame else {
            return refuse(400);
        };
        let Some(data) = frame.data_ref() else {
            continue;
        };
        length += data.len() as u64;
        if length > limit as u64 {
            return refuse(413);
        }
        crc32c = crc32c::crc32c_append(crc32c, data);
    }
    let reply = upload_reply(length, crc32c);
    let Body::Owned(receipt) = &reply.body else {
        unreachable!("an upload's receipt is made for it");
    };
    let payload = Bytes::copy_from_slice(receipt);
    build(&reply, payload, close)
}

//! The hyper response for a route's reply, with the contract's headers (Server,
//! Content-Type, Allow, `Connection: close` where the codec closes); hyper adds Date
//! and Content-Length. Both the routes ([`crate::hyper_engine`]) and the files
//! ([`crate::hyper_files`]) answer through it.

use bytes::Bytes;
use http_body_util::Full;
use http_core::response::SERVER_NAME;
use http_core::routes::{Reply, plain_error};
use hyper::header::{ALLOW, CONNECTION, CONTENT_TYPE, HeaderValue, SERVER};
use hyper::{Response, StatusCode};

/// An error answer that also closes the connection, as the codec does.
pub fn refuse(status: u16) -> Response<Full<Bytes>> {
    let reply = plain_error(status);
    build(&reply, Bytes::copy_from_slice(reply.body.as_bytes()), true)
}

/// The hyper response for a reply: status, Server, Content-Type, Allow; hyper adds Date
/// and Content-Length.
pub fn build(reply: &Reply, payload: Bytes, close: bool) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(payload));
    *response.status_mut() = StatusCode::from_u16(reply.status).expect("routes use valid statuses");
    let headers = response.headers_mut();
    headers.insert(SERVER, HeaderValue::from_static(SERVER_NAME));
    let content_type =
        HeaderValue::from_bytes(reply.content_type).expect("content types are valid header values");
    headers.insert(CONTENT_TYPE, content_type);
    if let Some(allow) = reply.allow {
        headers.insert(ALLOW, HeaderValue::from_static(allow));
    }
    if close {
        headers.insert(CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

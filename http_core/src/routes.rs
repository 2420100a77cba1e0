//! The endpoints every server serves, independent of how the bytes arrive.
//!
//! | route | answer |
//! |---|---|
//! | `GET /`, `HEAD /` | 200 `text/plain; charset=utf-8`, `Hello, World!` |
//! | `GET /json`, `HEAD /json` | 200 `application/json`, `{"message":"Hello, World!"}` |
//! | `POST /payload` | 200, the request body echoed with the request's Content-Type |
//! | `POST /upload` | 200 `application/json`, the body's length and CRC32C ([`upload_receipt`]) |
//! | `GET /bytes/{n}`, `HEAD /bytes/{n}` | 200 `application/octet-stream`, `n` bytes of [`pattern_byte`] |
//! | `GET /work/{µs}`, `HEAD /work/{µs}` | as `GET /`, after keeping the thread busy `µs` microseconds ([`crate::work`]) |
//! | `GET /files/{name}`, `HEAD /files/{name}` | 200 `application/octet-stream`, the file (see [`crate::files`]) |
//! | other methods on those paths | 405 with `Allow` |
//! | any other path | 404 |
//!
//! `n` is decimal digits only, from 0 to [`MAX_BYTES_BODY`] (1 MiB); a malformed or
//! larger `n` names no resource, so it is answered 404 like any other unknown path.
//! An upload's body may be as large as `--max-upload-bytes` ([`crate::limits::MAX_UPLOAD_BYTES`]):
//! servers read it as it arrives ([`crate::upload`]); [`route`] answers one held whole.
//! [`route`] answers a file request 404, as a server without `--files-dir` does; a server
//! serving files asks [`requested_file`] first and reads the file itself.

use std::sync::OnceLock;

use serde::Serialize;

use crate::file_name::FileName;
use crate::limits::{Limits, MAX_BODY_BYTES};
use crate::work;

/// The body of `GET /`.
pub const HELLO: &[u8] = b"Hello, World!";
pub const TEXT_PLAIN: &[u8] = b"text/plain; charset=utf-8";
pub const APPLICATION_JSON: &[u8] = b"application/json";
/// The Content-Type of an echoed body when the request named none.
pub const OCTET_STREAM: &[u8] = b"application/octet-stream";

/// The largest body `GET /bytes/{n}` serves: the default request body limit
/// ([`MAX_BODY_BYTES`], 1 MiB), fixed by the contract (`--max-body-bytes` does not move it).
pub const MAX_BYTES_BODY: usize = MAX_BODY_BYTES;

/// The `/bytes/{n}` sizes the studies ask for (16 KiB, 256 KiB, 1 MiB): a server that
/// serves the route from files, like the nginx anchor, prepares exactly these.
pub const STUDIED_BODY_SIZES: [usize; 3] = [16 << 10, 256 << 10, 1 << 20];

/// Byte `i` of every patterned body in this workspace: the bodies `GET /bytes/{n}`
/// answers and the request bodies loadgen sends (`a` to `z`, repeating).
pub fn pattern_byte(i: usize) -> u8 {
    b'a' + (i % 26) as u8
}

/// The first `n` bytes of the pattern, or `None` past [`MAX_BYTES_BODY`]. Built once per
/// process and shared, so serving a large body copies nothing per request.
pub fn pattern(n: usize) -> Option<&'static [u8]> {
    static PATTERN: OnceLock<Vec<u8>> = OnceLock::new();
    let all = PATTERN.get_or_init(|| (0..MAX_BYTES_BODY).map(pattern_byte).collect());
    all.get(..n)
}

/// The body of `/bytes/{digits}`; `None` when `digits` is not a number in range.
fn bytes_body(digits: &str) -> Option<&'static [u8]> {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pattern(digits.parse().ok()?)
}

/// What a route answers; the transport adds the framing headers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply<'a> {
    pub status: u16,
    pub content_type: &'a [u8],
    pub body: Body<'a>,
    /// The `Allow` header of a 405.
    pub allow: Option<&'static str>,
}

/// A reply body: a constant, a slice of the request, or bytes made for this request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body<'a> {
    Static(&'static [u8]),
    Borrowed(&'a [u8]),
    Owned(Vec<u8>),
}

impl Body<'_> {
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            Body::Static(bytes) => bytes,
            Body::Borrowed(bytes) => bytes,
            Body::Owned(bytes) => bytes,
        }
    }
}

#[derive(Serialize)]
struct Message {
    message: &'static str,
}

/// The request facts a route looks at.
pub struct RouteRequest<'a> {
    pub method: &'a str,
    /// The request target; anything from `?` on is ignored.
    pub target: &'a str,
    pub content_type: Option<&'a [u8]>,
    pub body: &'a [u8],
}

/// The file a `GET` or `HEAD` of `/files/{name}` asks for, if `name` is one the route
/// serves; the server reads it and answers with [`crate::files::render_file_head`].
pub fn requested_file(method: &str, target: &str) -> Option<FileName> {
    match method {
        "GET" | "HEAD" => FileName::from_path(path_of(target)),
        _ => None,
    }
}

/// Whether the request is an upload (`POST /upload`), whose body is read as it arrives.
pub fn is_upload(method: &str, target: &str) -> bool {
    method == "POST" && path_of(target) == "/upload"
}

/// `limits` for a request with this method and target: an upload's body may be as large
/// as [`Limits::max_upload_bytes`].
pub fn limits_for(limits: &Limits, method: &str, target: &str) -> Limits {
    if is_upload(method, target) {
        Limits {
            max_body_bytes: limits.max_upload_bytes,
            ..*limits
        }
    } else {
        *limits
    }
}

/// The body of an upload's answer: `{"length":N,"crc32c":C}`, the body's length in bytes
/// and the CRC32C (Castagnoli) of all of them, both decimal, so a client can check that
/// every byte it sent was read.
pub fn upload_receipt(length: u64, crc32c: u32) -> Vec<u8> {
    format!(r#"{{"length":{length},"crc32c":{crc32c}}}"#).into_bytes()
}

/// The answer to an upload of `length` bytes whose CRC32C is `crc32c`.
pub fn upload_reply(length: u64, crc32c: u32) -> Reply<'static> {
    ok(APPLICATION_JSON, Body::Owned(upload_receipt(length, crc32c)))
}

/// The request target without its query.
fn path_of(target: &str) -> &str {
    target.split('?').next().unwrap_or_default()
}

/// Answers one request. HEAD answers like GET; the transport drops the body.
pub fn route<'a>(request: &RouteRequest<'a>) -> Reply<'a> {
    let path = path_of(request.target);
    let method = request.method;
    if FileName::from_path(path).is_some() && !matches!(method, "GET" | "HEAD") {
        return not_allowed("GET, HEAD");
    }
    if let Some(digits) = path.strip_prefix("/work/") {
        return match (work::work_micros(digits), method) {
            (None, _) => plain_error(404),
            (Some(micros), "GET" | "HEAD") => {
                work::spin(micros);
                ok(TEXT_PLAIN, Body::Static(HELLO))
            }
            (Some(_), _) => not_allowed("GET, HEAD"),
        };
    }
    if let Some(digits) = path.strip_prefix("/bytes/") {
        return match (bytes_body(digits), method) {
            (None, _) => plain_error(404),
            (Some(body), "GET" | "HEAD") => ok(OCTET_STREAM, Body::Static(body)),
            (Some(_), _) => not_allowed("GET, HEAD"),
        };
    }
    match (path, method) {
        ("/", "GET" | "HEAD") => ok(TEXT_PLAIN, Body::Static(HELLO)),
        ("/json", "GET" | "HEAD") => ok(APPLICATION_JSON, Body::Owned(json_message())),
        ("/payload", "POST") => ok(
            request.content_type.unwrap_or(OCTET_STREAM),
            Body::Borrowed(request.body),
        ),
        ("/upload", "POST") => upload_reply(request.body.len() as u64, crc32c::crc32c(request.body)),
        ("/" | "/json", _) => not_allowed("GET, HEAD"),
        ("/payload" | "/upload", _) => not_allowed("POST"),
        _ => plain_error(404),
    }
}

/// A plain-text reply whose body is the reason phrase, used for every error status.
pub fn plain_error(status: u16) -> Reply<'static> {
    Reply {
        status,
        content_type: TEXT_PLAIN,
        body: Body::Static(crate::error::reason(status).as_bytes()),
        allow: None,
    }
}

fn ok<'a>(content_type: &'a [u8], body: Body<'a>) -> Reply<'a> {
    Reply {
        status: 200,
        content_type,
        body,
        allow: None,
    }
}

fn not_allowed(allow: &'static str) -> Reply<'static> {
    Reply {
        allow: Some(allow),
        ..plain_error(405)
    }
}

/// `{"message":"Hello, World!"}`, serialized for each request as the route promises.
fn json_message() -> Vec<u8> {
    let mut body = Vec::with_capacity(32);
    serde_json::to_writer(
        &mut body,
        &Message {
            message: "Hello, World!",
        },
    )
    .expect("serializing a static struct into a Vec cannot fail");
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(method: &'static str, target: &'static str) -> Reply<'static> {
        route(&RouteRequest {
            method,
            target,
            content_type: None,
            body: b"",
        })
    }

    #[test]
    fn hello_and_json() {
        let hello = answer("GET", "/?q=1");
        assert_eq!(
            (hello.status, hello.content_type, hello.body.as_bytes()),
            (200, TEXT_PLAIN, HELLO)
        );
        let json = answer("GET", "/json");
        assert_eq!(json.body.as_bytes(), br#"{"message":"Hello, World!"}"#);
        assert_eq!(json.content_type, APPLICATION_JSON);
        assert_eq!(answer("HEAD", "/").status, 200);
    }

    #[test]
    fn payload_echoes_body_and_content_type() {
        let typed = RouteRequest {
            method: "POST",
            target: "/payload",
            content_type: Some(b"a/b"),
            body: b"xyz",
        };
        let reply = route(&typed);
        assert_eq!(
            (reply.status, reply.content_type, reply.body.as_bytes()),
            (200, &b"a/b"[..], &b"xyz"[..])
        );
        let untyped = RouteRequest {
            content_type: None,
            ..typed
        };
        assert_eq!(route(&untyped).content_type, OCTET_STREAM);
    }

    #[test]
    fn bytes_serves_the_pattern_up_to_the_limit() {
        let small = answer("GET", "/bytes/28?x=1");
        assert_eq!(
            (small.status, small.content_type, small.body.as_bytes()),
            (200, OCTET_STREAM, &b"abcdefghijklmnopqrstuvwxyzab"[..])
        );
        assert_eq!(answer("HEAD", "/bytes/0").body.as_bytes(), b"");
        let limit = answer("GET", "/bytes/1048576");
        assert_eq!(limit.body.as_bytes().len(), MAX_BYTES_BODY);
        assert_eq!(
            limit.body.as_bytes()[MAX_BYTES_BODY - 1],
            pattern_byte(MAX_BYTES_BODY - 1)
        );
        for bad in [
            "/bytes/1048577",
            "/bytes/",
            "/bytes/-1",
            "/bytes/+1",
            "/bytes/1x",
            "/bytes/9999999999999999999999",
        ] {
            assert_eq!(answer("GET", bad).status, 404, "{bad}");
        }
        let post = answer("POST", "/bytes/1");
        assert_eq!((post.status, post.allow), (405, Some("GET, HEAD")));
    }

    #[test]
    fn files_are_named_for_get_and_head_only() {
        let name = |method, target| requested_file(method, target).map(|n| n.as_str().to_owned());
        assert_eq!(name("GET", "/files/a-1?x").as_deref(), Some("a-1"));
        assert_eq!(name("HEAD", "/files/a-1").as_deref(), Some("a-1"));
        assert_eq!(name("POST", "/files/a-1"), None);
        assert_eq!(name("GET", "/files/../a"), None);
        let post = answer("POST", "/files/a-1");
        assert_eq!((post.status, post.allow), (405, Some("GET, HEAD")));
        assert_eq!(answer("GET", "/files/a-1").status, 404);
        assert_eq!(answer("DELETE", "/files/..").status, 404);
    }

    #[test]
    fn unknown_paths_and_methods() {
        assert_eq!(answer("GET", "/nope").status, 404);
        let post_root = answer("POST", "/");
        assert_eq!((post_root.status, post_root.allow), (405, Some("GET, HEAD")));
        let get_payload = answer("GET", "/payload");
        assert_eq!((get_payload.status, get_payload.allow), (405, Some("POST")));
    }
}

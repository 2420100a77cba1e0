//! `--max-upload-bytes` takes effect: a server started with a 1 MiB upload limit takes
//! uploads of exactly 1 MiB (by `Content-Length` and chunked), answers a declared length
//! over it with 413 before any body is sent (with `Expect: 100-continue`, instead of the
//! `100`), answers a chunked body growing past it with 413, closes the connection after
//! each 413, and keeps serving.

use std::time::Duration;

use crate::endpoint::Endpoint;
use crate::uploads::{
    CHUNK_SIZES, LARGE_BODY_TIMEOUT, LAST_CHUNK, MIB, chunked_head, chunks, expect_receipt, length_head,
    patterned, send_large,
};
use crate::wire::{Conn, probe};
use server_kit::ServerProcess;

/// The upload limit these checks start the server with.
pub const SMALL_UPLOAD_LIMIT: usize = MIB;

/// How long the server may take to close after its 413.
const CLOSE_AFTER_413: Duration = Duration::from_secs(3);

type Check = fn(&Endpoint) -> Result<(), String>;

/// Starts `binary args --max-upload-bytes 1048576` and runs each check; one line per
/// failure.
pub fn limit_flag(binary: &str, args: &[&str]) -> Vec<String> {
    let limit = SMALL_UPLOAD_LIMIT.to_string();
    let mut all_args = args.to_vec();
    all_args.extend(["--max-upload-bytes", &limit]);
    let server = ServerProcess::start(binary, &all_args);
    let to = Endpoint::from(server.addr());
    let checks: [(&str, Check); 4] = [
        ("uploads of exactly the limit", at_the_limit),
        ("Content-Length over the limit", |to| refused_at_once(to, "")),
        ("Content-Length over the limit with Expect: 100-continue", |to| {
            refused_at_once(to, "Expect: 100-continue\r\n")
        }),
        ("chunked body growing past the limit", chunked_past_the_limit),
    ];
    checks
        .into_iter()
        .filter_map(|(name, check)| check(&to).err().map(|e| format!("upload limit, {name}: {e}")))
        .chain(
            probe(&to)
                .err()
                .map(|e| format!("upload limit: server unhealthy afterwards: {e}")),
        )
        .collect()
}

/// A `Content-Length` upload and a chunked one of exactly the limit, on one connection.
fn at_the_limit(to: &Endpoint) -> Result<(), String> {
    let body = patterned(SMALL_UPLOAD_LIMIT);
    let mut conn = Conn::connect(to);
    let mut request = length_head(body.len(), "");
    request.extend_from_slice(&body);
    send_large(&mut conn, &request)?;
    expect_receipt(&mut conn, &body).map_err(|e| format!("by Content-Length: {e}"))?;
    let mut request = chunked_head("");
    request.extend_from_slice(&chunks(&body, &CHUNK_SIZES));
    request.extend_from_slice(LAST_CHUNK);
    send_large(&mut conn, &request)?;
    expect_receipt(&mut conn, &body).map_err(|e| format!("chunked: {e}"))
}

/// Only the head, declaring one byte over the limit: 413 at once (the first response,
/// so no `100 Continue` before it), then the close.
fn refused_at_once(to: &Endpoint, extra: &str) -> Result<(), String> {
    let mut conn = Conn::connect(to);
    conn.send(&length_head(SMALL_UPLOAD_LIMIT + 1, extra))
        .map_err(|e| e.to_string())?;
    let response = conn
        .response(false)
        .map_err(|e| format!("no answer before the body: {e}"))?;
    if response.status != 413 {
        return Err(format!("got {} before the body, want 413", response.normalized()));
    }
    conn.expect_close(CLOSE_AFTER_413)
        .map_err(|e| format!("after the 413: {e}"))
}

/// Chunks adding up to the limit, then one of 16 bytes and the last chunk: 413, then the
/// close. The server may refuse at the size line or at the data, so the bytes after the
/// limit may go unread (and the close be a reset).
fn chunked_past_the_limit(to: &Endpoint) -> Result<(), String> {
    let body = patterned(SMALL_UPLOAD_LIMIT + 16);
    let mut request = chunked_head("");
    request.extend_from_slice(&chunks(&body[..SMALL_UPLOAD_LIMIT], &CHUNK_SIZES));
    request.extend_from_slice(&chunks(&body[SMALL_UPLOAD_LIMIT..], &[16]));
    request.extend_from_slice(LAST_CHUNK);
    let mut conn = Conn::connect(to);
    // The server may answer and close before it has read everything.
    let _ = send_large(&mut conn, &request);
    let response = conn.response_within(LARGE_BODY_TIMEOUT)?;
    if response.status != 413 {
        return Err(format!(
            "{} B in chunks got {}, want 413",
            body.len(),
            response.normalized()
        ));
    }
    conn.expect_close(CLOSE_AFTER_413)
        .map_err(|e| format!("after the 413: {e}"))
}

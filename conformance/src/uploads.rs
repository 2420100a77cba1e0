//! `POST /upload` in conversation, over any [`Endpoint`]: bodies of several MiB, by
//! `Content-Length` and chunked (many chunks of odd sizes, extensions, a trailer),
//! answered with the receipt of exactly the bytes sent, the connection kept alive after;
//! `Expect: 100-continue` answered before the body is sent; a body cut off midway (the
//! client shuts down its write side) ends the connection at once, without a receipt,
//! while another client is served. The pieces of an upload request live here for the
//! other upload checks too ([`crate::upload_limits`], [`crate::upload_memory`]).

use std::net::Shutdown;
use std::time::{Duration, Instant};

use http_core::routes::{APPLICATION_JSON, HELLO, pattern_byte, upload_receipt};

use crate::behaviour::REQUEST_TIMEOUT_SECS;
use crate::endpoint::Endpoint;
use crate::wire::{Conn, probe};

pub(crate) const MIB: usize = 1 << 20;

/// How long sending one large body, or waiting for its receipt, may take (debug builds
/// of the servers read a 32 MiB body in well under this). Default is 20 seconds.
pub(crate) const LARGE_BODY_TIMEOUT: Duration = Duration::from_secs(20);

/// Chunk sizes a chunked upload cycles through: odd, from 1 byte to a few hundred KiB.
pub(crate) const CHUNK_SIZES: [usize; 9] = [1, 7, 13, 4093, 65_537, 8191, 300_001, 3, 131_071];

/// The last chunk and a trailer section of two fields.
pub(crate) const LAST_CHUNK: &[u8] = b"0\r\nX-Upload-Trailer: done\r\nX-Second: 2\r\n\r\n";

/// A server that only notices a cut-off body at its request timeout is too late: half
/// of the suite's request timeout (2 s).
const CUT_OFF_CLOSE: Duration = Duration::from_millis(REQUEST_TIMEOUT_SECS * 1000 / 2);

const GET: &[u8] = b"GET / HTTP/1.1\r\nHost: t\r\n\r\n";

/// Every upload conversation against `to`; one line per failure.
pub fn conversations(to: &Endpoint) -> Vec<String> {
    [receipts(to), expect_continue(to), cut_off(to)]
        .into_iter()
        .filter_map(Result::err)
        .collect()
}

/// `len` bytes of the `/bytes/{n}` pattern.
pub(crate) fn patterned(len: usize) -> Vec<u8> {
    (0..len).map(pattern_byte).collect()
}

/// The head of an upload of `len` bytes by `Content-Length`, after header lines `extra`.
pub(crate) fn length_head(len: usize, extra: &str) -> Vec<u8> {
    format!("POST /upload HTTP/1.1\r\nHost: t\r\n{extra}Content-Length: {len}\r\n\r\n").into_bytes()
}

/// The head of a chunked upload, after header lines `extra`.
pub(crate) fn chunked_head(extra: &str) -> Vec<u8> {
    format!("POST /upload HTTP/1.1\r\nHost: t\r\n{extra}Transfer-Encoding: chunked\r\n\r\n").into_bytes()
}

/// `body` as chunks cycling through `sizes` (none zero), without the last chunk. Size
/// lines vary: lower- and upper-case hex, a leading zero, an extension with a value and
/// one without (a few bytes each, well inside any server's allowance for extensions).
pub(crate) fn chunks(body: &[u8], sizes: &[usize]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() + body.len() / 64 + 64);
    let mut rest = body;
    for (i, &size) in sizes.iter().cycle().enumerate() {
        if rest.is_empty() {
            break;
        }
        let (piece, after) = rest.split_at(size.min(rest.len()));
        let line = match i % 4 {
            0 => format!("{:x}\r\n", piece.len()),
            1 => format!("{:X};ext={i}\r\n", piece.len()),
            2 => format!("0{:x};flag\r\n", piece.len()),
            _ => format!("{:X}\r\n", piece.len()),
        };
        out.extend_from_slice(line.as_bytes());
        out.extend_from_slice(piece);
        out.extend_from_slice(b"\r\n");
        rest = after;
    }
    out
}

/// Sends `bytes`, giving up after [`LARGE_BODY_TIMEOUT`] if the server stops reading.
pub(crate) fn send_large(conn: &mut Conn, bytes: &[u8]) -> Result<(), String> {
    conn.stream()
        .set_write_timeout(Some(LARGE_BODY_TIMEOUT))
        .expect("set_write_timeout");
    conn.send(bytes)
        .map_err(|e| format!("sending {} B: {e}", bytes.len()))
}

/// Reads the next response, which must be the receipt of `body`: 200, `application/json`,
/// [`upload_receipt`] of its length and its CRC32C (computed here, not by http_core).
pub(crate) fn expect_receipt(conn: &mut Conn, body: &[u8]) -> Result<(), String> {
    let response = conn.response_within(LARGE_BODY_TIMEOUT)?;
    let want = upload_receipt(body.len() as u64, crc32c::crc32c(body));
    let json = response.header("content-type") == Some(APPLICATION_JSON);
    if response.status == 200 && json && response.body == want {
        Ok(())
    } else {
        Err(format!(
            "got {}, want 200 application/json {:?}",
            response.normalized(),
            String::from_utf8_lossy(&want)
        ))
    }
}

/// Reads the next response, which must be `GET /`'s; `after` says what preceded it.
fn expect_hello(conn: &mut Conn, after: &str) -> Result<(), String> {
    let response = conn.response(false).map_err(|e| format!("GET / {after}: {e}"))?;
    match (response.status, response.body.as_slice()) {
        (200, HELLO) => Ok(()),
        _ => Err(format!("GET / {after} got {}", response.normalized())),
    }
}

/// A 5 MiB `Content-Length` upload with a `GET /` pipelined behind it, then a 3 MiB
/// chunked upload and a `GET /` after its receipt, on one connection.
pub fn receipts(to: &Endpoint) -> Result<(), String> {
    let mut conn = Conn::connect(to);
    let body = patterned(5 * MIB + 3);
    let mut request = length_head(body.len(), "");
    request.extend_from_slice(&body);
    request.extend_from_slice(GET);
    let what = format!("upload of {} B by Content-Length", body.len());
    send_large(&mut conn, &request).map_err(|e| format!("{what}: {e}"))?;
    expect_receipt(&mut conn, &body).map_err(|e| format!("{what}: {e}"))?;
    expect_hello(&mut conn, &format!("pipelined after an {what}"))?;

    let body = patterned(3 * MIB + 11);
    let mut request = chunked_head("");
    request.extend_from_slice(&chunks(&body, &CHUNK_SIZES));
    request.extend_from_slice(LAST_CHUNK);
    let what = format!("chunked upload of {} B", body.len());
    send_large(&mut conn, &request).map_err(|e| format!("{what}: {e}"))?;
    expect_receipt(&mut conn, &body).map_err(|e| format!("{what}: {e}"))?;
    conn.send(GET).map_err(|e| e.to_string())?;
    expect_hello(&mut conn, &format!("after a {what}"))
}

/// `Expect: 100-continue` on a 2 MiB upload by `Content-Length`, then on a chunked one:
/// each head gets `100 Continue` before any body byte is sent, then the receipt.
pub fn expect_continue(to: &Endpoint) -> Result<(), String> {
    let mut conn = Conn::connect(to);
    let expect = "Expect: 100-continue\r\n";
    let body = patterned(2 * MIB + 1);
    let framings = [
        ("by Content-Length", length_head(body.len(), expect), body.clone()),
        ("chunked", chunked_head(expect), {
            let mut chunked = chunks(&body, &CHUNK_SIZES);
            chunked.extend_from_slice(LAST_CHUNK);
            chunked
        }),
    ];
    for (framing, head, encoded) in framings {
        let what = format!("upload {framing} with Expect: 100-continue");
        conn.send(&head).map_err(|e| format!("{what}: {e}"))?;
        let interim = conn
            .response(false)
            .map_err(|e| format!("{what}: waiting for 100 Continue before the body: {e}"))?;
        if interim.status != 100 {
            return Err(format!(
                "{what}: wanted 100 Continue before the body, got {}",
                interim.normalized()
            ));
        }
        send_large(&mut conn, &encoded).map_err(|e| format!("{what}: {e}"))?;
        expect_receipt(&mut conn, &body).map_err(|e| format!("{what}: {e}"))?;
    }
    conn.send(GET).map_err(|e| e.to_string())?;
    expect_hello(&mut conn, "after uploads with Expect: 100-continue")
}

/// A client declares 4 MiB, sends 1 MiB, and while it waits another client uploads and
/// gets its receipt; then the first shuts down its write side. The server must close
/// that connection within [`CUT_OFF_CLOSE`], sending nothing or an error (hyper's engine
/// answers 400), never a receipt, and keep serving the other client and new ones.
pub fn cut_off(to: &Endpoint) -> Result<(), String> {
    let mut cut = Conn::connect(to);
    let declared = patterned(4 * MIB);
    let mut partial = length_head(declared.len(), "");
    partial.extend_from_slice(&declared[..MIB]);
    send_large(&mut cut, &partial).map_err(|e| format!("cut-off upload: {e}"))?;

    let mut other = Conn::connect(to);
    let body = patterned(256 * 1024 + 5);
    let mut request = length_head(body.len(), "");
    request.extend_from_slice(&body);
    send_large(&mut other, &request)
        .and_then(|()| expect_receipt(&mut other, &body))
        .map_err(|e| format!("cut-off upload: another client's upload meanwhile: {e}"))?;

    cut.stream()
        .shutdown(Shutdown::Write)
        .map_err(|e| format!("cut-off upload: shutdown: {e}"))?;
    let what = "cut-off upload (1 MiB of 4 MiB, then the client's FIN)";
    let deadline = Instant::now() + CUT_OFF_CLOSE;
    if let Ok(answer) = cut.response_within(CUT_OFF_CLOSE) {
        if !(400..600).contains(&answer.status) {
            return Err(format!("{what}: answered {}", answer.normalized()));
        }
    }
    cut.expect_abandoned(deadline.saturating_duration_since(Instant::now()))
        .map_err(|e| format!("{what}: not closed within {CUT_OFF_CLOSE:?}: {e}"))?;
    other.send(GET).map_err(|e| e.to_string())?;
    expect_hello(&mut other, "from another client after an upload was cut off")?;
    probe(to).map_err(|e| format!("after an upload was cut off: {e}"))
}

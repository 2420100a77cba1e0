//! A well-behaved pipelining client that a server busy with a large file must not cut
//! off: `GET /files/{a large file}` and right behind it, in the same write stream, an
//! upload of the largest body `POST /upload` takes. The client writes the upload while it
//! reads the file (another thread), so neither side waits on the other; both answers must
//! come whole. [`crate::files::check_files`] runs it.

use std::fs;
use std::io::Write;
use std::net::{Shutdown, SocketAddr};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use http_core::limits::MAX_UPLOAD_BYTES;

use crate::file_tree::content;
use crate::uploads::{LARGE_BODY_TIMEOUT, expect_receipt, length_head, patterned};
use crate::wire::Conn;

/// The file asked for first: more than loopback's socket buffers hold, so the server is
/// still sending it when the upload arrives.
const LARGE_LEN: usize = 16 << 20;

/// How long the file may take to arrive.
const FILE_LIMIT: Duration = Duration::from_secs(20);

/// How long after it starts writing the client starts reading, as one across a slow link
/// would: by then the file fills the socket one way and the upload the other, however
/// fast the server's build is.
const READ_DELAY: Duration = Duration::from_millis(500);

/// How many times the pair is sent, each on a new connection: a server that cuts the
/// client off only when its reads race the file's sends is caught more surely.
const ROUNDS: usize = 2;

/// `GET /files/large` ([`LARGE_LEN`] bytes) and a `POST /upload` of
/// [`MAX_UPLOAD_BYTES`] behind it, written by one thread while this one reads (from
/// [`READ_DELAY`] on): the file's bytes, then the upload's receipt; [`ROUNDS`] times.
pub fn upload_behind_a_file(addr: SocketAddr, root: &Path) -> Result<(), String> {
    let file = content(LARGE_LEN);
    fs::write(root.join("large"), &file).map_err(|e| format!("write the file: {e}"))?;
    let body = Arc::new(patterned(MAX_UPLOAD_BYTES));
    for round in 1..=ROUNDS {
        one_round(addr, &file, &body).map_err(|e| format!("round {round}: {e}"))?;
    }
    Ok(())
}

fn one_round(addr: SocketAddr, file: &[u8], body: &Arc<Vec<u8>>) -> Result<(), String> {
    let mut conn = Conn::connect(addr);
    let mut writer = conn.stream().try_clone().map_err(|e| e.to_string())?;
    writer
        .set_write_timeout(Some(LARGE_BODY_TIMEOUT))
        .map_err(|e| e.to_string())?;
    let upload = Arc::clone(body);
    let written = std::thread::spawn(move || {
        writer.write_all(b"GET /files/large HTTP/1.1\r\nHost: files\r\n\r\n")?;
        writer.write_all(&length_head(upload.len(), ""))?;
        writer.write_all(&upload)
    });
    std::thread::sleep(READ_DELAY);
    let answers = expect_large_file(&mut conn, file)
        .and_then(|()| expect_receipt(&mut conn, body).map_err(|e| format!("the upload's receipt: {e}")));
    // On a failure, unblocks the writer (its clone keeps the socket open).
    let _ = conn.stream().shutdown(Shutdown::Both);
    let sent = written.join().map_err(|_| "the writer panicked".to_string())?;
    answers?;
    sent.map_err(|e| format!("writing the requests: {e}"))
}

/// The next answer must be 200 with exactly `want`.
fn expect_large_file(conn: &mut Conn, want: &[u8]) -> Result<(), String> {
    let response = conn
        .response_within(FILE_LIMIT)
        .map_err(|e| format!("the file: {e}"))?;
    match (response.status, response.body == want) {
        (200, true) => Ok(()),
        (status, _) => Err(format!(
            "the file: status {status} with {} body bytes (want 200 with {})",
            response.body.len(),
            want.len()
        )),
    }
}

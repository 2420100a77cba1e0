//! An upload is read as it arrives, never held whole, and leaves no memory behind. On a
//! fresh server with one thread, uploads of 32 MiB (the default `--max-upload-bytes`)
//! follow each other on one connection, each measured from just before it to its peak
//! (`VmHWM`, reset just before) and to just after it:
//! - the first may raise the resident memory by at most [`FIRST_UPLOAD_LIMIT_KIB`]
//!   (the buffers' first use included): holding the body whole costs 32 MiB, whatever
//!   the allocator keeps afterwards;
//! - after it, the allocator's steady state is the baseline: within [`MAX_UPLOADS`], one
//!   upload must raise it by at most [`UPLOAD_GROWTH_LIMIT_KIB`], at its peak and after.
//!   hyper's engine was seen to grow by 300 to 400 KiB with each of its first three or
//!   four uploads, then not at all; a server that grows with every upload never settles.

use http_core::limits::MAX_UPLOAD_BYTES;

use crate::stress::{rss_kib, status_kib};
use crate::uploads::{MIB, expect_receipt, length_head, patterned, send_large};
use crate::wire::Conn;
use server_kit::ServerProcess;

/// How much the first 32 MiB upload on a fresh server may raise its peak resident
/// memory: an eighth of the body. Default is 4 MiB.
pub const FIRST_UPLOAD_LIMIT_KIB: u64 = 4096;

/// How much a 32 MiB upload after the first may raise the server's resident memory, at
/// its peak and after it. Default is 512 KiB.
pub const UPLOAD_GROWTH_LIMIT_KIB: u64 = 512;

/// Uploads made at most, the first included, before memory must have settled. Default
/// is 6.
pub const MAX_UPLOADS: usize = 6;

/// Starts `binary args --threads 1` and makes up to [`MAX_UPLOADS`] uploads of 32 MiB by
/// `Content-Length` on one connection, each answered with its receipt.
pub fn flat_memory(binary: &str, args: &[&str]) -> Result<(), String> {
    let mut all_args = args.to_vec();
    all_args.extend(["--threads", "1"]);
    let server = ServerProcess::start(binary, &all_args);
    let pid = server.pid();
    let body = patterned(MAX_UPLOAD_BYTES);
    let mut request = length_head(body.len(), "");
    request.extend_from_slice(&body);
    let mut conn = Conn::connect(server.addr());
    let mut growths = Vec::new();
    for turn in 0..MAX_UPLOADS {
        reset_peak(pid)?;
        let before = rss_kib(pid)?;
        send_large(&mut conn, &request)
            .and_then(|()| expect_receipt(&mut conn, &body))
            .map_err(|e| format!("upload memory, upload {} of 32 MiB: {e}", turn + 1))?;
        let (peak, after) = (status_kib(pid, "VmHWM")?, rss_kib(pid)?);
        let growth = peak.max(after).saturating_sub(before);
        growths.push(format!("{before} KiB -> peak {peak}, after {after}"));
        match turn {
            0 if growth > FIRST_UPLOAD_LIMIT_KIB => {
                return Err(format!(
                    "upload memory: the first {} MiB upload raised the server's RSS by {growth} \
                     KiB ({}; allowed {FIRST_UPLOAD_LIMIT_KIB} KiB): is the body held whole?",
                    MAX_UPLOAD_BYTES / MIB,
                    growths[0]
                ));
            }
            0 => {}
            _ if growth <= UPLOAD_GROWTH_LIMIT_KIB => return Ok(()),
            _ => {}
        }
    }
    Err(format!(
        "upload memory: none of {} uploads of {} MiB after the first left the \
         server's RSS within {UPLOAD_GROWTH_LIMIT_KIB} KiB at its peak and after: {}",
        MAX_UPLOADS - 1,
        MAX_UPLOAD_BYTES / MIB,
        growths.join("; ")
    ))
}

/// Resets the peak resident memory (`VmHWM`) of process `pid` to its current RSS.
fn reset_peak(pid: u32) -> Result<(), String> {
    std::fs::write(format!("/proc/{pid}/clear_refs"), "5")
        .map_err(|e| format!("upload memory: cannot reset the peak RSS of {pid}: {e}"))
}

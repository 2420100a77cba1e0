//! Clients that pipeline requests for static bodies and never read a byte back, plain
//! and over TLS: every server must answer only up to its output limit, stop reading while
//! the answers wait, and go on serving others. A single such client must not be able to
//! make a server allocate without bound: the issue this check came from saw one engine
//! hold 254 MiB for 8 KiB of requests.
//!
//! [`FLOODERS`] connections each write requests until their writes stall (or
//! [`FLOOD_BYTES`] are out), optionally right behind a 2 MiB upload (which grows an
//! adaptive reader's read size to its maximum); the server's resident memory is then
//! watched for [`WATCH`], and its peak growth per connection must stay within
//! [`FLOOD_RSS_LIMIT_KIB`]: the output limit, one response, and a read of requests.

use std::io::Write;
use std::time::{Duration, Instant};

use server_kit::ServerProcess;

use crate::endpoint::{Endpoint, Wire};
use crate::stress::rss_kib;
use crate::uploads::{MIB, length_head, patterned};
use crate::wire::probe;

/// Connections that flood at once. Default is 16.
pub const FLOODERS: u64 = 16;

/// The most request bytes one flooder writes. Default is 512 KiB.
pub const FLOOD_BYTES: usize = 512 << 10;

/// How much the server's resident memory may grow per flooding connection, at its peak:
/// [`http_core::limits::OUTPUT_LIMIT`] (1 MiB), one response of up to 1 MiB, and a read of
/// requests, with room for the allocator. Default is 3 MiB.
pub const FLOOD_RSS_LIMIT_KIB: u64 = 3 * 1024;

/// How long the server's memory is watched once every flooder has stalled.
const WATCH: Duration = Duration::from_millis(1500);

/// How long a flooder's write may stall before it counts as refused by the server.
const STALL: Duration = Duration::from_millis(300);

/// One flood: what each connection asks for, and whether an upload goes first.
#[derive(Debug, Clone, Copy)]
pub struct Flood {
    pub body: usize,
    pub behind_upload: bool,
}

/// The floods every server is checked with: small and 1 MiB static bodies, each alone
/// and right behind an upload.
pub const FLOODS: [Flood; 4] = [
    Flood {
        body: 4095,
        behind_upload: false,
    },
    Flood {
        body: 4095,
        behind_upload: true,
    },
    Flood {
        body: 1 << 20,
        behind_upload: false,
    },
    Flood {
        body: 1 << 20,
        behind_upload: true,
    },
];

/// Runs every flood of [`FLOODS`], each against a fresh server from `start` (so what the
/// allocator kept after one flood cannot hide the next one's growth); one line per
/// failure.
pub fn floods(start: impl Fn() -> (ServerProcess, Endpoint)) -> Vec<String> {
    FLOODS
        .iter()
        .filter_map(|flood| {
            let (server, to) = start();
            flood_once(&server, &to, *flood).err()
        })
        .collect()
}

/// [`FLOODERS`] connections flood at once; returns the peak resident growth per
/// connection, in KiB, once a fresh connection was still served.
pub fn flood_once(server: &ServerProcess, to: &Endpoint, flood: Flood) -> Result<u64, String> {
    let what = format!(
        "pipelined GET /bytes/{}{}, never read",
        flood.body,
        if flood.behind_upload {
            " behind a 2 MiB upload"
        } else {
            ""
        }
    );
    let before = rss_kib(server.pid())?;
    let growth = || rss_kib(server.pid()).map(|rss| rss.saturating_sub(before));
    let requests = requests(flood);
    let (mut held, mut peak) = (Vec::new(), 0);
    for i in 0..FLOODERS {
        let mut wire = to
            .try_connect()
            .map_err(|e| format!("{what}: connection {i}: {e}"))?;
        write_until_stalled(&mut wire, &requests);
        held.push(wire);
        peak = peak.max(growth()?);
    }
    let watched = Instant::now();
    while watched.elapsed() < WATCH {
        std::thread::sleep(Duration::from_millis(100));
        peak = peak.max(growth()?);
    }
    probe(to).map_err(|e| format!("{what}: a fresh connection was not served: {e}"))?;
    drop(held);
    let per_connection = peak / FLOODERS;
    match per_connection <= FLOOD_RSS_LIMIT_KIB {
        true => Ok(per_connection),
        false => Err(format!(
            "{what}: the server's RSS grew {peak} KiB over {FLOODERS} connections: \
             {per_connection} KiB per connection (limit {FLOOD_RSS_LIMIT_KIB})"
        )),
    }
}

/// What one flooder sends: the upload first if asked, then GETs up to [`FLOOD_BYTES`].
fn requests(flood: Flood) -> Vec<u8> {
    let mut bytes = Vec::new();
    if flood.behind_upload {
        let body = patterned(2 * MIB);
        bytes.extend(length_head(body.len(), ""));
        bytes.extend(body);
    }
    let get = format!("GET /bytes/{} HTTP/1.1\r\nHost: f\r\n\r\n", flood.body);
    bytes.extend(get.repeat(FLOOD_BYTES / get.len()).into_bytes());
    bytes
}

/// Writes `bytes` in slices until the server stops taking them (a write stalls for
/// [`STALL`], or fails: a server may also refuse the flood with a close).
fn write_until_stalled(wire: &mut Wire, bytes: &[u8]) {
    if wire.tcp().set_write_timeout(Some(STALL)).is_err() {
        return;
    }
    for slice in bytes.chunks(64 << 10) {
        if wire.write_all(slice).and_then(|()| wire.flush()).is_err() {
            return;
        }
    }
}

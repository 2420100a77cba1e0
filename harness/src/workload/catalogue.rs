//! Every workload a verdict is decided on, by name: the workloads study runs them all,
//! `cargo bench`'s short verdict a few of them ([`by_name`]), so each claim has one
//! definition; which of them the verdict judges, and why not the others: [`super::scope`].

use loadgen::churn::Churn;
use loadgen::tls::Handshakes;

use super::{Shape, Workload};

/// The one-connection point where neither side sleeps: the client busy-polls its read
/// (and io_uring_server's feature row there waits its busiest way, with SQPOLL).
pub const BUSY_POLLED: &str = "one busy-polled connection";

/// Clients opening connections at once in the churn workloads.
const CHURN_CLIENTS: usize = 32;

/// Idle connections held in the idle workloads; the largest stays under the 20,000
/// descriptors a process may hold here (client and server are each one process).
const IDLE_COUNTS: [usize; 3] = [1_000, 5_000, 10_000];

/// The closed loop run beside the idle connections.
///
/// The offered workloads (every cost at 50% of the smaller capacity of io_uring_server and
/// its tokio baseline, [`super::offered`]; how a cost moves with the load is the sweep's,
/// `scripts/sweep.sh`, and for churn `scripts/churn.sh`) follow the churn ones.
const IDLE_ACTIVE: usize = 64;

/// The file corpus's sets the file workloads serve (`http_core::files::CORPUS`), hot in the
/// page cache: 1 MiB files, where io_uring_server sends by sendfile, and 4 KiB files, which
/// it reads through the ring (below `http_core::files::SENDFILE_MIN`); each at 16 and 256
/// connections, as the files study and the files issue's wrk check measure them.
pub const FILE_SET: &str = "1m";
pub const SMALL_FILE_SET: &str = "4k";

/// Connections asking for 1 MiB files: each window of the open loop ends with one 1 MiB
/// round trip per connection in flight ([`super::offered::owed`]), so few; but enough that
/// each is idle most of the time at the offered rate, so that a stall of the VM is caught
/// up within the window rather than counted as falling behind.
const FILE_CONNECTIONS: usize = 16;

/// Connections asking for 4 KiB files: as many as kept-alive small requests, whose round
/// trips these resemble (the files study's and the profiles' hot 4 KiB loads are at 256 too).
const SMALL_FILE_CONNECTIONS: usize = 256;

/// Bytes of each upload: a large file or media upload, under the servers' default
/// `--max-upload-bytes` (`http_core::limits::MAX_UPLOAD_BYTES`, checked as it compiles).
pub const UPLOAD_BYTES: usize = 20 << 20;
const _: () = assert!(UPLOAD_BYTES <= http_core::limits::MAX_UPLOAD_BYTES);

/// Connections uploading: an upload costs each side a copy of every byte (the client's
/// into the socket, the server's out of it, and its CRC32C; the detail table's CPU
/// columns say how much), so a few keep both busy flat out, and each window of the open loop ends with up to one upload per connection
/// in flight ([`super::offered::owed`]), so few.
const UPLOAD_CONNECTIONS: usize = 4;

/// Requests each connection carries in the short-lived workloads: HttpArena's
/// `limited-conn` closes after 10.
const SHORT_LIVED_REQUESTS: usize = 10;

/// Kept-alive TLS connections, as many as plain keep-alive's, so the two rows differ by
/// TLS alone: each point (each slice) opens its own, and their handshakes' server CPU counts
/// in the point's per-request figure; the open loop's warm-up grows with the connections
/// so every handshake is done before the measured window opens ([`super::measure`]).
const TLS_CONNECTIONS: usize = 256;

pub const WORKLOADS: &[Workload] = &[
    Workload {
        name: "keep-alive, small requests",
        shape: Shape::KeepAlive { connections: 256 },
    },
    Workload {
        name: "keep-alive, 10 µs handler",
        shape: Shape::Handler {
            micros: 10,
            connections: 256,
        },
    },
    Workload {
        name: "keep-alive, 100 µs handler",
        shape: Shape::Handler {
            micros: 100,
            connections: 256,
        },
    },
    Workload {
        name: "pipelined 16 deep",
        shape: Shape::Pipelined {
            connections: 64,
            depth: 16,
        },
    },
    Workload {
        name: "one connection",
        shape: Shape::OneConnection {
            tls: false,
            busy_poll: false,
        },
    },
    // Not "one connection, ...": `--only "one connection"` (scripts/reproduce_here.sh)
    // matches within names, and this is no core row.
    Workload {
        name: BUSY_POLLED,
        shape: Shape::OneConnection {
            tls: false,
            busy_poll: true,
        },
    },
    Workload {
        name: "4 connections",
        shape: Shape::SmallService { connections: 4 },
    },
    Workload {
        name: "16 connections",
        shape: Shape::SmallService { connections: 16 },
    },
    Workload {
        name: "64 KiB echo",
        shape: Shape::Echo {
            bytes: 64 << 10,
            connections: 16,
            chunk: None,
        },
    },
    Workload {
        name: "20 MiB uploads",
        shape: Shape::Upload {
            bytes: UPLOAD_BYTES,
            connections: UPLOAD_CONNECTIONS,
        },
    },
    Workload {
        name: "16 KiB responses",
        shape: Shape::Response {
            bytes: 16 << 10,
            connections: 16,
        },
    },
    Workload {
        name: "256 KiB responses",
        shape: Shape::Response {
            bytes: 256 << 10,
            connections: 16,
        },
    },
    Workload {
        name: "1 MiB responses",
        shape: Shape::Response {
            bytes: 1 << 20,
            connections: 4,
        },
    },
    Workload {
        name: "1 MiB files, 16 connections",
        shape: Shape::Files {
            set: FILE_SET,
            connections: FILE_CONNECTIONS,
            cold: false,
        },
    },
    Workload {
        name: "4 KiB files, 256 connections",
        shape: Shape::Files {
            set: SMALL_FILE_SET,
            connections: SMALL_FILE_CONNECTIONS,
            cold: false,
        },
    },
    Workload {
        name: "1 MiB files, 256 connections",
        shape: Shape::Files {
            set: FILE_SET,
            connections: SMALL_FILE_CONNECTIONS,
            cold: false,
        },
    },
    Workload {
        name: "4 KiB files, 16 connections",
        shape: Shape::Files {
            set: SMALL_FILE_SET,
            connections: FILE_CONNECTIONS,
            cold: false,
        },
    },
    Workload {
        name: "churn, server closes",
        shape: Shape::Churn {
            closes: Churn::ServerCloses,
            clients: CHURN_CLIENTS,
        },
    },
    Workload {
        name: "churn, client closes",
        shape: Shape::Churn {
            closes: Churn::ClientCloses,
            clients: CHURN_CLIENTS,
        },
    },
    Workload {
        name: "10 requests per connection",
        shape: Shape::ShortLived {
            requests: SHORT_LIVED_REQUESTS,
            clients: CHURN_CLIENTS,
        },
    },
    Workload {
        name: "keep-alive over TLS",
        shape: Shape::TlsKeepAlive {
            connections: TLS_CONNECTIONS,
        },
    },
    Workload {
        name: "one connection over TLS",
        shape: Shape::OneConnection {
            tls: true,
            busy_poll: false,
        },
    },
    Workload {
        name: "TLS churn, full handshakes",
        shape: Shape::TlsChurn {
            handshakes: Handshakes::Full,
            clients: CHURN_CLIENTS,
        },
    },
    Workload {
        name: "TLS churn, resumed sessions",
        shape: Shape::TlsChurn {
            handshakes: Handshakes::Resumed,
            clients: CHURN_CLIENTS,
        },
    },
    Workload {
        name: "keep-alive, small requests at a fixed rate",
        shape: Shape::Offered {
            of: "keep-alive, small requests",
            percent: 50,
        },
    },
    Workload {
        name: "keep-alive, 10 µs handler at a fixed rate",
        shape: Shape::Offered {
            of: "keep-alive, 10 µs handler",
            percent: 50,
        },
    },
    Workload {
        name: "keep-alive, 100 µs handler at a fixed rate",
        shape: Shape::Offered {
            of: "keep-alive, 100 µs handler",
            percent: 50,
        },
    },
    Workload {
        name: "64 KiB echo at a fixed rate",
        shape: Shape::Offered {
            of: "64 KiB echo",
            percent: 50,
        },
    },
    Workload {
        name: "20 MiB uploads at a fixed rate",
        shape: Shape::Offered {
            of: "20 MiB uploads",
            percent: 50,
        },
    },
    Workload {
        name: "16 KiB responses at a fixed rate",
        shape: Shape::Offered {
            of: "16 KiB responses",
            percent: 50,
        },
    },
    Workload {
        name: "256 KiB responses at a fixed rate",
        shape: Shape::Offered {
            of: "256 KiB responses",
            percent: 50,
        },
    },
    Workload {
        name: "1 MiB responses at a fixed rate",
        shape: Shape::Offered {
            of: "1 MiB responses",
            percent: 50,
        },
    },
    Workload {
        name: "1 MiB files, 16 connections at a fixed rate",
        shape: Shape::Offered {
            of: "1 MiB files, 16 connections",
            percent: 50,
        },
    },
    Workload {
        name: "4 KiB files, 256 connections at a fixed rate",
        shape: Shape::Offered {
            of: "4 KiB files, 256 connections",
            percent: 50,
        },
    },
    Workload {
        name: "1 MiB files, 256 connections at a fixed rate",
        shape: Shape::Offered {
            of: "1 MiB files, 256 connections",
            percent: 50,
        },
    },
    Workload {
        name: "4 KiB files, 16 connections at a fixed rate",
        shape: Shape::Offered {
            of: "4 KiB files, 16 connections",
            percent: 50,
        },
    },
    Workload {
        name: "churn, server closes at a fixed rate",
        shape: Shape::Offered {
            of: "churn, server closes",
            percent: 50,
        },
    },
    Workload {
        name: "churn, client closes at a fixed rate",
        shape: Shape::Offered {
            of: "churn, client closes",
            percent: 50,
        },
    },
    Workload {
        name: "10 requests per connection at a fixed rate",
        shape: Shape::Offered {
            of: "10 requests per connection",
            percent: 50,
        },
    },
    Workload {
        name: "keep-alive over TLS at a fixed rate",
        shape: Shape::Offered {
            of: "keep-alive over TLS",
            percent: 50,
        },
    },
    Workload {
        name: "TLS churn, full handshakes at a fixed rate",
        shape: Shape::Offered {
            of: "TLS churn, full handshakes",
            percent: 50,
        },
    },
    Workload {
        name: "TLS churn, resumed sessions at a fixed rate",
        shape: Shape::Offered {
            of: "TLS churn, resumed sessions",
            percent: 50,
        },
    },
    Workload {
        name: "1k idle connections",
        shape: Shape::Idle {
            count: IDLE_COUNTS[0],
            active: IDLE_ACTIVE,
        },
    },
    Workload {
        name: "5k idle connections",
        shape: Shape::Idle {
            count: IDLE_COUNTS[1],
            active: IDLE_ACTIVE,
        },
    },
    Workload {
        name: "10k idle connections",
        shape: Shape::Idle {
            count: IDLE_COUNTS[2],
            active: IDLE_ACTIVE,
        },
    },
];

/// The body sizes the response workloads ask for (`GET /bytes/{n}`): each must be one the
/// nginx anchor prepares (`STUDIED_BODY_SIZES`, checked below).
pub fn response_sizes() -> Vec<usize> {
    WORKLOADS
        .iter()
        .filter_map(|w| match w.shape {
            Shape::Response { bytes, .. } => Some(bytes),
            _ => None,
        })
        .collect()
}

/// The workload called `name`: a verdict workload, or a further row or its load
/// ([`super::further`]).
pub fn by_name(name: &str) -> Option<Workload> {
    let further = super::further::ROWS.iter().chain(super::further::LOADS);
    WORKLOADS.iter().chain(further).find(|w| w.name == name).copied()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_nginx_anchor_prepares_every_body_size_asked_for() {
        for size in super::response_sizes() {
            assert!(http_core::routes::STUDIED_BODY_SIZES.contains(&size), "{size}");
        }
    }
}

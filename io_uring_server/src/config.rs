//! Command-line flags of `io_uring_server`, including one switch per io_uring feature so
//! that each feature's worth can be measured by turning it off.

use std::net::SocketAddr;

use clap::Parser;
use server_kit::CommonArgs;

/// Serve the uring-vs-tokio HTTP contract from a hand-rolled io_uring loop.
#[derive(Parser, Debug, Clone)]
#[command(version)]
pub struct Cli {
    /// Address to listen on; loopback by default, `0.0.0.0:8081` exposes it.
    #[arg(long, default_value = "127.0.0.1:8081")]
    pub addr: SocketAddr,

    #[command(flatten)]
    pub common: CommonArgs,

    /// Bytes per provided receive buffer (and per plain-recv buffer). Default 262144 when
    /// buffers are consumed incrementally, else 8192.
    #[arg(long)]
    pub buf_size: Option<usize>,

    /// Provided buffers per thread; a power of two up to 32768. Default 4 (a 1 MiB ring)
    /// when buffers are consumed incrementally, else 1024.
    #[arg(long)]
    pub buf_count: Option<u16>,

    /// Submission queue entries per ring; the completion queue gets four times as many.
    #[arg(long, default_value_t = 1024)]
    pub ring_entries: u32,

    #[command(flatten)]
    pub features: Features,
}

/// The io_uring features in use; each flag switches one off (or SQPOLL on).
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct Features {
    /// Re-submit a single accept after every connection instead of one multishot accept.
    #[arg(long)]
    pub no_multishot_accept: bool,

    /// Plain recv into per-connection buffers instead of multishot recv with a buffer ring.
    #[arg(long)]
    pub no_multishot_recv: bool,

    /// Consume each provided buffer whole per completion instead of incrementally
    /// (IOU_PBUF_RING_INC). Without this flag the server still falls back by itself on a
    /// kernel that may post a buffer's completions out of order (before 6.12.29, 6.13,
    /// 6.14 before 6.14.7) or lacks it (before 6.12), and under --sqpoll.
    #[arg(long)]
    pub no_incremental_buffers: bool,

    /// Receive a large request body through the buffer ring too, instead of plain recvs
    /// straight into the connection's input (which spare copying it out of the ring).
    #[arg(long)]
    pub no_plain_body_recv: bool,

    /// How an upload's large body is received (`POST /upload` with 64 KiB or more to come
    /// by its Content-Length, or a chunked one past 64 KiB): `multishot` keeps the
    /// buffer ring's multishot recv, a completion per arrival; `direct` moves to plain
    /// recvs straight into a receive slice of the input (up to 256 KiB, grown as bytes
    /// arrive) until the body ends.
    #[arg(long, value_enum, default_value_t = BulkRecv::Multishot)]
    pub bulk_recv: BulkRecv,

    /// Do not ask for SINGLE_ISSUER | DEFER_TASKRUN (start from COOP_TASKRUN).
    #[arg(long)]
    pub no_defer_taskrun: bool,

    /// Let a kernel thread poll the submission queue (SQPOLL); it costs a busy CPU.
    #[arg(long)]
    pub sqpoll: bool,

    /// Accept into registered (direct) descriptors and name connections by table index,
    /// saving the per-operation file lookup; the connections have no ordinary fd. The
    /// flag keeps liburing's older name ("fixed files"); the code says "direct".
    #[arg(long = "fixed-files")]
    pub direct_descriptors: bool,

    /// Wait up to this many microseconds for a batch of completions per io_uring_enter
    /// while requests arrive on their own (not as round trips to answers just sent) fast
    /// enough to fill one (needs Linux 6.12 min-wait). Off (0) by default: where it was
    /// measured (the concurrency scan, since merged into the sweep), it never paid for its timer.
    #[arg(long, default_value_t = 0, value_name = "US")]
    pub batch_wait_us: u32,

    /// Send a large static body (16 KiB or more, e.g. `GET /bytes/{n}`'s) with
    /// IORING_OP_SEND_ZC: the kernel reads it in place instead of copying it, and posts a
    /// notification once it has let go of it (Linux 6.0; ignored, with a note on the ready
    /// line, where the kernel lacks it). A send refused for locked memory (RLIMIT_MEMLOCK)
    /// goes again plainly. Over loopback the kernel copies it anyway.
    #[arg(long)]
    pub zero_copy_send: bool,

    /// Read every file through the ring into the connection's buffer and send that,
    /// instead of handing a large file in the page cache (64 KiB or more) to TCP with
    /// sendfile(2). Under --fixed-files (direct descriptors) files are always read: sendfile needs the
    /// socket's own descriptor.
    #[arg(long)]
    pub no_sendfile: bool,

    /// Name the ring by its descriptor on every io_uring_enter (a descriptor-table lookup
    /// per call) instead of by an index it is registered at once.
    #[arg(long)]
    pub no_registered_ring: bool,

    /// Keep the submission queue's index array instead of IORING_SETUP_NO_SQARRAY (Linux
    /// 6.6; used by default where the kernel has it).
    #[arg(long)]
    pub sq_array: bool,
}

/// How an upload's large body is received (`--bulk-recv`; `conn/bulk.rs`).
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum BulkRecv {
    /// The buffer ring's multishot recv, as for every other request.
    Multishot,
    /// Plain recvs straight into the input, back to multishot once the body ends.
    Direct,
}

/// Incrementally consumed provided buffers per thread: four of 256 KiB, a 1 MiB ring. The
/// bytes a completion hands over are read out of the ring at once, so a ring about the
/// size of a core's L2 cache keeps more of those reads on cached lines than a larger
/// ring, which cycles uploads through more memory than the cache holds (the workloads
/// study's feature row "with a 4 MiB buffer ring" measures the difference on the
/// machine it runs on).
const INCREMENTAL_COUNT: u16 = 4;

/// Provided buffers: how many, and how large.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Buffers {
    pub count: u16,
    pub size: usize,
}

impl Cli {
    /// The provided buffers to register: the flags, or the defaults for the mode. A few
    /// large ones when consumed incrementally; otherwise many small ones, since each
    /// completion then takes a whole buffer.
    pub fn buffers(&self, incremental: bool) -> Buffers {
        let (count, size) = if incremental {
            (INCREMENTAL_COUNT, 256 << 10)
        } else {
            (1024, 8 << 10)
        };
        Buffers {
            count: self.buf_count.unwrap_or(count),
            size: self.buf_size.unwrap_or(size),
        }
    }

    pub fn validate(&self) -> Result<(), String> {
        self.common.validate()?;
        if self.common.tls_cert.is_some() {
            if self.features.no_multishot_recv {
                return Err(
                    "--tls-cert receives ciphertext through the buffer ring: drop --no-multishot-recv".into(),
                );
            }
            if self.features.zero_copy_send {
                return Err(
                    "--zero-copy-send sends static bodies as they are, unencrypted: not with --tls-cert"
                        .into(),
                );
            }
        }
        if let Some(count) = self.buf_count
            && (!count.is_power_of_two() || count > 32768)
        {
            return Err("--buf-count must be a power of two up to 32768".into());
        }
        if let Some(size) = self.buf_size
            && !(512..=1 << 20).contains(&size)
        {
            return Err("--buf-size must be between 512 and 1048576".into());
        }
        if self.features.batch_wait_us > 10_000 {
            return Err("--batch-wait-us must be at most 10000".into());
        }
        if !(8..=32768).contains(&self.ring_entries) {
            return Err("--ring-entries must be between 8 and 32768".into());
        }
        Ok(())
    }
}

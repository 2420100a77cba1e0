//! Creates each thread's ring with the best setup flags the kernel accepts, checks the
//! opcodes we use, and turns every startup failure into one sentence naming the fix.

use std::io;

use io_uring::{IoUring, Probe, opcode};

use server_kit::startup::explain_io_uring as explain;

use crate::config::Features;

/// A new ring plus the setup flags actually in effect, for the ready line; the worker
/// wraps its `uring` in a [`crate::ring::Ring`].
pub struct BuiltRing {
    pub uring: IoUring,
    pub setup: &'static str,
    /// The kernel honours `min_wait_usec` (batched waits).
    pub min_wait: bool,
    /// The submission queue has no index array (IORING_SETUP_NO_SQARRAY, Linux 6.6): the
    /// kernel takes entries in ring order, one memory read fewer per entry.
    pub no_sqarray: bool,
}

/// Builds a ring: `SINGLE_ISSUER | DEFER_TASKRUN` (6.1), else `COOP_TASKRUN |
/// TASKRUN_FLAG` (5.19), else plain. With `--sqpoll`, an SQ polling thread instead (it
/// cannot be combined with DEFER_TASKRUN). Must run on the thread that will submit.
pub fn build_ring(entries: u32, features: Features) -> Result<BuiltRing, String> {
    let mut candidates = Vec::new();
    if features.sqpoll {
        candidates.push(Setup::SqPoll);
    } else if !features.no_defer_taskrun {
        candidates.push(Setup::DeferTaskrun);
    }
    candidates.extend([Setup::CoopTaskrun, Setup::Plain]);
    // Without the index array first (unless `--sq-array`), then with it, for each setup.
    let layouts: &[bool] = if features.sq_array {
        &[false]
    } else {
        &[true, false]
    };
    let mut last = io::Error::from_raw_os_error(libc::EINVAL);
    for setup in candidates {
        for &no_sqarray in layouts {
            match setup.build(entries, no_sqarray) {
                Ok(uring) => {
                    check_opcodes(&uring)?;
                    let min_wait = uring.params().is_feature_min_timeout();
                    return Ok(BuiltRing {
                        uring,
                        setup: setup.name(),
                        min_wait,
                        no_sqarray,
                    });
                }
                Err(e) if e.raw_os_error() == Some(libc::EINVAL) => last = e,
                Err(e) => return Err(explain(&e)),
            }
        }
    }
    Err(explain(&last))
}

#[derive(Debug, Clone, Copy)]
enum Setup {
    SqPoll,
    DeferTaskrun,
    CoopTaskrun,
    Plain,
}

/// Milliseconds the SQPOLL thread spins without work before it sleeps.
const SQPOLL_IDLE_MS: u32 = 100;

impl Setup {
    fn name(self) -> &'static str {
        match self {
            Setup::SqPoll => "SQPOLL",
            Setup::DeferTaskrun => "SINGLE_ISSUER|DEFER_TASKRUN",
            Setup::CoopTaskrun => "COOP_TASKRUN|TASKRUN_FLAG",
            Setup::Plain => "none",
        }
    }

    fn build(self, entries: u32, no_sqarray: bool) -> io::Result<IoUring> {
        let mut builder = IoUring::builder();
        builder.setup_cqsize(entries.saturating_mul(4));
        if no_sqarray {
            builder.setup_no_sqarray();
        }
        match self {
            Setup::SqPoll => builder.setup_sqpoll(SQPOLL_IDLE_MS),
            Setup::DeferTaskrun => builder.setup_single_issuer().setup_defer_taskrun(),
            Setup::CoopTaskrun => builder.setup_coop_taskrun().setup_taskrun_flag(),
            Setup::Plain => &mut builder,
        };
        builder.build(entries)
    }
}

/// Registers an empty table of direct descriptors for `--fixed-files`, as large as the
/// kernel allows: it caps the table at RLIMIT_NOFILE (EMFILE above it), so halve until
/// it fits.
pub fn register_direct_table(ring: &IoUring) -> Result<u32, String> {
    let mut size = DIRECT_TABLE_MAX;
    loop {
        match ring.submitter().register_files_sparse(size) {
            Ok(()) => return Ok(size),
            Err(e) if e.raw_os_error() == Some(libc::EMFILE) && size > DIRECT_TABLE_MIN => size /= 2,
            Err(e) => {
                return Err(format!(
                    "cannot register {size} direct descriptors ({e}); use Linux 6.0 or later, or drop --fixed-files"
                ));
            }
        }
    }
}

/// The largest and smallest direct-descriptor tables we ask for.
const DIRECT_TABLE_MAX: u32 = 65536;
const DIRECT_TABLE_MIN: u32 = 64;

/// The kernel has IORING_OP_SEND_ZC (Linux 6.0), which `--zero-copy-send` uses.
pub fn supports_send_zc(ring: &IoUring) -> bool {
    let mut probe = Probe::new();
    let probed = ring.submitter().register_probe(&mut probe).is_ok();
    probed && probe.is_supported(opcode::SendZc::CODE)
}

/// Every opcode the loop submits must be supported.
fn check_opcodes(ring: &IoUring) -> Result<(), String> {
    let mut probe = Probe::new();
    ring.submitter()
        .register_probe(&mut probe)
        .map_err(|e| format!("cannot probe io_uring opcodes ({e}); use Linux 6.1 or later"))?;
    let needed = [
        ("ACCEPT", opcode::Accept::CODE),
        ("RECV", opcode::Recv::CODE),
        ("SEND", opcode::Send::CODE),
        ("SHUTDOWN", opcode::Shutdown::CODE),
        ("CLOSE", opcode::Close::CODE),
        ("ASYNC_CANCEL", opcode::AsyncCancel::CODE),
        ("TIMEOUT", opcode::Timeout::CODE),
        ("READ", opcode::Read::CODE),
        ("POLL_ADD", opcode::PollAdd::CODE),
        ("OPENAT2", opcode::OpenAt2::CODE),
    ];
    match needed.iter().find(|(_, code)| !probe.is_supported(*code)) {
        Some((name, _)) => Err(format!(
            "this kernel lacks the io_uring opcode {name}; use Linux 6.1 or later"
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_setup_is_the_best_this_kernel_offers() {
        let features = Features {
            no_multishot_accept: false,
            no_multishot_recv: false,
            no_incremental_buffers: false,
            no_plain_body_recv: false,
            bulk_recv: crate::config::BulkRecv::Multishot,
            no_defer_taskrun: false,
            sqpoll: false,
            direct_descriptors: false,
            batch_wait_us: 100,
            zero_copy_send: false,
            no_sendfile: false,
            no_registered_ring: false,
            sq_array: false,
        };
        let ring = build_ring(64, features).expect("io_uring works on the test machine");
        assert!(["SINGLE_ISSUER|DEFER_TASKRUN", "COOP_TASKRUN|TASKRUN_FLAG", "none"].contains(&ring.setup));
        let fallback = build_ring(
            64,
            Features {
                no_defer_taskrun: true,
                ..features
            },
        )
        .unwrap();
        assert_ne!(fallback.setup, "SINGLE_ISSUER|DEFER_TASKRUN");
    }
}

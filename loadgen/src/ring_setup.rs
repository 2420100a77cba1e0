//! Creates a load thread's io_uring with the best setup the kernel accepts, as
//! io_uring_server does (`io_uring_server/src/setup.rs`): SINGLE_ISSUER|DEFER_TASKRUN
//! (Linux 6.1: completions' kernel work runs in the thread's own wait, never interrupting
//! it), else COOP_TASKRUN|TASKRUN_FLAG (5.19), else plain; each without the submission
//! queue's index array where the kernel allows (NO_SQARRAY, 6.6), else with it.

use std::io;

use io_uring::IoUring;

/// Whether the kernel offers io_uring to this process with everything the driver uses:
/// a ring deferring its task work (Linux 6.1) has multishot recv (6.0), provided-buffer
/// rings (5.19) and the timed wait of `io_uring_enter`'s extended arguments (5.11).
pub(crate) fn available() -> bool {
    let ring: std::io::Result<IoUring> = IoUring::builder()
        .setup_single_issuer()
        .setup_defer_taskrun()
        .build(8);
    ring.is_ok_and(|ring| ring.params().is_feature_ext_arg())
}

/// A ring of `entries` submission entries and four times as many completion entries
/// (multishot recvs may post several per connection per wake-up), best set up first.
pub(crate) fn build(entries: u32) -> io::Result<IoUring> {
    let mut last = io::Error::from_raw_os_error(libc::EINVAL);
    for setup in 0..3 {
        for no_sqarray in [true, false] {
            let mut builder = IoUring::builder();
            builder.setup_cqsize(entries.saturating_mul(4));
            if no_sqarray {
                builder.setup_no_sqarray();
            }
            match setup {
                0 => builder.setup_single_issuer().setup_defer_taskrun(),
                1 => builder.setup_coop_taskrun().setup_taskrun_flag(),
                _ => &mut builder,
            };
            match builder.build(entries) {
                Ok(ring) => return Ok(ring),
                Err(e) if e.raw_os_error() == Some(libc::EINVAL) => last = e,
                Err(e) => return Err(e),
            }
        }
    }
    Err(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_kernel_gives_the_ring_driver_its_best_setup() {
        let ring = build(8).expect("io_uring works on the test machine");
        assert_eq!(available(), ring.params().is_setup_single_issuer());
        let params = ring.params();
        assert_eq!(params.cq_entries(), 32);
        let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
        let version: Vec<u32> = release
            .split(['.', '-'])
            .take(2)
            .filter_map(|n| n.parse().ok())
            .collect();
        if version >= vec![6, 1] {
            // SINGLE_ISSUER is asked for only with DEFER_TASKRUN.
            assert!(params.is_setup_single_issuer(), "{release}");
        }
    }
}

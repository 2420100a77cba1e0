//! What a server asked of the kernel per request (per connection for churn), counted by
//! `perf stat` in a short run of its own right after its profile, at the same load, so the
//! tracepoints do not slow the profiled run: system calls, io_uring completions reaped and
//! context switches (a server pinned to its own CPU leaves it mostly to sleep, so these
//! are about its wake-ups). They say how a server's loop spent its visits to the kernel,
//! e.g. how many receives an upload took; the profile says what they cost.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::profiles::{Workload, measure};
use harness::perf::{CONTEXT_SWITCHES, EventCounter, IO_URING_COMPLETIONS, SYSCALLS};
use harness::servers::Server;
use harness::settings::Pinning;

/// How long the counting run measures (after the open loop's warm-up, which it counts
/// too): a few dozen uploads at the slowest profiled rate, and it adds a few minutes to
/// the study over its dozen workloads and six servers.
const SECONDS: Duration = Duration::from_secs(1);

/// Events per request (or connection); `None` where perf could not count that event.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Counts {
    pub syscalls: Option<f64>,
    pub completions: Option<f64>,
    pub context_switches: Option<f64>,
}

impl Counts {
    /// Counts over `requests` from perf's counts in [`EVENTS`] order.
    fn per_request(counts: &[Option<u64>], requests: u64) -> Counts {
        let per = |i: usize| {
            counts
                .get(i)
                .copied()
                .flatten()
                .map(|n| n as f64 / requests.max(1) as f64)
        };
        Counts {
            syscalls: per(0),
            completions: per(1),
            context_switches: per(2),
        }
    }
}

const EVENTS: [&str; 3] = [SYSCALLS, IO_URING_COMPLETIONS, CONTEXT_SWITCHES];

/// Counts `server` serving `workload` at `rate` (closed loop when `None`); `None` when
/// perf cannot count this process or the run failed (the profile stands without them).
pub fn count(server: &Server, workload: &Workload, rate: Option<f64>, pinning: &Pinning) -> Option<Counts> {
    let counter = EventCounter::start(server.pid()?, &EVENTS)?;
    let point = measure::point(server, workload, rate, SECONDS, pinning);
    let counts = counter.stop()?;
    // The counter ran over the whole run, warm-up included, as `requests_in_window` does.
    Some(Counts::per_request(&counts, point.ok()?.requests_in_window))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divides_each_count_by_the_requests_and_keeps_what_perf_could_not_count() {
        let counts = Counts::per_request(&[Some(9_442), None, Some(4_388)], 160);
        assert_eq!(counts.syscalls, Some(9_442.0 / 160.0));
        assert_eq!(counts.completions, None);
        assert_eq!(counts.context_switches, Some(4_388.0 / 160.0));
        assert_eq!(Counts::per_request(&[Some(5)], 0).syscalls, Some(5.0));
    }
}

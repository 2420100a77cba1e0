//! When a client may send next: the run's shared stop conditions ([`Limits`]) and each
//! client's schedule ([`Pacer`]). In the open loop a client owns every `connections`-th
//! slot of the total rate; a send that could not leave on time (the client still waited
//! for the previous answer) is measured from its *intended* time, as wrk2 does, so a server
//! stall shows in the percentiles instead of silently delaying later sends (coordinated
//! omission). In the closed loop a send is measured from when it leaves.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

use tokio::time::Instant;

/// Shared stop conditions, and the count of answered requests for progress lines.
pub(crate) struct Limits {
    pub deadline: Instant,
    pub budget: AtomicI64,
    pub failed: AtomicBool,
    pub answered: AtomicU64,
}

impl Limits {
    pub fn new(deadline: Instant, max_requests: Option<u64>) -> Limits {
        Limits {
            deadline,
            budget: AtomicI64::new(max_requests.map_or(i64::MAX, |n| n as i64)),
            failed: AtomicBool::new(false),
            answered: AtomicU64::new(0),
        }
    }

    /// Takes `n` requests from the budget; false once it is spent or the run has failed.
    pub fn take(&self, n: usize) -> bool {
        !self.failed.load(Ordering::Relaxed) && self.budget.fetch_sub(n as i64, Ordering::Relaxed) > 0
    }

    /// How long an answer may take: until 5 s after the run's end.
    pub fn patience(&self) -> Instant {
        self.deadline + Duration::from_secs(5)
    }
}

/// One client's send schedule.
pub(crate) struct Pacer {
    interval: Option<Duration>,
    intended: Instant,
}

impl Pacer {
    /// Client `index` of `clients`, at `rate` sends per second over all of them (`None`:
    /// closed loop), from `start`.
    pub fn new(rate: Option<f64>, clients: usize, index: usize, start: Instant) -> Pacer {
        let interval = rate.map(|rate| Duration::from_secs_f64(clients as f64 / rate));
        let offset = interval.map_or(Duration::ZERO, |i| i.mul_f64(index as f64 / clients as f64));
        Pacer {
            interval,
            intended: start + offset,
        }
    }

    /// Waits until the next send is due and returns the time its latency counts from;
    /// `None` once the run is over.
    pub async fn next(&mut self, deadline: Instant) -> Option<Instant> {
        let Some(interval) = self.interval else {
            return (Instant::now() < deadline).then(Instant::now);
        };
        let intended = self.intended;
        if intended >= deadline {
            return None;
        }
        self.intended += interval;
        if Instant::now() > intended {
            // Behind schedule: count from the intended time (the coordinated-omission
            // correction).
            return Some(intended);
        }
        // On schedule: sleep, and count from the actual send, so the timer's millisecond
        // overshoot is not charged to the server.
        tokio::time::sleep_until(intended).await;
        Some(Instant::now())
    }
}

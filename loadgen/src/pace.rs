//! When a client may send next: the run's shared stop conditions ([`Limits`]) and each
//! client's schedule ([`Pacer`]). In the open loop a client owns every `connections`-th
//! slot of the total rate, from when its connection is established; every answer is
//! measured from its send's *intended* time, as wrk2 does, so a server stall shows in the
//! percentiles instead of silently delaying later sends (coordinated omission), and the
//! [`Sending`] also says when it actually left (for the uncorrected latency and the
//! client's own lateness). Waits are on the thread's timerfd clock (`timer.rs`), not
//! tokio's 1 ms ticks. In the closed loop a send is measured from when it leaves.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

use tokio::time::Instant;

use crate::timer::Deadline;

/// Shared stop conditions, and the count of answered requests for progress lines.
pub(crate) struct Limits {
    /// The warm-up's end: sends meant to leave before it are not taken from the budget.
    pub measured_from: Instant,
    pub deadline: Instant,
    pub budget: AtomicI64,
    pub failed: AtomicBool,
    pub answered: AtomicU64,
}

impl Limits {
    /// A run measured from `measured_from` that ends at `deadline` or after
    /// `max_requests` measured requests.
    pub fn new(measured_from: Instant, deadline: Instant, max_requests: Option<u64>) -> Limits {
        Limits {
            measured_from,
            deadline,
            budget: AtomicI64::new(max_requests.map_or(i64::MAX, |n| n as i64)),
            failed: AtomicBool::new(false),
            answered: AtomicU64::new(0),
        }
    }

    /// Whether `n` requests meant to leave at `intended` may go: false once the run has
    /// failed, or the budget is spent (requests of the warm-up take nothing from it).
    pub fn take(&self, n: usize, intended: Instant) -> bool {
        !self.failed.load(Ordering::Relaxed)
            && (intended < self.measured_from || self.budget.fetch_sub(n as i64, Ordering::Relaxed) > 0)
    }

    /// How long an answer may take: until 5 s after the run's end.
    pub fn patience(&self) -> Instant {
        self.deadline + Duration::from_secs(5)
    }
}

/// When one request (or churn connection) left, against when it was meant to.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sending {
    /// Its slot in the open loop's schedule; in the closed loop, when it left.
    pub intended: Instant,
    /// When it left.
    pub sent: Instant,
}

/// One client's send schedule.
pub(crate) struct Pacer {
    interval: Option<Duration>,
    /// This client's share of one interval: clients that begin together stay staggered.
    offset: Duration,
    intended: Instant,
    timer: Option<Deadline>,
}

impl Pacer {
    /// Client `index` of `clients`, at `rate` sends per second over all of them (`None`:
    /// closed loop). The schedule starts at [`Pacer::begin`]. Must be made inside a
    /// [`tokio::task::LocalSet`] (the open loop waits on the thread's timerfd clock).
    pub fn new(rate: Option<f64>, clients: usize, index: usize) -> std::io::Result<Pacer> {
        let interval = rate.map(|rate| Duration::from_secs_f64(clients as f64 / rate));
        Ok(Pacer {
            interval,
            offset: interval.map_or(Duration::ZERO, |i| i.mul_f64(index as f64 / clients as f64)),
            intended: Instant::now(),
            timer: interval.map(|_| Deadline::new()).transpose()?,
        })
    }

    /// Starts the schedule at `at`: when the client's connection is established (so its
    /// setup is not charged to its first requests, as wrk2 does), or for churn, where the
    /// connect is part of what is measured, at the run's start.
    pub fn begin(&mut self, at: Instant) {
        self.intended = at + self.offset;
    }

    /// Waits until the next send is due and says when it leaves and when it was meant to;
    /// `None` once the run is over.
    pub async fn next(&mut self, deadline: Instant) -> Option<Sending> {
        let (Some(interval), Some(timer)) = (self.interval, &mut self.timer) else {
            let now = Instant::now();
            return (now < deadline).then_some(Sending {
                intended: now,
                sent: now,
            });
        };
        let intended = self.intended;
        if intended >= deadline {
            // The client is held until the run's end: ending up to an interval early, it
            // would spend the thread's CPU (its timer, its task, its connection) while the
            // other clients send the window's last requests, and make those late.
            wait_until(timer, deadline).await;
            return None;
        }
        self.intended += interval;
        // A send that is already late (its connection was still waiting for the previous
        // answer) leaves at once; its latency still counts from `intended`.
        wait_until(timer, intended).await;
        Some(Sending {
            intended,
            sent: Instant::now(),
        })
    }
}

/// Waits on the thread's clock until `at`, or on tokio's if the clock failed.
async fn wait_until(timer: &mut Deadline, at: Instant) {
    if timer.wait_until(at).await.is_err() {
        tokio::time::sleep_until(at).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_open_loop_client_is_held_until_the_run_ends() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        tokio::task::LocalSet::new().block_on(&runtime, async {
            // One send a second; the run ends 200 ms after the first.
            let mut pacer = Pacer::new(Some(1.0), 1, 0).unwrap();
            let start = Instant::now();
            pacer.begin(start);
            let deadline = start + Duration::from_millis(200);
            assert!(
                pacer.next(deadline).await.is_some(),
                "the first send is due at once"
            );
            assert!(
                pacer.next(deadline).await.is_none(),
                "the next falls after the end"
            );
            assert!(
                Instant::now() >= deadline,
                "a client whose schedule is done ends with the run, not before"
            );
        });
    }
}

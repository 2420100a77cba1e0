//! Waiting for an open-loop send's intended time with sub-millisecond precision.
//!
//! tokio's timer wheel has 1 ms ticks: `sleep_until` wakes on the first tick at or after
//! the deadline, so sends scheduled within one millisecond bunch together and leave up to
//! a millisecond late. [`Deadline`] instead arms a timerfd at the absolute
//! CLOCK_MONOTONIC deadline (the clock `Instant` reads) and waits for it through tokio's
//! reactor ([`AsyncFd`]), so the task wakes when the kernel's high-resolution timer fires
//! and the thread stays free for other connections meanwhile (no spinning, which would
//! also show up as client CPU). A timerfd's expiry takes no timer slack; the thread's
//! other timed waits (the event loop's `epoll_wait` with a timeout) do, so the load
//! threads lower theirs from the default 50 µs to 1 ns ([`lower_timer_slack`]).
//!
//! Cost: one timerfd per open-loop connection, and per send a `timerfd_settime`, a wake
//! of the event loop and a `read` of the expiry count.

use std::io;
use std::num::NonZeroU64;
use std::os::fd::OwnedFd;
use std::time::Duration;

use rustix::time::{
    ClockId, Itimerspec, TimerfdClockId, TimerfdFlags, TimerfdTimerFlags, Timespec, clock_gettime,
    timerfd_create, timerfd_settime,
};
use tokio::io::Interest;
use tokio::io::unix::AsyncFd;
use tokio::time::Instant;

/// A timer a task can wait on until an absolute time, with sub-millisecond precision.
pub(crate) struct Deadline {
    timer: AsyncFd<OwnedFd>,
}

impl Deadline {
    /// A disarmed timer; must be made inside a tokio runtime with I/O enabled.
    pub fn new() -> io::Result<Deadline> {
        let flags = TimerfdFlags::NONBLOCK | TimerfdFlags::CLOEXEC;
        let timer = timerfd_create(TimerfdClockId::Monotonic, flags)?;
        // SAFETY: the AsyncFd takes ownership of the OwnedFd, so the descriptor stays open
        // and names this timerfd until the AsyncFd (and with it the OwnedFd) is dropped;
        // OwnedFd's as_raw_fd always returns that one descriptor.
        let timer = unsafe { AsyncFd::register_with_interest(timer, Interest::READABLE) };
        Ok(Deadline {
            timer: timer.map_err(|e| e.into_parts().1)?,
        })
    }

    /// Returns at `at` or just after; at once if `at` has passed.
    pub async fn wait_until(&mut self, at: Instant) -> io::Result<()> {
        let now = Instant::now();
        if at <= now {
            return Ok(());
        }
        let value = add(clock_gettime(ClockId::Monotonic), at - now);
        let disarmed = Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        let spec = Itimerspec {
            it_interval: disarmed,
            it_value: value,
        };
        timerfd_settime(&self.timer, TimerfdTimerFlags::ABSTIME, &spec)?;
        loop {
            let mut ready = self.timer.readable().await?;
            let mut expirations = [0u8; 8];
            match ready.try_io(|timer| Ok(rustix::io::read(timer, &mut expirations)?)) {
                Ok(result) => return result.map(drop),
                Err(_would_block) => continue,
            }
        }
    }
}

/// Lowers the calling thread's timer slack from the default 50 µs to 1 ns, best effort.
pub(crate) fn lower_timer_slack() {
    let _ = rustix::thread::set_current_timer_slack(NonZeroU64::new(1));
}

fn add(time: Timespec, by: Duration) -> Timespec {
    let nanos = time.tv_nsec as u64 + u64::from(by.subsec_nanos());
    Timespec {
        tv_sec: time.tv_sec + by.as_secs() as i64 + (nanos / 1_000_000_000) as i64,
        tv_nsec: (nanos % 1_000_000_000) as _,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adding_carries_nanoseconds_into_seconds() {
        let time = Timespec {
            tv_sec: 5,
            tv_nsec: 999_999_000,
        };
        let sum = add(time, Duration::from_micros(1_500));
        assert_eq!((sum.tv_sec, sum.tv_nsec), (6, 1_499_000));
    }

    #[test]
    fn wakes_at_the_deadline_never_before() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let mut deadline = Deadline::new().unwrap();
            for micros in [300, 1_700, 0] {
                let at = Instant::now() + Duration::from_micros(micros);
                deadline.wait_until(at).await.unwrap();
                assert!(Instant::now() >= at, "woke before a deadline {micros} µs ahead");
            }
        });
    }
}

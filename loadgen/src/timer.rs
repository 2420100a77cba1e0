//! Waiting for an open-loop send's intended time with sub-millisecond precision.
//!
//! tokio's timer wheel has 1 ms ticks, so sends scheduled within one millisecond bunch
//! together and leave up to a millisecond late. Instead, every load thread has one
//! [`ThreadClock`]: a timerfd armed at an absolute CLOCK_MONOTONIC time (the clock
//! `Instant` reads), waited on through tokio's reactor ([`AsyncFd`]), and a heap of
//! (deadline, waker). A driver task, on each expiry, wakes every wait whose deadline has
//! passed, in deadline order, and re-arms for the earliest one left, but never sooner than
//! [`MIN_GAP`] after this expiry: at high rates one expiry releases several due sends, so
//! the timer's syscalls and reactor wakes per send fall below one. A send never leaves
//! before its deadline (the driver checks it against `Instant::now()`); a deadline already
//! passed returns at once without touching the timer. A timerfd's expiry takes no timer
//! slack; the thread's other timed waits (epoll_wait) do, so the load threads lower theirs
//! to 1 ns ([`lower_timer_slack`]).
//!
//! Measured on this 2-CPU VM with other builds running (release; io_uring_server
//! `--threads 1` on CPU 0, loadgen on CPU 1, both `nice -n -15`; 64 connections at 20k
//! req/s, 1 s warm-up + 3 s; 2-4 interleaved runs): client CPU per request, tokio's sleep
//! 9.3-12.6 µs (lateness p50 1.08-1.17 ms), a timerfd per connection 18.8-31.2 µs
//! (8-441 µs), this clock with a 20-30 µs gap 20.9-27.8 µs, 100 µs 20.2-21.0 µs, 250 µs
//! 13.6-15.0 µs (160-237 µs), 500 µs 13.1-13.5 µs (345-352 µs). Every timer wake of an
//! idle client costs several µs, so only coalescing saves CPU; 250 µs keeps the pacing
//! five times finer than tokio's ticks (the final build, twice more: 13.3-14.3 µs against
//! 12.1-12.6 µs, lateness p99 261-264 µs against 1.9-3.3 ms). At 50k and 75k
//! req/s the contended server fell behind under every variant, so those runs say nothing
//! about pacing.

use std::cell::{Cell, RefCell};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::future::{Future, poll_fn};
use std::io;
use std::num::NonZeroU64;
use std::os::fd::OwnedFd;
use std::pin::Pin;
use std::rc::{Rc, Weak};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use rustix::time::{
    ClockId, Itimerspec, TimerfdClockId, TimerfdFlags, TimerfdTimerFlags, Timespec, clock_gettime,
    timerfd_create, timerfd_settime,
};
use tokio::io::Interest;
use tokio::io::unix::AsyncFd;
use tokio::time::Instant;

/// The shortest time from one expiry to the next: sends due within it of each other leave
/// together, each at or after its deadline. Default is 250 µs (see the module doc).
pub const MIN_GAP: Duration = Duration::from_micros(250);

thread_local! {
    /// This thread's clock while any [`Deadline`] holds it.
    static THREAD_CLOCK: RefCell<Weak<ThreadClock>> = const { RefCell::new(Weak::new()) };
}

/// A handle on the thread's clock that a task waits on until an absolute time.
pub(crate) struct Deadline {
    clock: Rc<ThreadClock>,
    /// The waker of this handle's wait while it waits, shared with its entry on the
    /// clock: made once per handle, so a wait costs no allocation and no map entry.
    slot: Slot,
}

/// Where a wait's waker is kept while it waits; empty once woken or dropped.
type Slot = Rc<RefCell<Option<Waker>>>;

/// A wait on the clock: due at `at`, numbered so equal deadlines leave in the order they
/// were queued, woken through its handle's `slot`.
struct Queued {
    at: Instant,
    number: u64,
    slot: Slot,
}

impl Queued {
    fn key(&self) -> (Instant, u64) {
        (self.at, self.number)
    }
}

impl PartialEq for Queued {
    fn eq(&self, other: &Queued) -> bool {
        self.key() == other.key()
    }
}

impl Eq for Queued {}

impl PartialOrd for Queued {
    fn partial_cmp(&self, other: &Queued) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Queued {
    fn cmp(&self, other: &Queued) -> std::cmp::Ordering {
        self.key().cmp(&other.key())
    }
}

impl Deadline {
    /// A handle on this thread's clock, made (with its driver task) on first use; must be
    /// called inside a [`tokio::task::LocalSet`] on a runtime with I/O enabled.
    pub fn new() -> io::Result<Deadline> {
        let existing = THREAD_CLOCK.with(|clock| clock.borrow().upgrade());
        let clock = match existing {
            Some(clock) => clock,
            None => {
                let clock = Rc::new(ThreadClock::new()?);
                THREAD_CLOCK.with(|slot| *slot.borrow_mut() = Rc::downgrade(&clock));
                tokio::task::spawn_local(drive(Rc::downgrade(&clock)));
                clock
            }
        };
        Ok(Deadline {
            clock,
            slot: Slot::default(),
        })
    }

    /// Returns at `at` or after (by up to [`MIN_GAP`] plus the wake); at once if `at` has
    /// passed. Errs if the clock's timerfd failed.
    pub async fn wait_until(&mut self, at: Instant) -> io::Result<()> {
        if at <= Instant::now() {
            return Ok(());
        }
        Wait {
            clock: &self.clock,
            slot: &self.slot,
            at,
            queued: false,
        }
        .await
    }
}

/// One thread's timerfd and the waits on it.
struct ThreadClock {
    timer: AsyncFd<OwnedFd>,
    /// Pending waits, earliest first. A dropped wait empties its slot and leaves its
    /// entry, which at most wakes its handle's next wait once early (that wait then
    /// finds its deadline not passed and waits on).
    deadlines: RefCell<BinaryHeap<Reverse<Queued>>>,
    /// When the timerfd will fire; `None` while disarmed.
    armed: Cell<Option<Instant>>,
    /// The last expiry plus [`MIN_GAP`]: the timer is never armed sooner.
    next_allowed: Cell<Instant>,
    queued: Cell<u64>,
    failed: Cell<bool>,
}

impl ThreadClock {
    fn new() -> io::Result<ThreadClock> {
        let flags = TimerfdFlags::NONBLOCK | TimerfdFlags::CLOEXEC;
        let timer = timerfd_create(TimerfdClockId::Monotonic, flags)?;
        // SAFETY: the AsyncFd owns the OwnedFd, so the descriptor stays open and names this
        // timerfd until the AsyncFd is dropped; OwnedFd's as_raw_fd always returns it.
        let timer = unsafe { AsyncFd::register_with_interest(timer, Interest::READABLE) };
        Ok(ThreadClock {
            timer: timer.map_err(|e| e.into_parts().1)?,
            deadlines: RefCell::new(BinaryHeap::new()),
            armed: Cell::new(None),
            next_allowed: Cell::new(Instant::now()),
            queued: Cell::new(0),
            failed: Cell::new(false),
        })
    }

    /// Queues a wait until `at`, woken through `slot`.
    fn queue(&self, at: Instant, slot: Slot) -> io::Result<()> {
        let number = self.queued.replace(self.queued.get() + 1);
        self.deadlines
            .borrow_mut()
            .push(Reverse(Queued { at, number, slot }));
        self.arm_for(at)
    }

    /// Makes the timer fire by `at` (or [`MIN_GAP`] after the last expiry, if later).
    fn arm_for(&self, at: Instant) -> io::Result<()> {
        let fire_at = at.max(self.next_allowed.get());
        if self.armed.get().is_some_and(|armed| armed <= fire_at) {
            return Ok(());
        }
        let now = Instant::now();
        // The timerfd's clock is read after `now`, so the armed time is never early.
        let value = add(
            clock_gettime(ClockId::Monotonic),
            fire_at.saturating_duration_since(now),
        );
        let disarmed = Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        let spec = Itimerspec {
            it_interval: disarmed,
            it_value: value,
        };
        timerfd_settime(&self.timer, TimerfdTimerFlags::ABSTIME, &spec)?;
        self.armed.set(Some(fire_at));
        Ok(())
    }

    /// After an expiry: wakes every wait that is due, in deadline order, and re-arms.
    fn expired(&self) -> io::Result<()> {
        let now = Instant::now();
        self.armed.set(None);
        self.next_allowed.set(now + MIN_GAP);
        let mut deadlines = self.deadlines.borrow_mut();
        while deadlines.peek().is_some_and(|Reverse(queued)| queued.at <= now) {
            let Some(Reverse(due)) = deadlines.pop() else {
                break;
            };
            let waker = due.slot.borrow_mut().take();
            if let Some(waker) = waker {
                waker.wake();
            }
        }
        let next = deadlines.peek().map(|Reverse(queued)| queued.at);
        drop(deadlines);
        next.map_or(Ok(()), |at| self.arm_for(at))
    }

    /// Ends every wait with an error (the timerfd failed), and with it the driver.
    fn fail(&self) -> Poll<()> {
        self.failed.set(true);
        let deadlines = std::mem::take(&mut *self.deadlines.borrow_mut());
        for Reverse(queued) in deadlines {
            let waker = queued.slot.borrow_mut().take();
            if let Some(waker) = waker {
                waker.wake();
            }
        }
        Poll::Ready(())
    }
}

/// The driver task: reads each expiry and releases the due waits, until the clock is gone.
async fn drive(clock: Weak<ThreadClock>) {
    poll_fn(|cx| {
        loop {
            let Some(clock) = clock.upgrade() else {
                return Poll::Ready(());
            };
            let mut ready = match clock.timer.poll_read_ready(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Ok(ready)) => ready,
                Poll::Ready(Err(_)) => return clock.fail(),
            };
            let mut expirations = [0u8; 8];
            match ready.try_io(|timer| Ok(rustix::io::read(timer, &mut expirations)?)) {
                Err(_would_block) => continue,
                Ok(Err(_)) => return clock.fail(),
                Ok(Ok(_)) => {
                    // Unreadable until the next expiry: skip the read that would say so.
                    ready.clear_ready();
                    if clock.expired().is_err() {
                        return clock.fail();
                    }
                }
            }
        }
    })
    .await
}

/// A future waiting on the thread's clock until `at`.
struct Wait<'a> {
    clock: &'a ThreadClock,
    slot: &'a Slot,
    at: Instant,
    /// Whether it is on the clock (from its first pending poll).
    queued: bool,
}

impl Future for Wait<'_> {
    type Output = io::Result<()>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.clock.failed.get() {
            return Poll::Ready(Err(io::Error::other("the thread's timerfd failed")));
        }
        if self.at <= Instant::now() {
            return Poll::Ready(Ok(()));
        }
        {
            let mut slot = self.slot.borrow_mut();
            if !slot.as_ref().is_some_and(|waker| waker.will_wake(cx.waker())) {
                *slot = Some(cx.waker().clone());
            }
        }
        if !self.queued {
            self.queued = true;
            self.clock.queue(self.at, self.slot.clone())?;
        }
        Poll::Pending
    }
}

impl Drop for Wait<'_> {
    fn drop(&mut self) {
        self.slot.borrow_mut().take();
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
#[path = "timer_tests.rs"]
mod tests;

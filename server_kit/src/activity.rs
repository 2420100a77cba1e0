//! Connection timeouts, identical for every server that runs http_core's codec on an async
//! runtime (tokio_server's engines, tokio_uring_server, monoio_server, compio_server): a
//! connection that has sent part of a request and then nothing for the request timeout is
//! closed, and so is one idle for the idle timeout. A request must also arrive at its
//! pace ([`http_core::pace`]): within a grace from its first byte, then at a minimum byte
//! rate, so a client that trickles a byte every few seconds is closed too. The watchdog
//! sleeps on whichever runtime's timer it is given.
//!
//! Each connection records its last read, whether a request is partly received and that
//! request's clock; a watchdog future sleeps until the deadline that follows from them.
//! This costs one clock read per socket operation instead of a timer registration per
//! read.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_core::pace::{Pace, RequestClock};
use tokio::time::Instant;

/// Shared between a connection and its watchdog.
#[derive(Debug)]
pub struct Activity {
    start: Instant,
    state: Mutex<State>,
}

/// What the watchdog's deadline follows from; times are since [`Activity::start`].
#[derive(Debug, Default)]
struct State {
    /// The last progress on the connection.
    last: Duration,
    /// A request has started arriving and is not yet answered.
    partial: bool,
    /// The request in progress, timed from its first byte.
    clock: RequestClock,
}

/// The limits the watchdog enforces: the request and idle timeouts (silence), and a
/// request's pace.
#[derive(Debug, Clone, Copy)]
pub struct Deadlines {
    pub request_timeout: Duration,
    pub idle_timeout: Duration,
    pub pace: Pace,
}

impl Activity {
    pub fn new() -> Arc<Activity> {
        Arc::new(Activity {
            start: Instant::now(),
            state: Mutex::default(),
        })
    }

    fn update(&self, change: impl FnOnce(&mut State, Duration)) {
        let now = self.start.elapsed();
        let mut state = self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        state.last = now;
        change(&mut state, now);
    }

    /// `bytes` of a request arrived now: progress, and a request is partly received.
    pub fn read(&self, bytes: usize) {
        self.update(|state, now| {
            state.partial = true;
            state.clock.received(now, bytes);
        });
    }

    /// Records progress now, and whether a request is partly received afterwards: when
    /// none is, its clock stops; when one is and is not yet timed (the rest held after an
    /// answer), its clock starts now.
    pub fn touch(&self, partial: bool) {
        self.update(|state, now| {
            state.partial = partial;
            match partial {
                true if !state.clock.running() => state.clock.received(now, 0),
                true => {}
                false => state.clock.stop(),
            }
        });
    }

    /// Requests were answered now, and their answers are about to be written: the request
    /// clock stops (writing is not the request's arrival), and until the connection says
    /// otherwise ([`Activity::touch`]) the request timeout applies, as while one arrives.
    pub fn answered(&self) {
        self.update(|state, _| {
            state.partial = true;
            state.clock.stop();
        });
    }

    /// When the connection is due to be closed, since `start`.
    fn deadline(&self, limits: &Deadlines) -> Duration {
        let state = self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let silence = if state.partial {
            limits.request_timeout
        } else {
            limits.idle_timeout
        };
        let paced = state.clock.deadline(limits.pace).unwrap_or(Duration::MAX);
        (state.last + silence).min(paced)
    }

    /// Completes when the connection has been silent past its timeout, or its request
    /// has fallen behind its pace, sleeping with `sleep` (its runtime's timer) until each
    /// deadline. Progress only moves a deadline later, except the first byte of a request
    /// on an idle connection: the watchdog, asleep until the idle deadline, sees that
    /// request's deadlines when it wakes (so a request is closed by them at the latest
    /// one idle timeout after the connection went idle), with no timer per read.
    pub async fn expired<F: Future<Output = ()>>(&self, limits: Deadlines, sleep: impl Fn(Duration) -> F) {
        loop {
            let deadline = self.deadline(&limits);
            let now = self.start.elapsed();
            if now >= deadline {
                return;
            }
            sleep(deadline - now).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // On the real clock (tokio's paused clock would compile `test-util` into every server
    // built beside these tests): each lower bound is one the timeout logic sets, less the
    // millisecond rounding allowed, and no upper bound is tighter than the other timeout.
    const ROUNDING: Duration = Duration::from_millis(1);

    /// Silence timeouts `request` and `idle`, and a pace too loose to matter.
    fn silence(request: Duration, idle: Duration) -> Deadlines {
        let pace = Pace {
            grace: Duration::from_secs(3600),
            min_rate: 1,
        };
        Deadlines {
            request_timeout: request,
            idle_timeout: idle,
            pace,
        }
    }

    #[tokio::test]
    async fn partial_requests_use_the_short_timeout_and_idle_the_long_one() {
        let (short, long) = (Duration::from_millis(50), Duration::from_millis(1500));
        let activity = Activity::new();
        activity.touch(true);
        let begun = Instant::now();
        activity.expired(silence(short, long), tokio::time::sleep).await;
        let waited = begun.elapsed();
        assert!(
            waited >= short - ROUNDING && waited < long,
            "partial request waited {waited:?}"
        );

        activity.touch(false);
        let begun = Instant::now();
        activity.expired(silence(short, long), tokio::time::sleep).await;
        assert!(
            begun.elapsed() >= long - ROUNDING,
            "idle connection waited {:?}",
            begun.elapsed()
        );
    }

    #[tokio::test]
    async fn progress_pushes_the_deadline_back() {
        let (short, idle) = (Duration::from_millis(10), Duration::from_millis(400));
        let activity = Activity::new();
        let watchdog = activity.clone();
        let begun = Instant::now();
        let waiter =
            tokio::spawn(async move { watchdog.expired(silence(short, idle), tokio::time::sleep).await });
        tokio::time::sleep(Duration::from_millis(300)).await;
        let touched = begun.elapsed();
        activity.touch(false);
        waiter.await.unwrap();
        assert!(
            begun.elapsed() >= touched + idle - ROUNDING,
            "expired {:?} after the start",
            begun.elapsed()
        );
    }

    /// A request trickled a byte every 20 ms, never silent for the 1 s request timeout,
    /// under a 200 ms grace and a rate floor of 1,000 bytes/s.
    async fn trickle(activity: &Activity) -> Duration {
        let limits = Deadlines {
            pace: Pace {
                grace: Duration::from_millis(200),
                min_rate: 1000,
            },
            ..silence(Duration::from_secs(1), Duration::from_secs(5))
        };
        // The request begins before the watchdog first looks, as it does on a connection
        // whose client starts at once: a watchdog asleep until the idle deadline sees a
        // request's earlier deadline when it next wakes.
        activity.read(1);
        let begun = Instant::now();
        tokio::select! {
            _ = activity.expired(limits, tokio::time::sleep) => {}
            _ = async {
                for _ in 0..100 {
                    activity.read(1);
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            } => {}
        }
        begun.elapsed()
    }

    #[tokio::test]
    async fn a_trickled_request_is_closed_when_it_falls_behind_its_pace() {
        let waited = trickle(&Activity::new()).await;
        // 200 ms of grace and about 10 bytes at 1 ms each; the trickle itself lasts 2 s.
        assert!(
            waited >= Duration::from_millis(200) && waited < Duration::from_millis(1000),
            "a trickled request was kept {waited:?}"
        );
    }

    #[test]
    fn an_answer_restarts_the_clock_and_nothing_held_stops_it() {
        let limits = Deadlines {
            pace: Pace {
                grace: Duration::from_secs(60),
                min_rate: 500,
            },
            ..silence(Duration::from_secs(3600), Duration::from_secs(7200))
        };
        let activity = Activity::new();
        activity.read(10);
        let first = activity.deadline(&limits);
        assert!(first < Duration::from_secs(61), "{first:?}");
        activity.answered();
        assert!(
            activity.deadline(&limits) > first,
            "no pace while answers are written"
        );
        std::thread::sleep(Duration::from_millis(20));
        activity.touch(true);
        let next = activity.deadline(&limits);
        assert!(
            next > first,
            "the next request is timed from its answer: {next:?}"
        );
        activity.touch(false);
        assert!(
            activity.deadline(&limits) >= Duration::from_secs(7200),
            "idle: only the idle timeout"
        );
    }
}

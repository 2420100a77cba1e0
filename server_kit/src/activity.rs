//! Connection timeouts, identical for every server that runs http_core's codec on an async
//! runtime (tokio_server's engines, tokio_uring_server, monoio_server, compio_server): a
//! connection that has sent part of a request and then nothing for the request timeout is
//! closed, and so is one idle for the idle timeout. The watchdog sleeps on whichever
//! runtime's timer it is given.
//!
//! Each connection records its last read and whether a request is partly received; a
//! watchdog future sleeps until the deadline that follows from them. This costs one
//! clock read per socket operation instead of a timer registration per read.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use tokio::time::Instant;

/// Shared between a connection and its watchdog.
#[derive(Debug)]
pub struct Activity {
    start: Instant,
    /// Milliseconds from `start` to the last progress on the connection.
    last_ms: AtomicU64,
    /// A request has started arriving and is not yet answered.
    partial: AtomicBool,
}

impl Activity {
    pub fn new() -> Arc<Activity> {
        Arc::new(Activity {
            start: Instant::now(),
            last_ms: AtomicU64::new(0),
            partial: AtomicBool::new(false),
        })
    }

    /// Records progress now, and whether a request is partly received afterwards.
    pub fn touch(&self, partial: bool) {
        let ms = self.start.elapsed().as_millis() as u64;
        self.last_ms.store(ms, Ordering::Relaxed);
        self.partial.store(partial, Ordering::Relaxed);
    }

    /// Completes when the connection has been silent past its timeout, sleeping with
    /// `sleep` (its runtime's timer) until each deadline.
    pub async fn expired<F: Future<Output = ()>>(
        &self,
        (request_timeout, idle_timeout): (Duration, Duration),
        sleep: impl Fn(Duration) -> F,
    ) {
        loop {
            let last = self.start + Duration::from_millis(self.last_ms.load(Ordering::Relaxed));
            let limit = if self.partial.load(Ordering::Relaxed) {
                request_timeout
            } else {
                idle_timeout
            };
            let deadline = last + limit;
            let now = Instant::now();
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
    // millisecond `touch` may round off, and no upper bound is tighter than the other timeout.
    const ROUNDING: Duration = Duration::from_millis(1);

    #[tokio::test]
    async fn partial_requests_use_the_short_timeout_and_idle_the_long_one() {
        let (short, long) = (Duration::from_millis(50), Duration::from_millis(1500));
        let activity = Activity::new();
        activity.touch(true);
        let begun = Instant::now();
        activity.expired((short, long), tokio::time::sleep).await;
        let waited = begun.elapsed();
        assert!(
            waited >= short - ROUNDING && waited < long,
            "partial request waited {waited:?}"
        );

        activity.touch(false);
        let begun = Instant::now();
        activity.expired((short, long), tokio::time::sleep).await;
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
        let waiter = tokio::spawn(async move { watchdog.expired((short, idle), tokio::time::sleep).await });
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
}

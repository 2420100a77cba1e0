//! Batched waiting: when requests arrive fast enough, ask the kernel to wake us only once
//! several completions are ready (or `min_wait` has passed), so one `io_uring_enter` and
//! one wake-up serve a batch instead of a request.
//!
//! Uses `IORING_ENTER_EXT_ARG` with `min_wait_usec` (Linux 6.12, `IORING_FEAT_MIN_TIMEOUT`):
//! the kernel waits up to `min_wait` for `want` completions, then returns as soon as it
//! has at least one. It only engages above a measured arrival rate, because arming the
//! min-wait timer costs more than it saves when it mostly expires (on this VM a light load
//! paid about 2x CPU per request with it always on).
//!
//! The default wait, 100 µs, engages from about 30k requests/s per thread. At 256
//! connections and ~100k requests/s it gives ~0.08 syscalls per request (50 µs gave
//! 0.15-0.2); the price is up to 100 µs of added latency per request while engaged, which
//! is why `--batch-wait-us` exists and `0` turns it off.

use std::time::{Duration, Instant};

/// How often the arrival rate is re-estimated.
const WINDOW: Duration = Duration::from_millis(1);

/// Batching engages when at least this many requests are expected within `min_wait`.
const ENGAGE_AT: usize = 3;

/// The most new requests one wait asks for.
const MAX_BATCH: usize = 64;

#[derive(Debug)]
pub struct WaitBatcher {
    min_wait_us: u32,
    window_start: Instant,
    window_requests: usize,
    expected: usize,
    /// Sends submitted since the last wait; they go out with that wait's submission.
    sends: usize,
}

impl WaitBatcher {
    /// `min_wait_us == 0` switches batching off: every wait asks for one completion.
    pub fn new(min_wait_us: u32, now: Instant) -> WaitBatcher {
        WaitBatcher {
            min_wait_us,
            window_start: now,
            window_requests: 0,
            expected: 0,
            sends: 0,
        }
    }

    /// A receive with data arrived (about one per request).
    pub fn on_request(&mut self) {
        self.window_requests += 1;
    }

    /// A send was queued for the next submission.
    pub fn on_send(&mut self) {
        self.sends += 1;
    }

    /// What the next wait asks for: `(want, min_wait_us)`. The sends queued since the last
    /// wait are added to `want`: they usually complete at once and would otherwise satisfy
    /// it by themselves. `clock` is read only when batching is on.
    pub fn next_wait(&mut self, clock: impl FnOnce() -> Instant) -> (usize, u32) {
        let sends = std::mem::take(&mut self.sends);
        if self.min_wait_us == 0 {
            return (1, 0);
        }
        let now = clock();
        let elapsed = now.saturating_duration_since(self.window_start);
        if elapsed >= WINDOW {
            let per_wait = self.window_requests as u128 * u128::from(self.min_wait_us) / elapsed.as_micros();
            self.expected = per_wait.min(MAX_BATCH as u128) as usize;
            self.window_start = now;
            self.window_requests = 0;
        }
        match self.expected >= ENGAGE_AT {
            true => (sends + self.expected, self.min_wait_us),
            false => (1, 0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `per_ms` requests per millisecond for `ms` milliseconds; returns the last wait.
    fn after_load(batcher: &mut WaitBatcher, start: Instant, per_ms: usize, ms: u64) -> (usize, u32) {
        let mut wait = (0, 0);
        for step in 1..=ms {
            (0..per_ms).for_each(|_| batcher.on_request());
            (0..2).for_each(|_| batcher.on_send());
            wait = batcher.next_wait(|| start + Duration::from_millis(step));
        }
        wait
    }

    #[test]
    fn light_load_waits_for_one_completion() {
        let start = Instant::now();
        let mut batcher = WaitBatcher::new(50, start);
        assert_eq!(
            after_load(&mut batcher, start, 25, 5),
            (1, 0),
            "25k req/s: 1.25 per 50 us"
        );
    }

    #[test]
    fn heavy_load_waits_for_a_batch_beyond_its_own_sends() {
        let start = Instant::now();
        let mut batcher = WaitBatcher::new(50, start);
        assert_eq!(
            after_load(&mut batcher, start, 100, 5),
            (2 + 5, 50),
            "100k req/s: 5 per 50 us"
        );
    }

    #[test]
    fn batching_stops_when_the_load_drops() {
        let start = Instant::now();
        let mut batcher = WaitBatcher::new(50, start);
        after_load(&mut batcher, start, 200, 3);
        let later = start + Duration::from_millis(3);
        assert_eq!(after_load(&mut batcher, later, 10, 3), (1, 0));
    }

    #[test]
    fn batches_are_capped_and_zero_means_off() {
        let start = Instant::now();
        let mut batcher = WaitBatcher::new(1000, start);
        assert_eq!(after_load(&mut batcher, start, 1000, 2), (2 + MAX_BATCH, 1000));
        let mut off = WaitBatcher::new(0, start);
        assert_eq!(after_load(&mut off, start, 1000, 2), (1, 0));
    }
}

//! Batched waiting: when requests arrive fast enough, ask the kernel to wake us only once
//! several completions are ready (or `min_wait` has passed), so one `io_uring_enter` and
//! one wake-up serve a batch instead of a request.
//!
//! Uses `IORING_ENTER_EXT_ARG` with `min_wait_usec` (Linux 6.12, `IORING_FEAT_MIN_TIMEOUT`):
//! the kernel waits up to `min_wait` for `want` completions, then returns as soon as it
//! has at least one. It only engages above a measured arrival rate, because arming the
//! min-wait timer costs more than it saves when it mostly expires (measure it with
//! `--batch-wait-us` and the ablation).
//!
//! Below that rate, a turn whose sends all leave their connections simply waiting for the
//! next request (keep-alive, nothing more to send) asks for those sends' completions plus
//! one more, so one `io_uring_enter` both submits a response and waits for the next
//! request: one syscall per request at one connection instead of two. A send whose
//! completion leads somewhere (a close, more output) keeps the wait at one completion, so
//! nothing the peer waits for is held back; a quiet send's completion can wait, and the
//! min-wait bounds even that.
//!
//! The rate counts answered requests, not receive completions (a large body arrives in
//! many), and the expected batch is capped by the connections that sent data in the
//! window: one client doing round trips can never fill a batch, so it never waits. It
//! engages once a window's answered requests and active connections both reach the least
//! batch worth waiting for (the constants below). The price is up to the wait of added
//! latency per request while engaged, which is why `--batch-wait-us` exists and `0` turns
//! it off.

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
    /// Numbers the windows, so a connection is counted once per window.
    window: u64,
    /// Distinct connections that sent data in this window.
    window_conns: usize,
    /// The window each connection slot last sent data in.
    seen: Vec<u64>,
    expected: usize,
    /// Sends submitted since the last wait; they go out with that wait's submission.
    sends: usize,
    /// One of those sends leads to more work when it completes (see [`WaitBatcher::on_send`]).
    eventful_send: bool,
}

impl WaitBatcher {
    /// `min_wait_us == 0` switches batching off: every wait asks for one completion.
    pub fn new(min_wait_us: u32, now: Instant) -> WaitBatcher {
        WaitBatcher {
            min_wait_us,
            window_start: now,
            window_requests: 0,
            window: 1,
            window_conns: 0,
            seen: Vec::new(),
            expected: 0,
            sends: 0,
            eventful_send: false,
        }
    }

    /// Connection `slot` sent data, which was answered with `answered` responses.
    pub fn on_data(&mut self, slot: u32, answered: usize) {
        self.on_answered(answered);
        if self.min_wait_us == 0 {
            return;
        }
        let slot = slot as usize;
        if slot >= self.seen.len() {
            self.seen.resize(slot + 1, 0);
        }
        if self.seen[slot] != self.window {
            self.seen[slot] = self.window;
            self.window_conns += 1;
        }
    }

    /// Responses rendered other than on new data (requests held back while output was
    /// backed up).
    pub fn on_answered(&mut self, answered: usize) {
        self.window_requests += answered;
    }

    /// A send was queued for the next submission. `quiet`: once it completes in full, its
    /// connection only waits for the next request (so its completion may wait a little).
    pub fn on_send(&mut self, quiet: bool) {
        self.sends += 1;
        self.eventful_send |= !quiet;
    }

    /// What the next wait asks for: `(want, min_wait_us)`. The sends queued since the last
    /// wait are added to `want`: they usually complete at once and would otherwise satisfy
    /// it by themselves. `clock` is read only when batching is on.
    pub fn next_wait(&mut self, clock: impl FnOnce() -> Instant) -> (usize, u32) {
        let sends = std::mem::take(&mut self.sends);
        let eventful_send = std::mem::take(&mut self.eventful_send);
        if self.min_wait_us == 0 {
            return (1, 0);
        }
        let now = clock();
        let elapsed = now.saturating_duration_since(self.window_start);
        if elapsed >= WINDOW {
            let per_wait = self.window_requests as u128 * u128::from(self.min_wait_us) / elapsed.as_micros();
            self.expected = per_wait.min(MAX_BATCH as u128).min(self.window_conns as u128) as usize;
            self.window_start = now;
            self.window_requests = 0;
            self.window += 1;
            self.window_conns = 0;
        }
        if self.expected >= ENGAGE_AT {
            (sends + self.expected, self.min_wait_us)
        } else if sends > 0 && !eventful_send {
            (sends + 1, self.min_wait_us)
        } else {
            (1, 0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `per_ms` requests per millisecond, each from its own connection, for `ms`
    /// milliseconds; returns the last wait.
    fn after_load(batcher: &mut WaitBatcher, start: Instant, per_ms: usize, ms: u64) -> (usize, u32) {
        let mut wait = (0, 0);
        for step in 1..=ms {
            (0..per_ms).for_each(|slot| batcher.on_data(slot as u32, 1));
            (0..2).for_each(|_| batcher.on_send(false));
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

    /// One client doing 64 KiB POSTs back to back, ten a millisecond: each arrives in a
    /// dozen receives, so data completions alone would look like 120k requests/s. It is
    /// ten requests from one connection, so no batch is ever expected: each turn waits for
    /// its send and its next request only.
    #[test]
    fn one_client_with_large_bodies_never_engages_batching() {
        let start = Instant::now();
        let mut batcher = WaitBatcher::new(100, start);
        for step in 1..=5 {
            for _ in 0..10 {
                (0..11).for_each(|_| batcher.on_data(0, 0));
                batcher.on_data(0, 1);
            }
            batcher.on_send(true);
            assert_eq!(
                batcher.next_wait(|| start + Duration::from_millis(step)),
                (2, 100)
            );
        }
    }

    /// One connection pipelining hundreds of requests per millisecond is still one
    /// connection: a wait for more completions than it can produce would only add latency.
    #[test]
    fn the_batch_is_capped_by_the_connections_that_sent_data() {
        let start = Instant::now();
        let mut batcher = WaitBatcher::new(100, start);
        for step in 1..=3 {
            batcher.on_data(0, 500);
            assert_eq!(batcher.next_wait(|| start + Duration::from_millis(step)), (1, 0));
        }
        for step in 4..=6 {
            (0..4).for_each(|slot| batcher.on_data(slot, 100));
            batcher.next_wait(|| start + Duration::from_millis(step));
        }
        assert_eq!(batcher.next_wait(|| start + Duration::from_millis(6)), (4, 100));
    }

    /// One keep-alive client: each turn submits its response and waits for that send's
    /// completion plus the next request, in one io_uring_enter.
    #[test]
    fn a_quiet_send_waits_for_the_next_request_in_the_same_enter() {
        let start = Instant::now();
        let mut batcher = WaitBatcher::new(100, start);
        batcher.on_data(0, 1);
        batcher.on_send(true);
        assert_eq!(batcher.next_wait(|| start), (2, 100));
        assert_eq!(batcher.next_wait(|| start), (1, 0), "no send, nothing to add");
        batcher.on_send(true);
        batcher.on_send(false);
        assert_eq!(
            batcher.next_wait(|| start),
            (1, 0),
            "a send that leads to a close is not held"
        );
        let mut off = WaitBatcher::new(0, start);
        off.on_send(true);
        assert_eq!(off.next_wait(|| start), (1, 0), "0 switches it off");
    }
}

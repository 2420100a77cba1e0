//! Batched waiting: when requests arrive on their own fast enough, ask the kernel to wake
//! us only once several completions are ready (or `min_wait` has passed), so one
//! `io_uring_enter` and one wake-up serve a batch instead of a request.
//!
//! Uses `IORING_ENTER_EXT_ARG` with `min_wait_usec` (Linux 6.12, `IORING_FEAT_MIN_TIMEOUT`):
//! the kernel waits up to `min_wait` for `want` completions, then returns with what it
//! has (`ETIME` when that is none, and the loop enters again).
//!
//! A wait only counts on requests that would arrive whether or not we answered anything:
//! a request delivered by a wait that began within `min_wait` of the answer to its
//! connection's previous request is a *round trip* (the client waited for us; data that
//! comes back in the very `io_uring_enter` that carried the answer always is), and a
//! batch that waits for round
//! trips holds the very answers the clients are waiting on. At a few keep-alive
//! connections every request is a round trip, so the server and its clients would take
//! turns instead of working at once (that halved requests/s at 4 to 16 connections).
//! Requests that come long after their answer (an open loop, many clients with think
//! time) or without one (pipelining, held-back requests) are *independent*: one wait asks
//! for half of what arrives of them in `min_wait` at the window's rate (so it usually
//! fills before the timer fires), capped by the connections that sent them, and it
//! engages at [`ENGAGE_AT`].
//!
//! The wait's outcome is checked too, by its length: a batched wait that lasted its whole
//! `min_wait` expired (the timer, not the batch, ended it), and a window in which more
//! batched waits expired than filled backs off for 1, 2, 4 ... up to 64 windows, so a rate estimate that does not
//! hold (bursts, a client that slowed down) costs a few expired timers, not a stall.
//! `--batch-wait-us 0` turns batching off.

use std::time::{Duration, Instant};

/// How often the arrival rate is re-estimated.
const WINDOW: Duration = Duration::from_millis(1);

/// Batching engages when at least this many independent requests are expected within
/// `min_wait`.
const ENGAGE_AT: usize = 3;

/// The most new requests one wait asks for.
const MAX_BATCH: usize = 64;

/// The longest back-off, in windows, after batched waits that expired short.
const MAX_BACKOFF: u32 = 64;

/// What the batcher knows of one connection slot.
#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    /// When we last answered it and left it waiting for its next request; `None` once
    /// data has arrived since.
    answered_at: Option<Instant>,
    /// The data that arrived since that answer came within `min_wait` of it.
    round_trip: bool,
    /// The window it was last counted in as a connection with independent requests.
    counted_in: u64,
}

#[derive(Debug)]
pub struct WaitBatcher {
    min_wait: Duration,
    window_start: Instant,
    /// Numbers the windows, so a connection is counted once per window.
    window: u64,
    /// Independent requests answered in this window.
    window_requests: usize,
    /// Distinct connections that sent them.
    window_conns: usize,
    slots: Vec<Slot>,
    expected: usize,
    /// This turn's data: `(slot, requests answered)`, classified at the next wait.
    arrived: Vec<(u32, usize)>,
    /// Slots answered this turn and left waiting for their next request.
    answered: Vec<u32>,
    /// Sends submitted since the last wait; they go out with that wait's submission.
    sends: usize,
    /// Batched waits of this window that got their batch, and that expired short.
    filled: usize,
    expired: usize,
    /// When the wait in progress began (the last [`WaitBatcher::next_wait`]).
    wait_started: Option<Instant>,
    /// The wait in progress is a batched one.
    batching: bool,
    /// Windows left to sit out, and the length of the next back-off.
    backoff: u32,
    next_backoff: u32,
}

impl WaitBatcher {
    /// `min_wait_us == 0` switches batching off: every wait asks for one completion.
    pub fn new(min_wait_us: u32, now: Instant) -> WaitBatcher {
        WaitBatcher {
            min_wait: Duration::from_micros(min_wait_us.into()),
            window_start: now,
            window: 1,
            window_requests: 0,
            window_conns: 0,
            slots: Vec::new(),
            expected: 0,
            arrived: Vec::new(),
            answered: Vec::new(),
            sends: 0,
            filled: 0,
            expired: 0,
            wait_started: None,
            batching: false,
            backoff: 0,
            next_backoff: 1,
        }
    }

    fn on(&self) -> bool {
        !self.min_wait.is_zero()
    }

    /// Connection `slot` was closed: a new connection there starts afresh.
    pub fn on_close(&mut self, slot: u32) {
        if let Some(state) = self.slots.get_mut(slot as usize) {
            *state = Slot::default();
        }
    }

    /// Connection `slot` sent data, which was answered with `answered` responses.
    pub fn on_data(&mut self, slot: u32, answered: usize) {
        if self.on() {
            self.arrived.push((slot, answered));
        }
    }

    /// Responses rendered other than on new data (requests held back while output was
    /// backed up): they waited for no round trip.
    pub fn on_answered(&mut self, answered: usize) {
        self.window_requests += answered;
    }

    /// A send to `slot` was queued for the next submission. `quiet`: once it completes
    /// in full, its connection only waits for the next request.
    pub fn on_send(&mut self, slot: u32, quiet: bool) {
        self.sends += 1;
        if quiet && self.on() {
            self.answered.push(slot);
        }
    }

    /// What the next wait asks for: `(want, min_wait_us)`. A batched wait adds the sends
    /// queued since the last wait to `want`: they usually complete at once and would
    /// otherwise satisfy it by themselves. `clock` is read only when batching is on.
    pub fn next_wait(&mut self, clock: impl FnOnce() -> Instant) -> (usize, u32) {
        let sends = std::mem::take(&mut self.sends);
        if !self.on() {
            return (1, 0);
        }
        let now = clock();
        self.settle_turn(now);
        self.roll_window(now);
        self.wait_started = Some(now);
        self.batching = self.expected >= ENGAGE_AT && self.backoff == 0;
        if self.batching {
            (sends + self.expected, self.min_wait.as_micros() as u32)
        } else {
            (1, 0)
        }
    }

    /// The wait returned; `clock` is read only after a batched wait, to tell whether its
    /// timer ended it.
    pub fn on_woken(&mut self, clock: impl FnOnce() -> Instant) {
        if !std::mem::take(&mut self.batching) {
            return;
        }
        let lasted = self.wait_started.map_or(Duration::ZERO, |started| {
            clock().saturating_duration_since(started)
        });
        if lasted >= self.min_wait {
            self.expired += 1;
        } else {
            self.filled += 1;
        }
    }

    /// Classifies this turn's data against each connection's last answer (the data came
    /// in the wait that began at `wait_started`), then stamps this turn's answers with
    /// `now`, the moment they are submitted.
    fn settle_turn(&mut self, now: Instant) {
        let delivered_by = self.wait_started.unwrap_or(now);
        for (slot, answered) in std::mem::take(&mut self.arrived) {
            let state = slot_mut(&mut self.slots, slot);
            if let Some(at) = state.answered_at.take() {
                state.round_trip = delivered_by.saturating_duration_since(at) < self.min_wait;
            }
            if answered > 0 && !state.round_trip {
                self.window_requests += answered;
                if state.counted_in != self.window {
                    state.counted_in = self.window;
                    self.window_conns += 1;
                }
            }
        }
        for slot in std::mem::take(&mut self.answered) {
            slot_mut(&mut self.slots, slot).answered_at = Some(now);
        }
    }

    /// At the end of a window: the next expected batch, and the back-off.
    fn roll_window(&mut self, now: Instant) {
        let elapsed = now.saturating_duration_since(self.window_start);
        if elapsed < WINDOW {
            return;
        }
        // Half of what arrives in `min_wait` on average, so a wait usually fills before
        // its timer fires (asking for the mean would expire about every other time).
        let per_wait = self.window_requests as u128 * self.min_wait.as_micros() / (2 * elapsed.as_micros());
        self.expected = per_wait.min(MAX_BATCH as u128).min(self.window_conns as u128) as usize;
        if self.backoff > 0 {
            self.backoff -= 1;
        } else if self.expired > self.filled {
            self.backoff = self.next_backoff;
            self.next_backoff = (self.next_backoff * 2).min(MAX_BACKOFF);
        } else if self.filled > 0 {
            self.next_backoff = 1;
        }
        self.window_start = now;
        self.window += 1;
        self.window_requests = 0;
        self.window_conns = 0;
        self.filled = 0;
        self.expired = 0;
    }
}

fn slot_mut(slots: &mut Vec<Slot>, slot: u32) -> &mut Slot {
    let slot = slot as usize;
    if slot >= slots.len() {
        slots.resize(slot + 1, Slot::default());
    }
    &mut slots[slot]
}

#[cfg(test)]
#[path = "batch_tests.rs"]
mod tests;

//! What one load thread measured, shared by its clients ([`Tally`]): answers before the
//! warm-up's end only counted, the rest in histograms (corrected latency, and in the open
//! loop uncorrected latency and send lateness) and, with `--hdr-log`, per second; and
//! failures by kind. The threads' tallies add up to the run's [`Summary`].

use std::net::IpAddr;
use std::sync::atomic::Ordering;
use std::time::{Duration, SystemTime};

use hdrhistogram::Histogram;
use tokio::time::Instant;

use crate::config::Config;
use crate::errors::{ErrorsByKind, Failure};
use crate::hdr_log::IntervalLog;
use crate::pace::{Limits, Sending};
use crate::summary::{Percentiles, Summary, new_histogram, new_ns_histogram};
use crate::tls::{Negotiated, TlsCounts, TlsSummary};

/// When the measured window starts, in both clocks, and when its schedule ends.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Window {
    pub starts: Instant,
    pub starts_wall: SystemTime,
    pub ends: Instant,
}

impl Window {
    /// The window of `duration` after `warmup` from now.
    pub fn after(warmup: Duration, duration: Duration) -> Window {
        let starts = Instant::now() + warmup;
        Window {
            starts,
            starts_wall: SystemTime::now() + warmup,
            ends: starts + duration,
        }
    }
}

/// What one thread's clients measured.
pub(crate) struct Tally {
    window: Window,
    open: bool,
    corrected: Histogram<u64>,
    /// `corrected` in nanoseconds, for a median finer than a microsecond.
    corrected_ns: Histogram<u64>,
    uncorrected: Histogram<u64>,
    lateness: Histogram<u64>,
    log: Option<IntervalLog>,
    requests: u64,
    /// Of `requests`, those answered before the window's end.
    answered_in_window: u64,
    warmup_requests: u64,
    errors: ErrorsByKind,
    first_error: Option<String>,
    /// Handshakes made, over TLS.
    tls: TlsCounts,
}

impl Tally {
    pub fn new(config: &Config, window: Window) -> Tally {
        Tally {
            window,
            open: config.rate.is_some(),
            corrected: new_histogram(),
            corrected_ns: new_ns_histogram(),
            uncorrected: new_histogram(),
            lateness: new_histogram(),
            log: config.hdr_log.as_ref().map(|_| IntervalLog::default()),
            requests: 0,
            answered_in_window: 0,
            warmup_requests: 0,
            errors: ErrorsByKind::default(),
            first_error: None,
            tls: TlsCounts::default(),
        }
    }

    /// The answer to `sending`, which has just arrived.
    pub fn record(&mut self, sending: Sending, limits: &Limits) {
        self.record_at(sending, Instant::now(), limits);
    }

    /// The answer to `sending`, which had arrived by `now`.
    pub fn record_at(&mut self, sending: Sending, now: Instant, limits: &Limits) {
        limits.answered.fetch_add(1, Ordering::Relaxed);
        if sending.intended < self.window.starts {
            self.warmup_requests += 1;
            return;
        }
        self.requests += 1;
        if now <= self.window.ends {
            self.answered_in_window += 1;
        }
        let corrected = micros(now - sending.intended).max(1);
        self.corrected.saturating_record(corrected);
        let nanos = (now - sending.intended).as_nanos() as u64;
        self.corrected_ns.saturating_record(nanos.max(1));
        let uncorrected = self.open.then(|| micros(now - sending.sent).max(1));
        if let Some(uncorrected) = uncorrected {
            self.uncorrected.saturating_record(uncorrected);
            self.lateness
                .saturating_record(micros(sending.sent - sending.intended));
        }
        if let Some(log) = &mut self.log {
            let second = (now - self.window.starts).as_secs() as usize;
            log.record(second, corrected, uncorrected);
        }
    }

    /// A TLS handshake (warm-up or not) negotiated this.
    pub fn handshook(&mut self, negotiated: Negotiated) {
        self.tls.count(negotiated);
    }

    pub fn fail(&mut self, failure: Failure) {
        self.errors.count(failure.kind);
        self.first_error.get_or_insert(failure.message);
    }

    pub fn add(&mut self, other: Tally) -> Result<(), String> {
        let sum =
            |into: &mut Histogram<u64>, from: &Histogram<u64>| into.add(from).map_err(|e| e.to_string());
        sum(&mut self.corrected, &other.corrected)?;
        sum(&mut self.corrected_ns, &other.corrected_ns)?;
        sum(&mut self.uncorrected, &other.uncorrected)?;
        sum(&mut self.lateness, &other.lateness)?;
        if let (Some(log), Some(other)) = (&mut self.log, &other.log) {
            log.add(other)?;
        }
        self.requests += other.requests;
        self.answered_in_window += other.answered_in_window;
        self.warmup_requests += other.warmup_requests;
        self.errors.add(&other.errors);
        self.first_error = self.first_error.take().or(other.first_error);
        self.tls.add(other.tls);
        Ok(())
    }

    /// The summary of a run of `config` that these tallies add up to, ending now; writes
    /// the interval log if `config` asks for one.
    pub fn summary(self, config: &Config, source_addrs: Vec<IpAddr>) -> Result<Summary, String> {
        let window = Instant::now().saturating_duration_since(self.window.starts);
        if let (Some(log), Some(path)) = (&self.log, &config.hdr_log) {
            log.write(path, self.window.starts_wall, window)?;
        }
        let elapsed_s = window.as_secs_f64();
        let open = |h: &Histogram<u64>| self.open.then(|| Percentiles::of(h));
        Ok(Summary {
            mode: if self.open { "open" } else { "closed" },
            churn: config.churn,
            requests_per_connection: config.requests_per_connection,
            source_addrs,
            connections: config.connections,
            depth: config.depth,
            rate: config.rate,
            warmup_s: config.warmup.as_secs_f64(),
            warmup_requests: self.warmup_requests,
            requests: self.requests,
            answered_in_window: self.answered_in_window,
            errors: self.errors.total(),
            errors_by_kind: self.errors,
            first_error: self.first_error,
            elapsed_s,
            requests_per_sec: self.requests as f64 / elapsed_s.max(1e-9),
            latency_us: Percentiles::of(&self.corrected),
            median_us: (!self.corrected_ns.is_empty())
                .then(|| self.corrected_ns.value_at_quantile(0.5) as f64 / 1000.0),
            uncorrected_latency_us: open(&self.uncorrected),
            send_lateness_us: open(&self.lateness),
            tls: config.tls.as_ref().map(|tls| TlsSummary {
                handshakes: tls.handshakes,
                made: self.tls,
            }),
        })
    }
}

fn micros(duration: Duration) -> u64 {
    duration.as_micros() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A window that began `began` ago and ended `ended` ago (or ends in the future).
    fn window(began: Duration, ends_in: i64) -> Window {
        let now = Instant::now();
        let starts = now - began;
        Window {
            starts,
            starts_wall: SystemTime::now() - began,
            ends: if ends_in >= 0 {
                now + Duration::from_secs(ends_in as u64)
            } else {
                now - Duration::from_millis(1)
            },
        }
    }

    #[test]
    fn an_answer_after_the_window_counts_but_not_as_answered_in_it() {
        let config = Config::new("127.0.0.1:1".parse().unwrap(), Vec::new());
        let limits = Limits::new(Instant::now(), Instant::now(), None);
        let sent = Instant::now() - Duration::from_millis(500);
        let sending = || Sending { intended: sent, sent };
        let mut late = Tally::new(&config, window(Duration::from_secs(1), -1));
        late.record(sending(), &limits);
        let mut on_time = Tally::new(&config, window(Duration::from_secs(1), 10));
        on_time.record(sending(), &limits);
        late.add(on_time).unwrap();
        let summary = late.summary(&config, Vec::new()).unwrap();
        assert_eq!((summary.requests, summary.answered_in_window), (2, 1));
    }

    #[test]
    fn the_median_round_trip_keeps_what_whole_microseconds_drop() {
        let config = Config::new("127.0.0.1:1".parse().unwrap(), Vec::new());
        let limits = Limits::new(Instant::now(), Instant::now(), None);
        let mut tally = Tally::new(&config, window(Duration::from_secs(1), 10));
        let sent = Instant::now() - Duration::from_micros(1500);
        tally.record(Sending { intended: sent, sent }, &limits);
        let summary = tally.summary(&config, Vec::new()).unwrap();
        let median = summary.median_us.unwrap();
        // Recorded just after 1.5 ms: whole microseconds keep 1500, nanoseconds the rest.
        assert!(
            median > summary.latency_us.p50 as f64 && median < 1600.0,
            "{median}"
        );
    }
}

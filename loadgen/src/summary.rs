//! What a run measured: each client's [`Tally`], and the [`Summary`] they add up to (the
//! JSON loadgen prints).

use std::net::IpAddr;
use std::sync::atomic::Ordering;

use hdrhistogram::Histogram;
use serde::Serialize;
use tokio::time::Instant;

use crate::churn::Churn;
use crate::errors::{ErrorsByKind, Failure};
use crate::pace::Limits;
use crate::run::Config;

/// What a run measured. With `churn`, each request is one connection: `requests` counts
/// connections completed, `requests_per_sec` is connections per second, and the latency
/// runs from the connect to the answer's last byte.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub mode: &'static str,
    pub churn: Option<Churn>,
    /// The source addresses connections were bound to, in turn; empty: the kernel's
    /// choice.
    pub source_addrs: Vec<IpAddr>,
    pub connections: usize,
    pub depth: usize,
    pub rate: Option<f64>,
    pub requests: u64,
    /// Failed connections; any fails the run.
    pub errors: u64,
    pub errors_by_kind: ErrorsByKind,
    pub first_error: Option<String>,
    pub elapsed_s: f64,
    pub requests_per_sec: f64,
    pub latency_us: Percentiles,
}

#[derive(Debug, Clone, Serialize)]
pub struct Percentiles {
    pub mean: f64,
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub p999: u64,
    pub max: u64,
}

/// What one client measured.
pub(crate) struct Tally {
    histogram: Histogram<u64>,
    requests: u64,
    errors: ErrorsByKind,
    first_error: Option<String>,
}

impl Tally {
    pub fn new() -> Tally {
        Tally {
            histogram: new_histogram(),
            requests: 0,
            errors: ErrorsByKind::default(),
            first_error: None,
        }
    }

    /// One answer, sent at `sent`.
    pub fn record(&mut self, sent: Instant, limits: &Limits) {
        let micros = sent.elapsed().as_micros().max(1) as u64;
        self.histogram.saturating_record(micros);
        self.requests += 1;
        limits.answered.fetch_add(1, Ordering::Relaxed);
    }

    pub fn fail(&mut self, failure: Failure) {
        self.errors.count(failure.kind);
        self.first_error.get_or_insert(failure.message);
    }

    pub fn add(&mut self, other: Tally) -> Result<(), String> {
        self.histogram.add(&other.histogram).map_err(|e| e.to_string())?;
        self.requests += other.requests;
        self.errors.add(&other.errors);
        self.first_error = self.first_error.take().or(other.first_error);
        Ok(())
    }

    /// The summary of a run of `config` that these tallies add up to, over `elapsed_s`.
    pub fn summary(self, config: &Config, source_addrs: Vec<IpAddr>, elapsed_s: f64) -> Summary {
        let h = &self.histogram;
        Summary {
            mode: if config.rate.is_some() { "open" } else { "closed" },
            churn: config.churn,
            source_addrs,
            connections: config.connections,
            depth: config.depth,
            rate: config.rate,
            requests: self.requests,
            errors: self.errors.total(),
            errors_by_kind: self.errors,
            first_error: self.first_error,
            elapsed_s,
            requests_per_sec: self.requests as f64 / elapsed_s,
            latency_us: Percentiles {
                mean: h.mean(),
                p50: h.value_at_quantile(0.5),
                p90: h.value_at_quantile(0.9),
                p99: h.value_at_quantile(0.99),
                p999: h.value_at_quantile(0.999),
                max: h.max(),
            },
        }
    }
}

fn new_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 60_000_000, 3).expect("valid histogram bounds")
}

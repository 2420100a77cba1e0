//! What a run measured, as the JSON loadgen prints: the [`Summary`], and the
//! [`Percentiles`] of each of its histograms.

use std::net::IpAddr;

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use crate::churn::Churn;
use crate::errors::ErrorsByKind;
use crate::tls::TlsSummary;

/// What a run measured. With `churn`, each connection carries `requests_per_connection`
/// requests (one: `requests` counts connections completed, `requests_per_sec` is
/// connections per second), and a connection's first latency runs from the connect to
/// the answer's last byte.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub mode: &'static str,
    pub churn: Option<Churn>,
    pub requests_per_connection: usize,
    /// The source addresses connections were bound to, in turn; empty: the kernel's
    /// choice.
    pub source_addrs: Vec<IpAddr>,
    pub connections: usize,
    pub depth: usize,
    pub rate: Option<f64>,
    /// The warm-up before the measured window, in seconds.
    pub warmup_s: f64,
    /// Answers to requests meant to leave during the warm-up: not in any histogram.
    pub warmup_requests: u64,
    /// Answers measured (after the warm-up).
    pub requests: u64,
    /// Of `requests`, those answered before the measured window ended: an open loop that
    /// kept up answers all but the last round trip's, one that fell behind answers what
    /// the server managed in time, however late the rest were sent (loadgen sends every
    /// request scheduled in the window, and waits for its answer).
    pub answered_in_window: u64,
    /// Failed connections; any fails the run.
    pub errors: u64,
    pub errors_by_kind: ErrorsByKind,
    pub first_error: Option<String>,
    /// The measured window, in seconds: from the warm-up's end until the run ended (the
    /// last answer, then closing the connections).
    pub elapsed_s: f64,
    /// `requests` over the measured window.
    pub requests_per_sec: f64,
    /// Open loop: from each request's intended send time to its answer (corrected for
    /// coordinated omission); closed loop: from its send.
    pub latency_us: Percentiles,
    /// The median of `latency_us` from a histogram kept in nanoseconds, in µs: finer
    /// than its whole microseconds, for a round trip of a few µs to compare by.
    pub median_us: Option<f64>,
    /// Open loop only: from each request's actual send to its answer, what a tool
    /// without the correction would report.
    pub uncorrected_latency_us: Option<Percentiles>,
    /// Open loop only: how late each request left against its intended time (the
    /// client's own lag, plus waits for the previous answer on its connection).
    pub send_lateness_us: Option<Percentiles>,
    /// Over TLS: the handshakes asked for, and those made by kind (warm-up included) with
    /// what they negotiated.
    pub tls: Option<TlsSummary>,
}

impl Summary {
    /// Every answered request, warm-up included: the divisor for CPU measured over the
    /// whole run.
    pub fn requests_including_warmup(&self) -> u64 {
        self.requests + self.warmup_requests
    }
}

/// The quantiles of [`Percentiles::spectrum`]: the minimum, the "nines" a percentile
/// spectrum plots, and the maximum.
pub const SPECTRUM_QUANTILES: [f64; 8] = [0.0, 0.5, 0.75, 0.9, 0.99, 0.999, 0.9999, 1.0];

/// A histogram's summary, in µs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Percentiles {
    pub mean: f64,
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub p999: u64,
    pub max: u64,
    /// `(quantile, value)` at each of [`SPECTRUM_QUANTILES`]; empty in results written
    /// before it existed.
    #[serde(default)]
    pub spectrum: Vec<(f64, u64)>,
}

impl Percentiles {
    pub fn of(h: &Histogram<u64>) -> Percentiles {
        Percentiles {
            mean: h.mean(),
            p50: h.value_at_quantile(0.5),
            p90: h.value_at_quantile(0.9),
            p99: h.value_at_quantile(0.99),
            p999: h.value_at_quantile(0.999),
            max: h.max(),
            spectrum: SPECTRUM_QUANTILES
                .iter()
                .map(|&q| (q, h.value_at_quantile(q)))
                .collect(),
        }
    }

    /// The spectrum, or for results without one the points the named fields give.
    pub fn spectrum_or_named(&self) -> Vec<(f64, u64)> {
        if !self.spectrum.is_empty() {
            return self.spectrum.clone();
        }
        vec![
            (0.5, self.p50),
            (0.9, self.p90),
            (0.99, self.p99),
            (0.999, self.p999),
            (1.0, self.max),
        ]
    }
}

/// An empty histogram of µs, from 1 µs to 60 s at 3 significant digits.
pub(crate) fn new_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 60_000_000, 3).expect("valid histogram bounds")
}

/// An empty histogram of ns, from 1 ns to 60 s at 3 significant digits.
pub(crate) fn new_ns_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 60_000_000_000, 3).expect("valid histogram bounds")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spectrum_runs_from_the_minimum_to_the_maximum() {
        let mut h = new_histogram();
        for value in 1..=10_000 {
            h.record(value).unwrap();
        }
        let p = Percentiles::of(&h);
        let at = |q: f64| p.spectrum.iter().find(|(quantile, _)| *quantile == q).unwrap().1;
        assert_eq!(p.spectrum.len(), SPECTRUM_QUANTILES.len());
        assert_eq!((at(0.0), at(1.0)), (1, p.max));
        assert!(at(0.75).abs_diff(7_500) <= 8, "{p:?}");
        assert!(at(0.9999).abs_diff(9_999) <= 10, "{p:?}");
        assert_eq!(at(0.99), p.p99);
    }

    #[test]
    fn results_without_a_spectrum_read_as_their_named_percentiles() {
        let old = r#"{"mean": 5.0, "p50": 4, "p90": 9, "p99": 20, "p999": 30, "max": 40}"#;
        let p: Percentiles = serde_json::from_str(old).unwrap();
        assert_eq!(p.spectrum_or_named()[2], (0.99, 20));
    }
}

//! The client measured as the servers are: its CPU per request at a row's fixed rate
//! (its busy share of one CPU ÷ the requests/s served), beside io_uring_server's server
//! CPU per request in the same row. The client is the instrument: wherever it costs more
//! than the server, it is what saturates first when the machine slows down, so the rates
//! table shows this for every fixed-rate row and contender.

use super::SUBJECT;
use super::offered::VERDICT_PERCENT;
use super::samples::{Sample, WorkloadsReport};
use super::{Shape, catalogue};
use crate::rounds::median;

/// The client's CPU µs per request in one sample: its busy share ÷ the requests/s served.
pub fn client_us(sample: &Sample) -> Option<f64> {
    let busy = sample.client_busy?;
    (sample.requests_per_sec > 0.0).then(|| busy * 1e6 / sample.requests_per_sec)
}

impl WorkloadsReport {
    /// The samples of the verdict's fixed-rate row over `base`.
    fn at_fixed_rate<'a>(&'a self, base: &'a str) -> impl Iterator<Item = &'a Sample> + 'a {
        self.samples.iter().filter(move |s| {
            catalogue::by_name(&s.workload).is_some_and(|w| {
                matches!(w.shape, Shape::Offered { of, percent } if of == base && percent == VERDICT_PERCENT)
            })
        })
    }

    /// The client's CPU µs per request with the server `label` at the verdict's fixed-rate
    /// row over `base`, the median over its rounds; `None` without a busy share.
    pub fn client_us_in_rounds(&self, base: &str, label: &str) -> Option<f64> {
        let figures: Vec<f64> = self
            .at_fixed_rate(base)
            .filter(|s| s.label == label)
            .filter_map(client_us)
            .collect();
        median(&figures)
    }

    /// "6.1 µs (1.34× io_uring_server's 4.5)": the client's CPU per request with `label`
    /// at the fixed-rate row over `base`, and that ÷ io_uring_server's own server CPU per
    /// request there (medians over the rounds); "n/a" without a figure.
    pub fn client_cost_cell(&self, base: &str, label: &str) -> String {
        let Some(client) = self.client_us_in_rounds(base, label) else {
            return "n/a".into();
        };
        let server: Vec<f64> = self
            .at_fixed_rate(base)
            .filter(|s| s.contender == SUBJECT.id)
            .filter_map(|s| s.server_cpu_us)
            .collect();
        match median(&server) {
            Some(server) if server > 0.0 => format!(
                "{client:.1} µs ({:.2}× {}'s {server:.1})",
                client / server,
                SUBJECT.label
            ),
            _ => format!("{client:.1} µs"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::servers::TOKIO_CODEC;

    const ROW: &str = "keep-alive, small requests at a fixed rate";
    const BASE: &str = "keep-alive, small requests";

    fn sample(contender: &str, round: usize, server_us: f64, client_busy: f64) -> Sample {
        Sample {
            client_busy: Some(client_busy),
            requests_per_sec: 100_000.0,
            ..Sample::example(ROW, contender, round, server_us)
        }
    }

    #[test]
    fn the_client_costs_its_busy_share_over_the_rate_beside_the_servers_cpu() {
        // 60% of a CPU at 100,000 req/s is 6 µs a request; io_uring_server's own 4 µs.
        let report = WorkloadsReport::over(vec![
            sample(SUBJECT.id, 0, 4.0, 0.6),
            sample(SUBJECT.id, 1, 4.0, 0.6),
            sample(TOKIO_CODEC.id, 0, 5.0, 0.7),
            sample(TOKIO_CODEC.id, 1, 5.0, 0.7),
        ]);
        assert_eq!(
            report.client_cost_cell(BASE, SUBJECT.id),
            format!("6.0 µs (1.50× {}'s 4.0)", SUBJECT.label)
        );
        assert_eq!(
            report.client_cost_cell(BASE, TOKIO_CODEC.id),
            format!("7.0 µs (1.75× {}'s 4.0)", SUBJECT.label)
        );
    }

    #[test]
    fn without_a_busy_share_or_another_row_there_is_no_figure() {
        let report = WorkloadsReport::over(vec![Sample::example(ROW, SUBJECT.id, 0, 4.0)]);
        assert_eq!(report.client_cost_cell(BASE, SUBJECT.id), "n/a");
        assert_eq!(report.client_cost_cell("64 KiB echo", SUBJECT.id), "n/a");
    }
}

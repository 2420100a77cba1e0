//! The client measured as the servers are: its CPU per request at a row's fixed rate
//! (its busy share of one CPU ÷ the requests/s served), beside io_uring_server's server
//! CPU per request in the same row. The client is the instrument: wherever it costs more
//! than the server, it is what saturates first when the machine slows down, so the rates
//! table shows this for every fixed-rate row and contender, with how late its sends left
//! their intended times where the rounds kept it ([`WorkloadsReport::lateness_in_rounds`]).

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
        match self.subject_cpu_at_rate(base) {
            Some(server) => format!(
                "{client:.1} µs ({:.2}× {}'s {server:.1})",
                client / server,
                SUBJECT.label
            ),
            _ => format!("{client:.1} µs"),
        }
    }

    /// How late the client's sends left their intended times with the server `label` at
    /// the verdict's fixed-rate row over `base`: the median over its rounds of each
    /// point's p50, µs; `None` where no round kept it.
    pub fn lateness_in_rounds(&self, base: &str, label: &str) -> Option<f64> {
        let figures: Vec<f64> = self
            .at_fixed_rate(base)
            .filter(|s| s.label == label)
            .filter_map(|s| s.send_lateness_p50_us)
            .collect();
        median(&figures)
    }

    /// The client's CPU µs per request and io_uring_server's at the verdict's fixed-rate
    /// row over `base` (each the median over io_uring_server's rounds); `None` without
    /// both.
    pub fn client_and_subject_at_rate(&self, base: &str) -> Option<(f64, f64)> {
        let rounds = self.at_fixed_rate(base).filter(|s| s.contender == SUBJECT.id);
        let client = median(&rounds.filter_map(client_us).collect::<Vec<_>>())?;
        Some((client, self.subject_cpu_at_rate(base)?))
    }

    /// io_uring_server's own server CPU µs per request at the verdict's fixed-rate row over
    /// `base`, the median over its rounds; `None` without a positive figure.
    fn subject_cpu_at_rate(&self, base: &str) -> Option<f64> {
        let server: Vec<f64> = self
            .at_fixed_rate(base)
            .filter(|s| s.contender == SUBJECT.id)
            .filter_map(|s| s.server_cpu_us)
            .collect();
        median(&server).filter(|us| *us > 0.0)
    }

    /// The client's CPU µs per request and io_uring_server's flat out at `base` in the
    /// calibration (a closed loop: neither side sleeps long between requests); `None`
    /// without both.
    pub fn client_and_subject_flat_out(&self, base: &str) -> Option<(f64, f64)> {
        let calibration = self.calibrations.iter().find(|c| c.workload == base)?;
        let flat = calibration.flat_out.iter().find(|f| f.label == SUBJECT.label)?;
        let server = flat.server_cpu_us.filter(|us| *us > 0.0)?;
        (flat.requests_per_sec > 0.0).then(|| (flat.client_busy * 1e6 / flat.requests_per_sec, server))
    }

    /// Whether any calibrated workload's fixed-rate row kept the send lateness: the
    /// rates table says what it is only then.
    pub fn kept_lateness(&self) -> bool {
        self.calibrations.iter().any(|c| {
            self.at_fixed_rate(&c.workload)
                .any(|s| s.send_lateness_p50_us.is_some())
        })
    }

    /// "62% (91%); sends left p50 203 µs late": how busy the client was with `label` in the
    /// rounds at the fixed rate over `base` ([`Self::client_in_rounds`]), and how late its
    /// sends left where the rounds kept it.
    pub fn client_busy_cell(&self, base: &str, label: &str) -> String {
        let busy = self.client_in_rounds(base, label);
        match self.lateness_in_rounds(base, label) {
            Some(late) => format!("{busy}; sends left p50 {late:.0} µs late"),
            None => busy,
        }
    }

    /// The rates table's sentence on the send lateness beside the client's busy share,
    /// where the rounds kept it; empty where they did not (reports from before).
    pub fn lateness_said(&self) -> String {
        if !self.kept_lateness() {
            return String::new();
        }
        format!(
            " Beside the client's busy share, how late its sends left their intended times \
             (the median over the rounds of each point's p50). loadgen's ring drives the \
             kept-alive rows over plain TCP without files and sends each request close to \
             its intended time; its tokio driver drives TLS, churn and files, and lets sends \
             due within {} µs of each other leave together, so on those rows the servers \
             take requests in bunches.",
            loadgen::MIN_GAP.as_micros()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::servers::TOKIO_CODEC;

    const ROW: &str = "keep-alive, small requests at a fixed rate";
    const BASE: &str = "keep-alive, small requests";

    fn sample(contender: &str, round: usize, server_us: f64, client_busy: f64) -> Sample {
        Sample::example_with_client(ROW, contender, round, server_us, client_busy)
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
    fn the_send_lateness_is_the_median_of_the_rounds_p50s_where_kept() {
        let late = |round, p50| Sample {
            send_lateness_p50_us: p50,
            ..sample(SUBJECT.id, round, 4.0, 0.6)
        };
        let report = WorkloadsReport::over(vec![
            late(0, Some(180.0)),
            late(1, Some(203.0)),
            late(2, Some(240.0)),
            late(3, None),
        ]);
        assert_eq!(report.lateness_in_rounds(BASE, SUBJECT.id), Some(203.0));
        assert_eq!(
            report.client_busy_cell(BASE, SUBJECT.id),
            "60% (60%); sends left p50 203 µs late"
        );
        let unkept = WorkloadsReport::over(vec![sample(SUBJECT.id, 0, 4.0, 0.6)]);
        assert_eq!(unkept.lateness_in_rounds(BASE, SUBJECT.id), None);
        assert_eq!(unkept.client_busy_cell(BASE, SUBJECT.id), "60% (60%)");
    }

    #[test]
    fn the_client_against_io_uring_server_at_the_rate_and_flat_out() {
        use crate::workload::offered::{Calibration, FlatOut};
        let flat = |label: &str, requests_per_sec, server_cpu_us, client_busy| FlatOut {
            label: label.into(),
            requests_per_sec,
            server_cpu_us,
            client_busy,
            cpus: 1,
        };
        let mut report = WorkloadsReport::over(vec![
            sample(SUBJECT.id, 0, 4.0, 0.6),
            sample(SUBJECT.id, 1, 4.0, 0.8),
            sample(TOKIO_CODEC.id, 0, 5.0, 0.9),
        ]);
        // At the rate: 70% of a CPU at 100,000 req/s (the median of 60% and 80%), 7 µs.
        assert_eq!(report.client_and_subject_at_rate(BASE), Some((7.0, 4.0)));
        assert_eq!(report.client_and_subject_flat_out(BASE), None, "no calibration");
        // Flat out: 90% of a CPU at 300,000 req/s is 3 µs; the server's own 2.5 µs.
        report.calibrations.push(Calibration::new(
            BASE,
            vec![
                flat(TOKIO_CODEC.label, 250_000.0, Some(3.0), 0.95),
                flat(SUBJECT.label, 300_000.0, Some(2.5), 0.9),
            ],
        ));
        let (client, server) = report.client_and_subject_flat_out(BASE).unwrap();
        assert!((client - 3.0).abs() < 1e-9 && server == 2.5, "{client} {server}");
        report.calibrations[0].flat_out[1].server_cpu_us = None;
        assert_eq!(report.client_and_subject_flat_out(BASE), None, "no server CPU");
    }

    #[test]
    fn without_a_busy_share_or_another_row_there_is_no_figure() {
        let report = WorkloadsReport::over(vec![Sample::example(ROW, SUBJECT.id, 0, 4.0)]);
        assert_eq!(report.client_cost_cell(BASE, SUBJECT.id), "n/a");
        assert_eq!(report.client_cost_cell("64 KiB echo", SUBJECT.id), "n/a");
    }
}

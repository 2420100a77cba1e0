//! CPU at fixed offered rates: a saturated closed loop's CPU per request is the server's
//! busy share divided by a throughput the client sets, so it moves with the client as
//! much as with the server. An [`super::Shape::Offered`] workload instead offers every
//! contender the same open-loop rate, a share of the slowest contender's capacity
//! ([`super::calibrate`]), and a point whose server served less than [`KEEP_UP`] of it is
//! rejected ([`keeps_up`]): a backlog is not a cost per request.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::Workload;
use super::catalogue::by_name;

/// The share of the offered rate a point must serve to count.
pub const KEEP_UP: f64 = 0.99;

/// The shares of capacity offered, in percent; the verdict's rows use [`VERDICT_PERCENT`].
pub const PERCENTS: [u32; 3] = [25, 50, 75];
pub const VERDICT_PERCENT: u32 = 50;

/// How long each contender runs flat out to calibrate.
pub const CALIBRATION: Duration = Duration::from_millis(1500);

/// Whether a point that served `achieved` requests/s kept up with `offered`.
pub fn keeps_up(offered: f64, achieved: f64) -> bool {
    achieved >= KEEP_UP * offered
}

/// The workload an offered one takes its load from.
pub fn base(name: &str) -> Workload {
    by_name(name).unwrap_or_else(|| panic!("{name}: an offered workload's base is not in the catalogue"))
}

/// What each contender served of a workload flat out, and the slowest of them: the
/// capacity the offered rates are shares of.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Calibration {
    pub workload: String,
    /// (label, requests/s) per contender, in the order run.
    pub served: Vec<(String, f64)>,
    pub slowest: f64,
}

impl Calibration {
    /// The rate `percent`% of capacity stands for, in requests/s.
    pub fn rate(&self, percent: u32) -> f64 {
        (self.slowest * f64::from(percent) / 100.0).round()
    }

    /// Whose capacity the rates are shares of.
    pub fn slowest_label(&self) -> &str {
        self.served
            .iter()
            .find(|(_, rps)| *rps == self.slowest)
            .map_or("?", |(label, _)| label.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_point_that_falls_behind_is_rejected() {
        assert!(keeps_up(50_000.0, 49_600.0));
        assert!(keeps_up(50_000.0, 50_010.0));
        assert!(!keeps_up(50_000.0, 49_400.0), "98.8% served is a backlog");
    }

    #[test]
    fn rates_are_shares_of_the_slowest() {
        let calibration = Calibration {
            workload: "w".into(),
            served: vec![("a".into(), 120_000.0), ("b".into(), 100_000.0)],
            slowest: 100_000.0,
        };
        assert_eq!(calibration.rate(50), 50_000.0);
        assert_eq!(calibration.slowest_label(), "b");
        assert_eq!(calibration.rate(25), 25_000.0);
    }

    #[test]
    fn every_offered_workload_names_a_base_that_saturates() {
        use super::super::{Shape, catalogue::WORKLOADS};
        for workload in WORKLOADS {
            if let Shape::Offered { of, percent } = workload.shape {
                let base = base(of);
                assert!(
                    matches!(
                        base.shape,
                        Shape::KeepAlive { .. } | Shape::Echo { .. } | Shape::Churn { .. }
                    ),
                    "{}",
                    workload.name
                );
                assert!(PERCENTS.contains(&percent), "{}", workload.name);
                assert!(workload.name.starts_with(of), "{}", workload.name);
            }
        }
    }
}

//! The capacity an offered workload's rates are shares of ([`super::offered`]): each
//! contender runs the saturated workload flat out on a fresh server, and the slowest
//! figure is kept.

use super::Workload;
use super::offered::{CALIBRATION, Calibration};
use crate::servers::{Contender, Lineup};

/// Runs `workload` (a closed loop or churn) flat out on a fresh server of each of
/// `contenders` for [`CALIBRATION`] and keeps the slowest figure: below it, every one of
/// them can keep up.
pub fn calibrate(
    lineup: &Lineup,
    workload: &Workload,
    contenders: &[Contender],
) -> Result<Calibration, String> {
    let mut served = Vec::new();
    for contender in contenders {
        let server = lineup.start_fresh(*contender)?;
        let point = super::measure::point(&server, workload, CALIBRATION, None, &lineup.pinning)?;
        served.push((contender.label.to_string(), point.requests_per_sec));
    }
    let slowest = served.iter().map(|(_, rps)| *rps).fold(f64::INFINITY, f64::min);
    if !slowest.is_finite() || slowest <= 0.0 {
        return Err(format!("{}: calibration served nothing", workload.name));
    }
    Ok(Calibration {
        workload: workload.name.into(),
        served,
        slowest,
    })
}

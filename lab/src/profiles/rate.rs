//! The rate a profile of a verdict row offers: the row's own, by the verdict's rule. An
//! offered row's base workload is calibrated on the contenders the workloads study
//! calibrates it on ([`calibrated_by`]) and the row takes [`Calibration::rate`] at its
//! percent, so a profile and the row it explains run the same load at the same rule; a
//! saturated row (pipelining, the large responses) is a closed loop, no rate.

use harness::rounds::first_seen;
use harness::servers::{ANCHORS, Contender, Lineup, nginx};
use harness::workload::calibrate::calibrate;
use harness::workload::offered::{self, Calibration};
use harness::workload::{Shape as RowShape, catalogue};

use crate::profiles::{WORKLOADS, Workload};
use crate::workloads::{detail_contenders, every_round};

/// Who the workloads study calibrates the base workload `of` on: every contender that
/// any offered row of it runs, every round or in the first ones; nginx only where it is
/// installed (there, too, an anchor that cannot start sits out).
pub fn calibrated_by(of: &str) -> Vec<Contender> {
    let installed = nginx::binary().is_some();
    first_seen(
        catalogue::WORKLOADS
            .iter()
            .filter(|w| matches!(w.shape, RowShape::Offered { of: o, .. } if o == of))
            .flat_map(|w| [every_round(w), detail_contenders(w)].concat())
            .filter(|c| installed || !ANCHORS.contains(c)),
    )
}

/// Every contender some profile's calibration runs: the lineup must have their binaries.
pub fn everyone_calibrated() -> Vec<Contender> {
    first_seen(
        WORKLOADS
            .iter()
            .filter_map(|w| offered_base(w).map(|(of, _)| of))
            .flat_map(calibrated_by),
    )
}

/// The base workload and percent of the offered row `workload` explains; `None` for a
/// saturated row or a workload with no row.
pub fn offered_base(workload: &Workload) -> Option<(&'static str, u32)> {
    match workload.row()?.shape {
        RowShape::Offered { of, percent } => Some((of, percent)),
        _ => None,
    }
}

/// The rate `workload`'s profile offers, in requests (or connections) per second, and the
/// calibration it was taken from: `None` for a closed loop (a saturated row) and for a
/// file workload, whose rate the profiles study calibrates itself.
pub fn of_row(lineup: &Lineup, workload: &Workload) -> Result<Option<(f64, Calibration)>, String> {
    let Some((of, percent)) = offered_base(workload) else {
        return Ok(None);
    };
    let calibration = calibrate(lineup, &offered::base(of), &calibrated_by(of))?;
    Ok(Some((calibration.rate(percent), calibration)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use harness::servers::{IO_URING, TOKIO_CODEC, TOKIO_HYPER, TOKIO_URING};

    fn named(name: &str) -> Workload {
        *WORKLOADS.iter().find(|w| w.name == name).unwrap()
    }

    #[test]
    fn an_offered_row_takes_its_base_and_the_verdict_percent() {
        let echo = named("64 KiB echo at a fixed rate");
        assert_eq!(
            offered_base(&echo),
            Some(("64 KiB echo", offered::VERDICT_PERCENT))
        );
        assert!(echo.is_open_loop());
        for closed in ["pipelined 16 deep", "256 KiB responses"] {
            assert_eq!(offered_base(&named(closed)), None, "{closed}");
            assert!(!named(closed).is_open_loop(), "{closed}");
        }
        assert_eq!(offered_base(&named("4 KiB files, hot, 256 connections")), None);
    }

    #[test]
    fn the_calibration_runs_the_verdicts_contenders() {
        let keep_alive = calibrated_by("keep-alive, small requests");
        for c in [IO_URING, TOKIO_CODEC, TOKIO_HYPER, TOKIO_URING] {
            assert!(keep_alive.contains(&c), "{}", c.label);
        }
        assert!(
            !calibrated_by("64 KiB echo").iter().any(|c| ANCHORS.contains(c)),
            "nginx cannot echo"
        );
        assert!(
            calibrated_by("pipelined 16 deep").is_empty(),
            "no offered row of it"
        );
        let all = everyone_calibrated();
        assert!(keep_alive.iter().all(|c| all.contains(c)));
    }
}

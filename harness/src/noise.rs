//! What the platform itself did while a point ran: the steal on the server's and the
//! client's CPUs ([`crate::steal`]) and, for a latency point, the hiccups of a meter on
//! each of them ([`crate::hiccup`]), recorded beside the point so its tails can be read
//! against the machine's own. The meter on the server's CPU runs in a quiet moment just
//! before the point ([`QUIET`]), not during it: there it would share the CPU with the
//! server, take CPU from it, and read the server's own busyness as platform noise.

use serde::{Deserialize, Serialize};

use crate::affinity::CpuSet;
use crate::hiccup::{HiccupMeter, HiccupSummary};
use crate::settings::Pinning;
use crate::steal::{Steal, StealWatch};

/// The platform's noise during one point.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Noise {
    pub steal: Steal,
    /// `None` for points whose latency is not read against a floor (the closed loops).
    pub hiccups: Option<HiccupFloor>,
}

/// How long the server's CPU is metered, idle, before each point.
pub const QUIET: std::time::Duration = std::time::Duration::from_millis(500);

/// The hiccups of the client's CPU during one point, and of the server's CPU in the quiet
/// moment before it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HiccupFloor {
    pub client: HiccupSummary,
    pub server: HiccupSummary,
}

impl HiccupFloor {
    /// The larger of the two CPUs' figure `at` (a percentile of [`HiccupSummary`]).
    pub fn larger(&self, at: fn(&HiccupSummary) -> u64) -> u64 {
        at(&self.client).max(at(&self.server))
    }
}

/// Runs `work`, watching steal and, if `hiccups`, a meter on the first server CPU for
/// [`QUIET`] before it and one on the first client CPU while it runs (unpinned when
/// `pinning` names none).
pub fn measure<T>(
    pinning: &Pinning,
    hiccups: bool,
    work: impl FnOnce() -> Result<T, String>,
) -> Result<(T, Noise), String> {
    let first = |set: &Option<CpuSet>| set.as_ref().and_then(|s| s.0.first().copied());
    let quiet = match hiccups {
        true => {
            let meter = HiccupMeter::start(first(&pinning.server))?;
            std::thread::sleep(QUIET);
            Some(meter.stop()?)
        }
        false => None,
    };
    let steal = StealWatch::start(pinning)?;
    let client = quiet
        .map(|_| HiccupMeter::start(first(&pinning.client)))
        .transpose()?;
    let result = work();
    let floor = match (client, quiet) {
        (Some(client), Some(server)) => Some(HiccupFloor {
            client: client.stop()?,
            server,
        }),
        _ => None,
    };
    let steal = steal.read()?;
    Ok((
        result?,
        Noise {
            steal,
            hiccups: floor,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn hiccups_are_measured_only_when_asked_and_errors_pass_through() {
        let pinning = Pinning::choose(&CpuSet::current(), None, None);
        let (value, noise) = measure(&pinning, true, || {
            std::thread::sleep(Duration::from_millis(50));
            Ok(7)
        })
        .unwrap();
        assert_eq!(value, 7);
        let floor = noise.hiccups.unwrap();
        assert!(floor.client.samples > 0 && floor.server.samples > 0, "{floor:?}");
        let ((), quiet) = measure(&pinning, false, || Ok(())).unwrap();
        assert_eq!(quiet.hiccups, None);
        let failed = measure(&pinning, true, || Err::<(), _>("the load failed".to_string()));
        assert_eq!(failed.unwrap_err(), "the load failed");
    }
}

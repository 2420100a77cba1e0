//! What the platform itself did while a point ran: the steal on the server's and the
//! client's CPUs ([`crate::steal`]) and, for a latency point, the hiccups of a meter on
//! each of them ([`crate::hiccup`]), recorded beside the point so its tails can be read
//! against the machine's own.

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

/// The hiccups of the client's and the server's CPU during one point.
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

/// Runs `work`, watching steal and, if `hiccups`, a meter on the first client CPU and one
/// on the first server CPU (unpinned when `pinning` names none) for as long as it runs.
pub fn measure<T>(
    pinning: &Pinning,
    hiccups: bool,
    work: impl FnOnce() -> Result<T, String>,
) -> Result<(T, Noise), String> {
    let first = |set: &Option<CpuSet>| set.as_ref().and_then(|s| s.0.first().copied());
    let steal = StealWatch::start(pinning)?;
    let meters = match hiccups {
        true => {
            let client = HiccupMeter::start(first(&pinning.client))?;
            match HiccupMeter::start(first(&pinning.server)) {
                Ok(server) => Some((client, server)),
                Err(error) => {
                    let _ = client.stop();
                    return Err(error);
                }
            }
        }
        false => None,
    };
    let result = work();
    let floor = match meters {
        Some((client, server)) => {
            let (client, server) = (client.stop(), server.stop());
            Some(HiccupFloor {
                client: client?,
                server: server?,
            })
        }
        None => None,
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

//! The sustained-load sweep (`scripts/sweep.sh`): every contender over closed loops at
//! [`CONNECTIONS`], pipelining at [`DETAIL_CONNECTIONS`], and an open loop at
//! [`OPEN_LOOP_SHARES`] of the slowest contender's peak, with server CPU, peak RSS and
//! syscalls per request beside each point, and steal on both CPUs. Contenders are
//! interleaved point by point so that drift hits all of them alike; the open loop runs in
//! rounds whose contender order rotates, with a hiccup meter on the client's CPU during
//! each point and on the server's CPU just before it (`floor` reads its tails against
//! them, `stability` compares two sweeps). `report` renders the tables
//! (the open loop's in `open_loop`, ending with `ratios`), `plots` the SVG charts (drawn
//! by the harness's `chart`, which the churn and scan studies draw with too).

use serde::{Deserialize, Serialize};

use harness::load::{LoadKind, Point};
use harness::machine::Machine;

pub mod floor;
pub mod open_loop;
pub mod plots;
pub mod ratios;
pub mod report;
pub mod stability;

/// The closed loop's connection counts.
pub const CONNECTIONS: [usize; 5] = [1, 16, 64, 256, 1024];
/// Connections of the points looked at in detail: the closed loop with syscall counts,
/// the pipelined loop, and the ablation's points.
pub const DETAIL_CONNECTIONS: usize = 256;
/// Requests in flight per connection in the pipelined loop.
pub const PIPELINE_DEPTH: usize = 16;
pub const OPEN_LOOP_CONNECTIONS: usize = 64;
/// The open loop's rates, as shares of the slowest contender's closed-loop peak.
pub const OPEN_LOOP_SHARES: [f64; 3] = [0.25, 0.5, 0.75];

/// Everything one sweep measured, as written to `results/sweep.json` (and read back by
/// [`plots::draw_from_json`] and the stability check).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SweepReport {
    pub machine: Machine,
    pub pinning: String,
    pub seconds_per_point: f64,
    pub slowest_peak: f64,
    /// Rounds of the open loop (1 in sweeps from before rounds).
    #[serde(default = "one_round")]
    pub open_rounds: usize,
    pub points: Vec<Point>,
}

impl SweepReport {
    /// The points of `contender` under `kind`, in the order they ran.
    pub fn points_of<'a>(&'a self, contender: &'a str, kind: LoadKind) -> impl Iterator<Item = &'a Point> {
        self.points
            .iter()
            .filter(move |p| p.contender == contender && p.kind == kind)
    }

    /// The share of the slowest peak an open-loop point offered, in whole percent (rates
    /// differ between sweeps, shares do not).
    pub fn share_percent(&self, point: &Point) -> Option<u32> {
        let rate = point.rate?;
        Some((rate / self.slowest_peak * 100.0).round() as u32)
    }
}

fn one_round() -> usize {
    1
}

/// `25/50/75%`: the open loop's shares, for headings.
pub fn shares_text() -> String {
    let percents: Vec<String> = OPEN_LOOP_SHARES
        .iter()
        .map(|s| format!("{:.0}", s * 100.0))
        .collect();
    format!("{}%", percents.join("/"))
}

#[cfg(test)]
impl SweepReport {
    /// A sweep of `points` whose slowest peak is 100 req/s, so a rate is its share in %:
    /// the fixture of the sweep's report tests.
    pub fn of_points(points: Vec<Point>) -> SweepReport {
        SweepReport {
            machine: harness::machine::blank("abc1234"),
            pinning: String::new(),
            seconds_per_point: 1.0,
            slowest_peak: 100.0,
            open_rounds: 2,
            points,
        }
    }
}

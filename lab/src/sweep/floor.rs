//! Which open-loop tails are within the platform's own noise. One point's latency at a
//! percentile is *within the floor* when it is at or below the larger of the two CPUs'
//! hiccups at that percentile during that point: the machine alone stalled that long, so
//! the figure says nothing about the server. Over rounds, a cell (one contender at one
//! share) is within the floor when **any** of its rounds is: a claim must hold in every
//! round, and one round the platform explains is enough to withhold it.

use loadgen::run::Percentiles;

use crate::sweep::SweepReport;
use harness::hiccup::HiccupSummary;
use harness::load::{LoadKind, Point};
use harness::rounds::median;

/// A tail percentile read against the floor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tail {
    P99,
    P999,
}

impl Tail {
    pub fn latency(self, percentiles: &Percentiles) -> u64 {
        match self {
            Tail::P99 => percentiles.p99,
            Tail::P999 => percentiles.p999,
        }
    }

    pub fn hiccup(self) -> fn(&HiccupSummary) -> u64 {
        match self {
            Tail::P99 => |h| h.p99_us,
            Tail::P999 => |h| h.p999_us,
        }
    }
}

/// Whether `point`'s latency at `tail` is within the hiccups recorded during it; a point
/// without hiccups (not metered) never is.
pub fn point_within_floor(point: &Point, tail: Tail) -> bool {
    point
        .noise
        .and_then(|noise| noise.hiccups)
        .is_some_and(|floor| tail.latency(&point.latency_us) <= floor.larger(tail.hiccup()))
}

/// One contender at one share of the open loop, over its rounds.
#[derive(Debug, Clone)]
pub struct OpenCell<'a> {
    pub contender: &'a str,
    pub label: &'a str,
    pub share_percent: u32,
    pub rounds: Vec<&'a Point>,
}

impl OpenCell<'_> {
    /// The latency at `tail` of each round.
    pub fn values(&self, tail: Tail) -> Vec<u64> {
        self.rounds.iter().map(|p| tail.latency(&p.latency_us)).collect()
    }

    /// The median, lowest and highest latency at `tail` over the rounds.
    pub fn spread(&self, tail: Tail) -> (u64, u64, u64) {
        let values = self.values(tail);
        let as_f64: Vec<f64> = values.iter().map(|&v| v as f64).collect();
        let low = values.iter().copied().min().unwrap_or(0);
        let high = values.iter().copied().max().unwrap_or(0);
        (median(&as_f64).unwrap_or(0.0).round() as u64, low, high)
    }

    /// Within the floor in any round (see the module's rule).
    pub fn within_floor(&self, tail: Tail) -> bool {
        self.rounds.iter().any(|p| point_within_floor(p, tail))
    }
}

/// The open loop's cells, by share and then in the order the contenders first ran.
pub fn open_cells(report: &SweepReport) -> Vec<OpenCell<'_>> {
    let mut cells: Vec<OpenCell> = Vec::new();
    for point in report.points.iter().filter(|p| p.kind == LoadKind::Open) {
        let Some(share_percent) = report.share_percent(point) else {
            continue;
        };
        let same = |c: &&mut OpenCell| c.contender == point.contender && c.share_percent == share_percent;
        match cells.iter_mut().find(same) {
            Some(cell) => cell.rounds.push(point),
            None => cells.push(OpenCell {
                contender: &point.contender,
                label: &point.label,
                share_percent,
                rounds: vec![point],
            }),
        }
    }
    cells.sort_by_key(|c| c.share_percent);
    cells
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::sweep::SweepReport;
    use harness::hiccup::HiccupSummary;
    use harness::load::blank_point;
    use harness::noise::{HiccupFloor, Noise};
    use harness::steal::Steal;

    /// Hiccups whose p99 and p99.9 are `p99` and twice it.
    pub fn hiccups(p99: u64) -> HiccupSummary {
        HiccupSummary {
            samples: 1000,
            p50_us: 10,
            p99_us: p99,
            p999_us: 2 * p99,
            max_us: 4 * p99,
            cpu_share: 0.001,
        }
    }

    /// An open-loop point of `contender` at `rate` with `p99` (p99.9 twice it) and the
    /// given hiccup p99s on the client and server CPUs (none if `None`).
    pub fn open_point(contender: &str, rate: f64, p99: u64, floor: Option<(u64, u64)>) -> Point {
        let noise = Noise {
            steal: Steal {
                server: 0.0,
                client: 0.0,
            },
            hiccups: floor.map(|(client, server)| HiccupFloor {
                client: hiccups(client),
                server: hiccups(server),
            }),
        };
        Point {
            label: format!("{contender} server"),
            rate: Some(rate),
            requests_per_sec: rate,
            latency_us: Percentiles {
                p50: 1,
                p90: 2,
                p99,
                p999: 2 * p99,
                max: 3 * p99,
                ..Percentiles::default()
            },
            noise: Some(noise),
            ..blank_point(contender, LoadKind::Open)
        }
    }

    #[test]
    fn a_tail_at_or_below_either_cpus_hiccup_is_within_the_floor() {
        // The larger of the two CPUs decides, and "at" counts as within.
        assert!(point_within_floor(
            &open_point("a", 50.0, 900, Some((100, 900))),
            Tail::P99
        ));
        assert!(point_within_floor(
            &open_point("a", 50.0, 900, Some((900, 100))),
            Tail::P99
        ));
        assert!(!point_within_floor(
            &open_point("a", 50.0, 901, Some((900, 100))),
            Tail::P99
        ));
        // p99.9 is read against the hiccups' p99.9 (twice their p99 here).
        let mut point = open_point("a", 50.0, 901, Some((900, 100)));
        point.latency_us.p999 = 1800;
        assert!(!point_within_floor(&point, Tail::P99) && point_within_floor(&point, Tail::P999));
        // Without a meter nothing is within a floor.
        assert!(!point_within_floor(&open_point("a", 50.0, 1, None), Tail::P99));
    }

    #[test]
    fn cells_gather_rounds_by_share_and_any_round_within_the_floor_marks_the_cell() {
        let report = SweepReport::of_points(vec![
            open_point("a", 25.0, 300, Some((100, 100))),
            open_point("b", 25.0, 500, Some((100, 100))),
            open_point("a", 50.0, 800, Some((100, 100))),
            open_point("b", 25.0, 400, Some((100, 450))),
            open_point("a", 25.0, 200, Some((100, 100))),
        ]);
        let cells = open_cells(&report);
        let summary: Vec<(&str, u32, Vec<u64>)> = cells
            .iter()
            .map(|c| (c.contender, c.share_percent, c.values(Tail::P99)))
            .collect();
        assert_eq!(
            summary,
            [
                ("a", 25, vec![300, 200]),
                ("b", 25, vec![500, 400]),
                ("a", 50, vec![800])
            ]
        );
        assert_eq!(
            cells[0].spread(Tail::P99),
            (250, 200, 300),
            "the mean of the middle two"
        );
        assert!(!cells[0].within_floor(Tail::P99));
        assert!(
            cells[1].within_floor(Tail::P99),
            "its second round is under 450 µs"
        );
    }
}

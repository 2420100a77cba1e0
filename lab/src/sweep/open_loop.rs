//! The open loop's section of `results/sweep.md`: p99 and p99.9 over rounds per contender
//! and share, then every point with its percentiles, the hiccup floor on the client's and
//! the server's CPU, steal, the uncorrected p99 and how late the client sent; a cell within the floor ([`super::floor`]) ends with
//! [`WITHIN`]. The per-point table is a list of columns, so a figure is one more entry.

use crate::sweep::floor::{OpenCell, Tail, open_cells, point_within_floor};
use crate::sweep::{OPEN_LOOP_CONNECTIONS, SweepReport, shares_text};
use harness::format::group_thousands;
use harness::hiccup::HiccupSummary;
use harness::load::Point;
use harness::noise::HiccupFloor;
use harness::usage::lateness_cause;
use loadgen::run::Percentiles;

/// The mark of a latency cell within the platform's noise.
pub const WITHIN: &str = "≈";

/// One row of the per-point table: a point and the round it belongs to.
struct Row<'a> {
    point: &'a Point,
    round: usize,
}

/// A column of the per-point table: its heading and how a row shows in it.
type Column = (&'static str, fn(&Row) -> String);

const POINT_COLUMNS: [Column; 14] = [
    ("server", |r| r.point.label.clone()),
    ("round", |r| (r.round + 1).to_string()),
    ("offered req/s", |r| group_thousands(r.point.rate.unwrap_or(0.0))),
    ("achieved req/s", |r| group_thousands(r.point.requests_per_sec)),
    ("p50", |r| us(r.point.latency_us.p50)),
    ("p90", |r| us(r.point.latency_us.p90)),
    ("p99", |r| tail_cell(r.point, Tail::P99)),
    ("p99.9", |r| tail_cell(r.point, Tail::P999)),
    ("max", |r| us(r.point.latency_us.max)),
    ("uncorrected p99", |r| {
        p99_cell(r.point.uncorrected_latency_us.as_ref())
    }),
    ("send lateness p99 (whose)", |r| {
        match r.point.send_lateness_us.as_ref() {
            Some(p) => format!("{} ({})", us(p.p99), lateness_cause(r.point.client_busy)),
            None => "n/a".into(),
        }
    }),
    ("client CPU hiccups p99 / max", |r| {
        hiccups_cell(r.point, |f| &f.client)
    }),
    ("server CPU hiccups before it, p99 / max", |r| {
        hiccups_cell(r.point, |f| &f.server)
    }),
    ("steal server / client", |r| steal_cell(r.point)),
];

/// The open loop's section.
pub fn open_loop_section(report: &SweepReport) -> String {
    let cells = open_cells(report);
    let mut out = format!(
        "\n## Open loop at fixed rates ({OPEN_LOOP_CONNECTIONS} connections)\n\n\
         Rates are {} of the slowest contender's closed-loop peak ({} req/s), each measured in {} \
         round(s) whose contender order rotates. Latency counts from each request's intended \
         send time (the coordinated-omission correction, so a stall also charges the requests \
         it held back); uncorrected, from when the request actually left. Send lateness: how \
         long after its intended time a request left. It is the client's lag only where the \
         client's CPU was saturated ({:.0}% busy or more: *client saturated*); otherwise \
         every connection was still waiting for an answer, so it is the server's backlog and \
         counts against the server (*server backlog*).\n\n\
         {WITHIN}: within the platform's noise, at or below the larger of the two CPUs' hiccups at \
         the same percentile (over rounds: in any round); no ranking is read from such a cell. \
         Hiccups: how late a thread sleeping 1 ms at a time woke: on the client's CPU during \
         the point, on the server's CPU in a quiet {:.1} s just before it (a meter beside the \
         server would take CPU from it and read its busyness as the platform's noise){}; \
         steal: the share of the point's wall time the hypervisor ran something else on that \
         CPU.\n",
        shares_text(),
        group_thousands(report.slowest_peak),
        report.open_rounds,
        harness::usage::CLIENT_SATURATED * 100.0,
        harness::noise::QUIET.as_secs_f64(),
        meter_cost(report)
    );
    out += "\n### p99 and p99.9 over rounds: median (lowest-highest)\n\n\
            | server | share of peak | offered req/s | p99 | p99.9 |\n|---|---|---|---|---|\n";
    for cell in &cells {
        out += &format!(
            "| {} | {}% | {} | {} | {} |\n",
            cell.label,
            cell.share_percent,
            group_thousands(cell.rounds[0].rate.unwrap_or(0.0)),
            spread_cell(cell, Tail::P99),
            spread_cell(cell, Tail::P999),
        );
    }
    out += "\n### Every point\n\n";
    let headings: Vec<&str> = POINT_COLUMNS.iter().map(|(h, _)| *h).collect();
    out += &format!(
        "| {} |\n|{}\n",
        headings.join(" | "),
        "---|".repeat(POINT_COLUMNS.len())
    );
    for row in rows(&cells) {
        let values: Vec<String> = POINT_COLUMNS.iter().map(|(_, show)| show(&row)).collect();
        out += &format!("| {} |\n", values.join(" | "));
    }
    out
}

/// Every point of every cell, a contender's rounds together.
fn rows<'a>(cells: &[OpenCell<'a>]) -> Vec<Row<'a>> {
    cells
        .iter()
        .flat_map(|cell| {
            let rounds = cell.rounds.iter().enumerate();
            rounds.map(|(round, point)| Row { point, round })
        })
        .collect()
}

/// ", the meters themselves using at most 0.4% of a CPU", or nothing without meters.
fn meter_cost(report: &SweepReport) -> String {
    let shares = report
        .points
        .iter()
        .filter_map(|p| p.noise?.hiccups)
        .flat_map(|f| [f.client.cpu_share, f.server.cpu_share]);
    match shares.reduce(f64::max) {
        Some(most) => format!(
            ", the meters themselves using at most {:.1}% of a CPU",
            most * 100.0
        ),
        None => String::new(),
    }
}

fn us(value: u64) -> String {
    format!("{} µs", group_thousands(value as f64))
}

fn p99_cell(percentiles: Option<&Percentiles>) -> String {
    percentiles.map_or_else(|| "n/a".into(), |p| us(p.p99))
}

fn tail_cell(point: &Point, tail: Tail) -> String {
    let value = us(tail.latency(&point.latency_us));
    match point_within_floor(point, tail) {
        true => format!("{value} {WITHIN}"),
        false => value,
    }
}

fn spread_cell(cell: &OpenCell, tail: Tail) -> String {
    let (median, low, high) = cell.spread(tail);
    let value = format!(
        "{} ({}-{})",
        us(median),
        group_thousands(low as f64),
        group_thousands(high as f64)
    );
    match cell.within_floor(tail) {
        true => format!("{value} {WITHIN}"),
        false => value,
    }
}

fn hiccups_cell(point: &Point, cpu: fn(&HiccupFloor) -> &HiccupSummary) -> String {
    match point.noise.and_then(|n| n.hiccups) {
        Some(floor) => {
            let h = cpu(&floor);
            format!("{} / {}", group_thousands(h.p99_us as f64), us(h.max_us))
        }
        None => "n/a".into(),
    }
}

fn steal_cell(point: &Point) -> String {
    match point.noise {
        Some(noise) => {
            let s = noise.steal;
            let high = if s.too_high() { " (high)" } else { "" };
            format!("{:.1}% / {:.1}%{high}", s.server * 100.0, s.client * 100.0)
        }
        None => "n/a".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::SweepReport;
    use crate::sweep::floor::tests::open_point;

    #[test]
    fn cells_within_the_floor_are_marked_and_rounds_summarised() {
        let mut report = SweepReport::of_points(vec![
            open_point("a", 50.0, 1_200, Some((100, 300))),
            open_point("b", 50.0, 250, Some((100, 300))),
            open_point("a", 50.0, 1_000, Some((100, 300))),
            open_point("b", 50.0, 2_500, None),
        ]);
        report.points[1].noise.as_mut().unwrap().steal.client = 0.062;
        let section = open_loop_section(&report);
        assert!(
            section.contains("| a server | 50% | 50 | 1,100 µs (1,000-1,200) | 2,200 µs (2,000-2,400) |"),
            "{section}"
        );
        // b's first round is under its 300 µs hiccups: its summary cell is marked.
        assert!(
            section.contains("| b server | 50% | 50 | 1,375 µs (250-2,500) ≈ |"),
            "{section}"
        );
        assert!(
            section.contains(
                "| b server | 1 | 50 | 50 | 1 µs | 2 µs | 250 µs ≈ | 500 µs ≈ | 750 µs | n/a | n/a | 100 / 400 µs | 300 / 1,200 µs | 0.0% / 6.2% (high) |"
            ),
            "{section}"
        );
        // A point without meters is never marked, and its floor is not made up.
        assert!(
            section.contains(
                "| b server | 2 | 50 | 50 | 1 µs | 2 µs | 2,500 µs | 5,000 µs | 7,500 µs | n/a | n/a | n/a | n/a | 0.0% / 0.0% |"
            ),
            "{section}"
        );
        assert!(section.contains("at most 0.1% of a CPU"), "{section}");
    }

    #[test]
    fn every_point_shows_its_uncorrected_p99_and_the_clients_lateness() {
        let mut point = open_point("a", 50.0, 1_200, None);
        let percentiles = |p99| Percentiles {
            p99,
            ..point.latency_us.clone()
        };
        (point.uncorrected_latency_us, point.send_lateness_us) =
            (Some(percentiles(900)), Some(percentiles(35)));
        let section = open_loop_section(&SweepReport::of_points(vec![point]));
        assert!(
            section.contains("| uncorrected p99 | send lateness p99 (whose) |"),
            "{section}"
        );
        assert!(
            section.contains("| 3,600 µs | 900 µs | 35 µs (server backlog) | n/a | n/a |"),
            "{section}"
        );
    }
}

//! Whether two sweeps rank the servers' open-loop p99 alike. At each share, every pair of
//! contenders whose cells neither sweep marks within the floor ([`super::floor`]) is
//! ordered in each sweep only when their ranges over rounds do not overlap (one's worst
//! round beats the other's best); otherwise the pair is tied. Ordered the same way in both
//! sweeps, the pair agrees; ordered opposite ways, it disagrees; tied in either, it is tied.

use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::path::Path;

use crate::sweep::SweepReport;
use crate::sweep::floor::{OpenCell, Tail, open_cells};

/// The pairs of two sweeps, in words ("50%: A < B").
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Stability {
    pub previous_commit: String,
    pub previous_date: String,
    pub agree: Vec<String>,
    pub disagree: Vec<String>,
    pub tied: Vec<String>,
    /// Pairs not compared because a cell is within the floor in either sweep.
    pub within_floor: usize,
}

/// Reads the previous sweep's JSON at `path`, or says why there is none.
pub fn read_previous(path: &Path) -> Result<SweepReport, String> {
    let name = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => format!("there is no previous {name}"),
        _ => format!("the previous {name} cannot be read ({e})"),
    })?;
    serde_json::from_str(&text).map_err(|e| format!("the previous {name} is not a sweep report ({e})"))
}

/// Compares the open-loop p99 ordering of `previous` and `current`; an error says why the
/// two cannot be compared (different contenders or shares).
pub fn compare(previous: &SweepReport, current: &SweepReport) -> Result<Stability, String> {
    let (before, now) = (open_cells(previous), open_cells(current));
    let contenders =
        |cells: &[OpenCell]| -> BTreeSet<String> { cells.iter().map(|c| c.contender.into()).collect() };
    let shares = |cells: &[OpenCell]| -> BTreeSet<u32> { cells.iter().map(|c| c.share_percent).collect() };
    if contenders(&before) != contenders(&now) {
        return Err(format!(
            "the previous sweep's open loop measured {:?}, this one {:?}",
            contenders(&before),
            contenders(&now)
        ));
    }
    if shares(&before) != shares(&now) {
        return Err(format!(
            "the previous sweep's open loop ran at {:?}% of the slowest peak, this one at {:?}%",
            shares(&before),
            shares(&now)
        ));
    }
    let mut stability = Stability {
        previous_commit: previous.machine.git_commit.clone(),
        previous_date: previous.machine.date.clone(),
        ..Stability::default()
    };
    let find = |cells: &'_ [OpenCell<'_>], of: &OpenCell| {
        cells
            .iter()
            .position(|c| c.contender == of.contender && c.share_percent == of.share_percent)
    };
    for (i, a) in now.iter().enumerate() {
        for b in now[i + 1..].iter().filter(|b| b.share_percent == a.share_percent) {
            let (Some(a_before), Some(b_before)) = (find(&before, a), find(&before, b)) else {
                continue;
            };
            let (a_before, b_before) = (&before[a_before], &before[b_before]);
            if [a, b, a_before, b_before]
                .iter()
                .any(|c| c.within_floor(Tail::P99))
            {
                stability.within_floor += 1;
                continue;
            }
            let name = |order: Ordering| {
                let sign = if order == Ordering::Less { "<" } else { ">" };
                format!("{}%: {} {sign} {}", a.share_percent, a.label, b.label)
            };
            match (order(a_before, b_before), order(a, b)) {
                (Some(then), Some(now)) if then == now => stability.agree.push(name(now)),
                (Some(_), Some(now)) => stability.disagree.push(format!("{} (reversed)", name(now))),
                _ => stability
                    .tied
                    .push(format!("{}%: {} ~ {}", a.share_percent, a.label, b.label)),
            }
        }
    }
    Ok(stability)
}

/// `Less` when every round of `a` had a lower p99 than every round of `b`, `Greater` for
/// the reverse, `None` when their ranges overlap.
fn order(a: &OpenCell, b: &OpenCell) -> Option<Ordering> {
    let ((_, a_low, a_high), (_, b_low, b_high)) = (a.spread(Tail::P99), b.spread(Tail::P99));
    if a_high < b_low {
        Some(Ordering::Less)
    } else if b_high < a_low {
        Some(Ordering::Greater)
    } else {
        None
    }
}

/// The markdown section "Stable against the previous sweep?".
pub fn stability_section(comparison: &Result<Stability, String>) -> String {
    let mut out = String::from("\n## Stable against the previous sweep?\n\n");
    let s = match comparison {
        Ok(s) => s,
        Err(why) => return out + &format!("No comparison: {why}.\n"),
    };
    let verdict = match (s.disagree.is_empty(), s.agree.is_empty()) {
        (false, _) => "No",
        (true, false) => "Yes",
        (true, true) => "Nothing to compare",
    };
    out += &format!(
        "Against the sweep this one replaced (commit {}, {}): the order of open-loop p99 between \
         every two contenders at the same share, counted only where neither sweep marks either \
         cell within the floor, and only where their ranges over rounds do not overlap in both \
         sweeps (otherwise tied).\n\n**{verdict}**: {} agree, {} disagree, {} tied, {} not compared \
         (within the floor).\n\n",
        s.previous_commit,
        s.previous_date,
        s.agree.len(),
        s.disagree.len(),
        s.tied.len(),
        s.within_floor
    );
    for (title, pairs) in [("Disagree", &s.disagree), ("Agree", &s.agree), ("Tied", &s.tied)] {
        if !pairs.is_empty() {
            out += &format!("- {title}: {}\n", pairs.join("; "));
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::sweep::floor::tests::open_point;

    /// Two rounds at 50% for each `(contender, p99 low, p99 high)`, hiccup p99 at 100 µs
    /// except where a p99 is below it.
    fn sweep(cells: &[(&str, u64, u64)]) -> SweepReport {
        let floor = Some((100, 100));
        let points = cells
            .iter()
            .flat_map(|&(c, low, high)| [open_point(c, 50.0, low, floor), open_point(c, 50.0, high, floor)])
            .collect();
        SweepReport::of_points(points)
    }

    #[test]
    fn pairs_agree_disagree_or_tie_by_their_round_ranges() {
        let before = sweep(&[("a", 200, 300), ("b", 400, 500), ("c", 600, 700), ("d", 450, 900)]);
        let now = sweep(&[
            ("a", 200, 300),
            ("b", 800, 900),
            ("c", 600, 700),
            ("d", 1000, 1100),
        ]);
        let s = compare(&before, &now).unwrap();
        assert_eq!(s.previous_commit, "abc1234");
        assert_eq!(
            s.agree,
            [
                "50%: a server < b server",
                "50%: a server < c server",
                "50%: a server < d server"
            ]
        );
        assert_eq!(s.disagree, ["50%: b server > c server (reversed)"]);
        // b and d overlap before; c and d overlap before.
        assert_eq!(s.tied, ["50%: b server ~ d server", "50%: c server ~ d server"]);
        let section = stability_section(&Ok(s));
        assert!(
            section.contains("**No**: 3 agree, 1 disagree, 2 tied, 0 not compared"),
            "{section}"
        );
    }

    #[test]
    fn cells_within_the_floor_in_either_sweep_are_not_compared() {
        let before = sweep(&[("a", 50, 300), ("b", 400, 500), ("c", 600, 700)]);
        let now = sweep(&[("a", 200, 300), ("b", 400, 500), ("c", 600, 700)]);
        let s = compare(&before, &now).unwrap();
        assert_eq!(
            s.within_floor, 2,
            "a's first round before is under its 100 µs hiccups"
        );
        assert_eq!(s.agree, ["50%: b server < c server"]);
        let section = stability_section(&Ok(s));
        assert!(section.contains("**Yes**"), "{section}");
    }

    #[test]
    fn different_contenders_or_shares_are_not_compared() {
        let before = sweep(&[("a", 200, 300), ("b", 400, 500)]);
        let other_contenders = sweep(&[("a", 200, 300), ("c", 400, 500)]);
        assert!(
            compare(&before, &other_contenders)
                .unwrap_err()
                .contains("measured")
        );
        let mut other_shares = sweep(&[("a", 200, 300), ("b", 400, 500)]);
        other_shares.slowest_peak = 200.0;
        assert!(compare(&before, &other_shares).unwrap_err().contains("25"));
        let section = stability_section(&Err("there is no previous results/sweep.json".into()));
        assert!(section.ends_with("No comparison: there is no previous results/sweep.json.\n"));
    }

    #[test]
    fn a_report_reads_back_from_its_json_and_a_bad_file_says_why() {
        let report = sweep(&[("a", 200, 300)]);
        let dir = std::env::temp_dir().join(format!("sweep-stability-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("sweep.json");
        std::fs::write(&path, serde_json::to_string(&report).unwrap()).unwrap();
        let read = read_previous(&path).unwrap();
        assert_eq!(read.points[1].latency_us.p99, 300);
        assert_eq!(read.points[1].noise, report.points[1].noise);
        std::fs::write(&path, "{}").unwrap();
        assert!(
            read_previous(&path)
                .unwrap_err()
                .contains("is not a sweep report")
        );
        assert!(
            read_previous(&dir.join("none.json"))
                .unwrap_err()
                .contains("no previous")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

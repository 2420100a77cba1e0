//! The tail where the verdict judges it ([`Workload::judges_tail`]: kept-alive small
//! requests at the verdict's offered rate): each server's p99 by round, its p99.9, and the
//! platform's hiccup floor metered in the same slices, in that workload's section. The
//! verdict's p99 row is decided from the same p99s; the floor says which of them the
//! machine's own stalls could account for.

use std::fmt::Write as _;

use crate::workloads::{Sample, Workload, WorkloadsReport};
use harness::rounds::median;

/// The tail table of `workload`, `None` where its tail is not judged or not measured.
pub fn table(report: &WorkloadsReport, workload: &Workload) -> Option<String> {
    if !workload.judges_tail()
        || report
            .of(workload.name, crate::workloads::SUBJECT.id)
            .next()
            .is_none()
    {
        return None;
    }
    let mut out = String::from(
        "### The tail at this rate\n\n\
         The p99 of each server's open loop, from each request's intended send (corrected \
         for coordinated omission), by round, as the verdict's p99 row judges it; a round \
         the server fell behind in has none. Beside it the p99.9, and the platform's hiccup \
         floor of the same round: how late a thread sleeping 1 ms woke, at p99, on the \
         server's CPU and then on the client's, each half a second while nothing ran there, \
         just before the round's points (the larger), metered once a round and the same for \
         every server. A p99 at or under its round's floor is within the machine's own \
         stalls that round.\n\n\
         | server | p99 µs, by round | p99 (median) | p99.9 µs (median) | hiccup floor at p99, µs, by round | rounds with p99 at or under the floor |\n\
         |---|---|---|---|---|---|\n",
    );
    for (id, label) in report.contenders(workload.name) {
        let samples: Vec<_> = report.of(workload.name, &id).collect();
        let kept: Vec<_> = samples.iter().filter(|s| s.value.is_some()).collect();
        let by_round: Vec<String> = samples
            .iter()
            .map(|s| match s.value {
                Some(_) => s.p99_us.to_string(),
                None => "fell behind".into(),
            })
            .collect();
        let figures = |f: fn(&Sample) -> Option<u64>| -> Vec<f64> {
            kept.iter().filter_map(|s| f(s)).map(|v| v as f64).collect()
        };
        let show = |values: Vec<f64>| median(&values).map_or("n/a".into(), |v| format!("{v:.0}"));
        let floors: Vec<String> = samples
            .iter()
            .map(|s| s.hiccup_p99_us.map_or("-".into(), |floor| floor.to_string()))
            .collect();
        let (floor, under) = match samples.iter().all(|s| s.hiccup_p99_us.is_none()) {
            true => ("not metered".to_string(), "-".to_string()),
            false => {
                let metered: Vec<_> = kept.iter().filter(|s| s.hiccup_p99_us.is_some()).collect();
                let under = metered
                    .iter()
                    .filter(|s| s.hiccup_p99_us.is_some_and(|floor| s.p99_us <= floor))
                    .count();
                (floors.join(" "), format!("{under} of {}", metered.len()))
            }
        };
        let _ = writeln!(
            out,
            "| {label} | {} | {} | {} | {floor} | {under} |",
            by_round.join(" "),
            show(figures(|s| Some(s.p99_us))),
            show(figures(|s| s.p999_us)),
        );
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workloads::WORKLOADS;

    fn tail_workload() -> Workload {
        *WORKLOADS
            .iter()
            .find(|w| w.judges_tail())
            .expect("a workload judges its tail")
    }

    #[test]
    fn the_tail_table_gives_each_round_and_counts_those_under_the_floor() {
        let workload = tail_workload();
        let sample = |contender: &str, round, p99, floor, kept: bool| Sample {
            p99_us: p99,
            p999_us: Some(p99 * 3),
            hiccup_p99_us: Some(floor),
            value: kept.then_some(10.0),
            ..Sample::example(workload.name, contender, round, 10.0)
        };
        let report = WorkloadsReport::over(vec![
            sample("io_uring", 0, 80, 100, true),
            sample("io_uring", 1, 300, 100, true),
            sample("io_uring", 2, 999, 100, false),
            sample("io_uring", 3, 120, 100, true),
        ]);
        let table = table(&report, &workload).unwrap();
        assert!(
            table.contains("| io_uring | 80 300 fell behind 120 | 120 | 360 | 100 100 100 100 | 1 of 3 |"),
            "{table}"
        );
        let unmetered = WorkloadsReport::over(vec![Sample {
            hiccup_p99_us: None,
            ..sample("monoio", 0, 80, 100, true)
        }]);
        assert!(
            super::table(&unmetered, &workload).is_none(),
            "no table without the subject"
        );
        let both = WorkloadsReport::over([report.samples.clone(), unmetered.samples].concat());
        let table = super::table(&both, &workload).unwrap();
        assert!(
            table.contains("| monoio | 80 | 80 | 240 | not metered | - |"),
            "{table}"
        );
        let other = *WORKLOADS.iter().find(|w| !w.judges_tail()).unwrap();
        assert_eq!(super::table(&report, &other), None);
    }
}

//! A profile's totals beside the verdict row it explains: per contender, the server CPU
//! per request (or connection) this profile measured and the verdict's median over its
//! rounds (`results/workloads.json`), and io_uring_server ÷ tokio codec from both. One run
//! of a profile can land outside the verdict's 95% interval; where it does, a sentence
//! says the two disagree and that the verdict's rounds decide.

use std::fmt::Write as _;

use harness::judge::{self, Estimate};
use harness::rounds::median;
use harness::servers::{IO_URING, TOKIO_CODEC};
use harness::workload::samples::WorkloadsReport;
use harness::workload::scope;

use crate::profiles::{Profile, RATE_SHARE, Workload};

/// What a verdict cell reads where no verdict run was found.
pub const NO_RUN: &str = "n/a (no verdict run)";

/// The lines under `workload`'s table setting it beside its verdict row in `verdict`
/// (`None`: no verdict run was found), or saying it has none.
pub fn lines(workload: &Workload, profiles: &[&Profile], verdict: Option<&WorkloadsReport>) -> String {
    if workload.row().is_none() && !workload.is_open_loop() {
        return "No verdict row: flat out, a closed loop measures capacity, and the \
                verdict's hot-file rows judge the cost, at a fixed rate. Each server served \
                what it could, so the figures per request above show where its CPU goes at \
                its own throughput, which differs between servers (\"served\"); where the \
                client was 90% busy or more, a server's figure is the client's pace as much as \
                its own cost.\n\n"
            .into();
    }
    // A closed loop or pipelining: a row of the workloads study's details that the
    // verdict does not judge, so no word of the rule is shown for it here.
    let judged = workload.row().is_none_or(|row| scope::in_verdict(&row));
    let Some(row) = workload.row() else {
        return format!(
            "No verdict row: the verdict does not judge this load; its rate here is {:.0}% of \
             the slowest contender's peak.\n\n",
            RATE_SHARE * 100.0
        );
    };
    let mut out = match judged {
        true => format!("Beside the verdict row *{}*", row.name),
        false => format!(
            "Beside the workloads study's row *{}*, which the verdict does not judge ({})",
            row.name,
            scope::outside_verdict(&row).unwrap_or_default()
        ),
    };
    if let Some(rate) = verdict.and_then(|v| offered_rate(v, row.name)) {
        let _ = write!(out, " (offered {rate:.0}/s there)");
    }
    out.push_str(":\n\n");
    let labels: Vec<&str> = profiles.iter().map(|p| p.label.as_str()).collect();
    let _ = writeln!(
        out,
        "| server CPU µs per {} | {} | io_uring_server ÷ tokio codec |",
        workload.unit(),
        labels.join(" | ")
    );
    let _ = writeln!(out, "|---|{}---|", "---|".repeat(labels.len()));
    let ours: Vec<String> = profiles
        .iter()
        .map(|p| format!("{:.2}", p.server_cpu_us))
        .collect();
    let ratio = profile_ratio(profiles);
    let shown = ratio.map_or("n/a".into(), |r| format!("{r:.2}"));
    let _ = writeln!(out, "| this profile (/proc) | {} | {shown} |", ours.join(" | "));
    let Some(verdict) = verdict else {
        let cells = vec![NO_RUN; profiles.len()].join(" | ");
        let _ = writeln!(
            out,
            "| the verdict's median over its rounds | {cells} | {NO_RUN} |\n"
        );
        return out;
    };
    let theirs: Vec<String> = profiles
        .iter()
        .map(|p| match verdict_median(verdict, row.name, &p.contender) {
            Some((value, 1)) => format!("{value:.2} (1 round)"),
            Some((value, rounds)) => format!("{value:.2} ({rounds} rounds)"),
            None if judged => "n/a (not in the verdict run)".into(),
            None => "n/a (not in the workloads run)".into(),
        })
        .collect();
    let ratios = verdict.ratios(&row, TOKIO_CODEC.id);
    let (median_of, cell) = match judged {
        true => (
            "the verdict's median over its rounds",
            verdict_cell(workload, Some(verdict)).unwrap_or_else(|| judge::no_estimate(0)),
        ),
        false => (
            "the workloads study's median over its rounds",
            NOT_JUDGED.to_string(),
        ),
    };
    let _ = writeln!(out, "| {median_of} | {} | {cell} |\n", theirs.join(" | "));
    if !judged {
        return out;
    }
    if let Some((ratio, estimate)) = ratio.zip(Estimate::of(&ratios))
        && disagrees(ratio, &estimate)
    {
        let digits = digits_apart(ratio, estimate.low, estimate.high);
        let _ = writeln!(
            out,
            "This profile's io_uring_server ÷ tokio codec ({ratio:.digits$}) lies outside the \
             verdict's 95% interval ({:.digits$}-{:.digits$}): the two disagree, and the \
             verdict's rounds decide; read the categories above as where one run's CPU went, \
             not as the size of the difference.\n",
            estimate.low, estimate.high
        );
    }
    out
}

/// The last cell beside a row the verdict does not judge: no word of the rule.
pub const NOT_JUDGED: &str = "not judged by the verdict";

/// The verdict's cell at the row `workload` explains, io_uring_server ÷ tokio codec
/// ("0.81 (0.74-0.89, 6 rounds) **wins** by ≥10%", or *client-bound* where the verdict
/// says so); `None` without a row, a verdict run or rounds of it there.
pub fn verdict_cell(workload: &Workload, verdict: Option<&WorkloadsReport>) -> Option<String> {
    let (row, verdict) = (workload.row()?, verdict?);
    if !scope::in_verdict(&row) {
        return Some(NOT_JUDGED.into());
    }
    let ratios = verdict.ratios(&row, TOKIO_CODEC.id);
    if ratios.is_empty() {
        return None;
    }
    Some(match verdict.client_bound(row.name) {
        Some(busy) => harness::workload::client_bound::cell(&ratios, busy),
        None => judge::cell(&ratios),
    })
}

/// io_uring_server's total ÷ tokio codec's in this profile.
pub fn profile_ratio(profiles: &[&Profile]) -> Option<f64> {
    let total = |id: &str| {
        profiles
            .iter()
            .find(|p| p.contender == id)
            .map(|p| p.server_cpu_us)
    };
    let (subject, baseline) = (total(IO_URING.id)?, total(TOKIO_CODEC.id)?);
    (baseline > 0.0).then(|| subject / baseline)
}

/// The fewest decimals (2 to 6) at which `ratio`, written, lies visibly outside the
/// interval `low`-`high` written alike: 2, unless rounding puts it on an edge ("0.75 lies
/// outside (0.75-0.76)" reads false; "0.749 lies outside (0.751-0.762)" does not).
pub fn digits_apart(ratio: f64, low: f64, high: f64) -> usize {
    let written = |value: f64, digits: usize| format!("{value:.digits$}").parse::<f64>().unwrap_or(value);
    (2..=6)
        .find(|&d| {
            let (r, l, h) = (written(ratio, d), written(low, d), written(high, d));
            r < l || r > h
        })
        .unwrap_or(6)
}

/// Whether a profile's `ratio` lies outside the verdict cell's 95% interval.
pub fn disagrees(ratio: f64, estimate: &Estimate) -> bool {
    ratio < estimate.low || ratio > estimate.high
}

/// `contender`'s median figure at the verdict row `row` over the rounds that measured it,
/// and how many rounds those were.
pub fn verdict_median(verdict: &WorkloadsReport, row: &str, contender: &str) -> Option<(f64, usize)> {
    let values: Vec<f64> = verdict.values(row, contender).into_iter().flatten().collect();
    Some((median(&values)?, values.len()))
}

/// The rate the verdict offered at `row`, where it is an offered row.
fn offered_rate(verdict: &WorkloadsReport, row: &str) -> Option<f64> {
    let rates: Vec<f64> = verdict
        .of(row, IO_URING.id)
        .filter_map(|s| s.offered_per_sec)
        .collect();
    median(&rates)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profiles::WORKLOADS;
    use crate::profiles::test_profiles::pair;
    use harness::workload::samples::Sample;

    /// Five rounds of the first profile's row: tokio codec at 10 µs, io_uring_server at
    /// `subject` µs give or take 1%.
    fn verdict(subject: f64) -> WorkloadsReport {
        let row = WORKLOADS[0].name;
        let samples = (0..5)
            .flat_map(|round| {
                let wobble = 1.0 + 0.01 * (round as f64 - 2.0);
                let mut offered = Sample::example(row, IO_URING.id, round, subject * wobble);
                offered.offered_per_sec = Some(40_000.0);
                [offered, Sample::example(row, TOKIO_CODEC.id, round, 10.0)]
            })
            .collect();
        WorkloadsReport::over(samples)
    }

    #[test]
    fn a_profile_inside_the_interval_agrees() {
        let (codec, uring) = pair();
        let text = lines(&WORKLOADS[0], &[&codec, &uring], Some(&verdict(8.0)));
        assert!(
            text.starts_with(
                "Beside the verdict row *keep-alive, small requests at a fixed rate* (offered 40000/s there)"
            ),
            "{text}"
        );
        assert!(
            text.contains("| this profile (/proc) | 10.00 | 8.00 | 0.80 |"),
            "{text}"
        );
        assert!(
            text.contains(
                "| the verdict's median over its rounds | 10.00 (5 rounds) | 8.00 (5 rounds) | 0.80 ("
            ),
            "{text}"
        );
        assert!(!text.contains("disagree"), "{text}");
    }

    #[test]
    fn the_verdict_cell_is_the_rows_judged_ratio() {
        let cell = verdict_cell(&WORKLOADS[0], Some(&verdict(8.0))).unwrap();
        assert!(
            cell.starts_with("0.80 (") && cell.contains("**wins** by ≥10%"),
            "{cell}"
        );
        assert_eq!(verdict_cell(&WORKLOADS[0], None), None);
        let empty = WorkloadsReport::over(Vec::new());
        assert_eq!(verdict_cell(&WORKLOADS[0], Some(&empty)), None);
        let files = WORKLOADS.iter().find(|w| w.file_set().is_some()).unwrap();
        assert_eq!(verdict_cell(files, Some(&verdict(8.0))), None);
        let mut busy = verdict(8.0).samples;
        // Most rounds noisy: the row is client-bound.
        busy.iter_mut()
            .filter(|s| s.round < 3)
            .for_each(|s| s.client_busy = Some(0.95));
        let cell = verdict_cell(&WORKLOADS[0], Some(&WorkloadsReport::over(busy))).unwrap();
        assert!(cell.ends_with("*client-bound* (client 95% busy)"), "{cell}");
    }

    #[test]
    fn a_ratio_outside_the_interval_is_written_with_the_digits_that_show_it() {
        // Two decimals where they show it apart.
        assert_eq!(digits_apart(0.80, 0.85, 0.90), 2);
        assert_eq!(digits_apart(1.09, 0.95, 0.98), 2);
        // 0.7496 beside 0.7512-0.7600: "0.75 lies outside (0.75-0.76)" reads false.
        assert_eq!(digits_apart(0.7496, 0.7512, 0.76), 3);
        assert_eq!(digits_apart(0.76004, 0.75, 0.76001), 5);
    }

    #[test]
    fn a_profile_outside_the_interval_says_the_verdict_decides() {
        let (codec, uring) = pair();
        let text = lines(&WORKLOADS[0], &[&codec, &uring], Some(&verdict(9.3)));
        assert!(
            text.contains("This profile's io_uring_server ÷ tokio codec (0.80) lies outside"),
            "{text}"
        );
        assert!(
            text.contains("the two disagree, and the verdict's rounds decide"),
            "{text}"
        );
    }

    #[test]
    fn without_a_verdict_run_the_cells_say_so() {
        let (codec, uring) = pair();
        let text = lines(&WORKLOADS[0], &[&codec, &uring], None);
        assert_eq!(text.matches(NO_RUN).count(), 3, "{text}");
        assert!(!text.contains("disagree"), "{text}");
        let missing = lines(
            &WORKLOADS[0],
            &[&codec, &uring],
            Some(&WorkloadsReport::over(Vec::new())),
        );
        assert!(missing.contains("n/a (not in the verdict run)"), "{missing}");
        assert!(missing.contains("n/a (0 rounds)"), "{missing}");
    }

    #[test]
    fn a_row_the_verdict_does_not_judge_shows_no_word() {
        let (codec, uring) = pair();
        let pipelined = WORKLOADS.iter().find(|w| w.name == "pipelined 16 deep").unwrap();
        let row = pipelined.row().unwrap();
        // One noisy round of the details, as the committed run has.
        let samples = [(IO_URING.id, 0.4), (TOKIO_CODEC.id, 0.5)]
            .map(|(id, value)| Sample {
                client_busy: Some(0.96),
                ..Sample::example(row.name, id, 0, value)
            })
            .to_vec();
        let verdict = WorkloadsReport::over(samples);
        let text = lines(pipelined, &[&codec, &uring], Some(&verdict));
        assert!(
            text.starts_with(
                "Beside the workloads study's row *pipelined 16 deep*, which the verdict does not judge ("
            ),
            "{text}"
        );
        assert!(text.contains(&format!("| {NOT_JUDGED} |")), "{text}");
        for word in [
            "client-bound",
            "wins",
            "ties",
            "loses",
            "inconclusive",
            "verdict row",
        ] {
            assert!(!text.contains(word), "{word}: {text}");
        }
        assert_eq!(verdict_cell(pipelined, Some(&verdict)).unwrap(), NOT_JUDGED);
    }

    #[test]
    fn a_file_workload_has_no_verdict_row() {
        let (codec, uring) = pair();
        let files = WORKLOADS.iter().find(|w| w.file_set().is_some()).unwrap();
        assert!(lines(files, &[&codec, &uring], None).starts_with("No verdict row"));
    }

    #[test]
    fn disagreement_is_outside_the_95_interval() {
        let estimate = Estimate::of(&[0.9, 0.95, 0.92, 0.93]).unwrap();
        assert!(!disagrees(0.93, &estimate));
        assert!(disagrees(1.17, &estimate));
        assert!(disagrees(0.5, &estimate));
    }
}

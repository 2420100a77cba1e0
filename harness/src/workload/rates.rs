//! How the offered workloads' rates were set, in words: per calibration, the rate at the
//! verdict's load as a share of every contender's capacity, with what each served flat out
//! and how busy the client was then ([`describe`]); and the paragraph under a verdict
//! table that says so for a report ([`offered_rates`]).

use super::offered::{self, Calibration, VERDICT_PERCENT};
use super::samples::WorkloadsReport;
use crate::format::rate as show_rate;

/// `calibration`'s rate at `percent`% load, as a share of every contender's capacity, the
/// client's busy share flat out beside each; said so where the rate was capped at what the
/// client could drive.
pub fn describe(calibration: &Calibration, percent: u32) -> String {
    let rate = calibration.rate(percent);
    let Some((smallest, capacity)) = calibration.smallest_capacity() else {
        return format!(
            "{}: {} req/s, {percent}% of the slowest flat-out figure ({}'s {} req/s; a report \
             from before capacities were measured)",
            calibration.workload,
            show_rate(rate),
            calibration.slowest_label(),
            show_rate(calibration.slowest),
        );
    };
    let cap = if calibration.capped(percent) {
        format!(
            ", {percent}% of the client's reach (the slowest flat-out figure, {}'s {} \
             req/s), since the smallest capacity ({smallest}'s {} req/s) is more than that",
            calibration.slowest_label(),
            show_rate(calibration.slowest),
            show_rate(capacity),
        )
    } else {
        String::new()
    };
    let shares: Vec<String> = calibration
        .flat_out
        .iter()
        .map(|f| {
            let flat = format!(
                "flat out it served {} req/s, the client {:.0}% busy",
                show_rate(f.requests_per_sec),
                f.client_busy * 100.0
            );
            match (f.capacity(), f.server_cpu_us) {
                (Some(capacity), Some(us)) => format!(
                    "{:.0}% of {}'s capacity ({} req/s = {}10^6 ÷ {us:.1} µs; {flat})",
                    rate / capacity * 100.0,
                    f.label,
                    show_rate(capacity),
                    if f.cpus > 1 {
                        format!("{} × ", f.cpus)
                    } else {
                        String::new()
                    },
                ),
                _ => format!("{}'s capacity unknown (no server CPU figure; {flat})", f.label),
            }
        })
        .collect();
    format!(
        "{}: {} req/s{cap}, which is {}",
        calibration.workload,
        show_rate(rate),
        shares.join(", ")
    )
}

/// How the offered workloads' rates were set, where the report has any.
pub fn offered_rates(report: &WorkloadsReport) -> String {
    if report.calibrations.is_empty() {
        return String::new();
    }
    let rates: Vec<String> = report
        .calibrations
        .iter()
        .map(|c| describe(c, VERDICT_PERCENT))
        .collect();
    format!(
        "\nRows \"at {VERDICT_PERCENT}% load\" offered every server the same open-loop rate, \
         {VERDICT_PERCENT}% of the smallest capacity among the contenders. A contender's \
         capacity is 10^6 ÷ its server CPU µs per request in a {:.1} s calibration run flat out \
         at the start, times its server CPUs where it had more than one: what its cores can \
         serve, whatever the client reached. Every \
         contender measured at that load counts, those shown in the details only too, so the \
         rate is at most {VERDICT_PERCENT}% of any server's capacity; where that was more than \
         the client could drive (the slowest requests/s it reached flat out), the rate is \
         {VERDICT_PERCENT}% of the client's reach instead, and the line says so. {}. A round in which a server served less than \
         {:.0}% of the offered rate (the answers that arrived within its scheduled window, over \
         that window, plus the round trips still in flight when it closed: the rate times the \
         mean round trip, at most one per connection; plus one request per window, since a \
         window holds a whole number of the schedule's slots) counts for nothing: a backlog is not a \
         cost per request. Rows \"saturated \
         closed loop\" drive every server as fast as the client can: their CPU per request is \
         the server's busy share divided by a rate the client sets, a capacity figure rather \
         than a cost.\n",
        offered::CALIBRATION.as_secs_f64(),
        rates.join("; "),
        offered::KEEP_UP * 100.0,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::offered::FlatOut;

    fn flat(label: &str, rps: f64, cpu_us: f64, busy: f64) -> FlatOut {
        FlatOut {
            label: label.into(),
            requests_per_sec: rps,
            server_cpu_us: Some(cpu_us),
            client_busy: busy,
            cpus: 1,
        }
    }

    #[test]
    fn the_rate_is_a_share_of_every_capacity() {
        let calibration = Calibration::new(
            "keep-alive",
            vec![flat("a", 90_000.0, 10.0, 0.99), flat("b", 50_000.0, 20.0, 0.6)],
        );
        let line = describe(&calibration, 50);
        assert!(line.starts_with("keep-alive: 25,000 req/s, which is"), "{line}");
        assert!(
            line.contains("25% of a's capacity (100,000 req/s = 10^6 ÷ 10.0 µs"),
            "{line}"
        );
        assert!(line.contains("50% of b's capacity (50,000 req/s"), "{line}");
        assert!(line.contains("the client 99% busy"), "{line}");
        assert!(line.contains("the client 60% busy"), "{line}");
        assert!(!line.contains("capped"), "{line}");
    }

    #[test]
    fn a_capped_rate_says_so() {
        let calibration = Calibration::new(
            "w",
            vec![flat("a", 20_000.0, 5.0, 1.0), flat("b", 30_000.0, 10.0, 1.0)],
        );
        let line = describe(&calibration, 50);
        assert!(line.starts_with("w: 10,000 req/s"), "{line}");
        assert!(
            line.contains("50% of the client's reach (the slowest flat-out figure, a's 20,000 req/s)"),
            "{line}"
        );
        assert!(
            line.contains("the smallest capacity (b's 100,000 req/s)"),
            "{line}"
        );
    }

    #[test]
    fn an_old_report_says_what_its_rate_was() {
        let json = r#"{"workload":"w","served":[["a",120000.0],["b",100000.0]],"slowest":100000.0}"#;
        let calibration: Calibration = serde_json::from_str(json).unwrap();
        let line = describe(&calibration, 50);
        assert!(
            line.contains("50,000 req/s, 50% of the slowest flat-out figure (b's 100,000"),
            "{line}"
        );
        let mut report = WorkloadsReport::over(Vec::new());
        assert_eq!(offered_rates(&report), "");
        report.calibrations.push(calibration);
        assert!(offered_rates(&report).contains(&line));
    }
}

//! The PROFILES section of BENCHMARKS.md: one table of every contender's server CPU per
//! request (or connection) at every workload profiled, and under it, per workload, where
//! io_uring_server saves or loses against tokio codec ([`difference::sentence`]) and what
//! the verdict's rounds say at that load ([`against_verdict::verdict_cell`]), all under a
//! one-line provenance. The tables by category, the checks on perf's count and the flame
//! graphs stay in `results/profiles.md`.

use std::fmt::Write as _;

use crate::profiles::{Profile, ProfilesReport, WORKLOADS, reach};
use crate::profiles::{against_verdict, difference};
use harness::rounds::{first_seen, short_line};

/// The section: provenance, the summary table, the sentences and the link to the rest.
pub fn section(report: &ProfilesReport) -> String {
    let mut out = short_line(
        "scripts/profiles.sh",
        &report.machine,
        &format!(
            "one profile of {} s per workload and server",
            report.seconds_per_profile
        ),
    );
    out.push_str("\n\n");
    let contenders = first_seen(
        report
            .profiles
            .iter()
            .map(|p| (p.contender.as_str(), p.label.as_str())),
    );
    let labels: Vec<&str> = contenders.iter().map(|(_, label)| *label).collect();
    let _ = writeln!(
        out,
        "Server CPU µs per request (per connection for churn), measured from /proc while \
         every server was offered the same load:\n\n| workload | {} |\n|---|{}",
        labels.join(" | "),
        "---|".repeat(labels.len())
    );
    let mut sentences = Vec::new();
    for workload in WORKLOADS {
        let profiles: Vec<&Profile> = report.of(workload.name).collect();
        if profiles.is_empty() {
            continue;
        }
        let cells: Vec<String> = contenders
            .iter()
            .map(|(id, _)| {
                profiles.iter().find(|p| p.contender == *id).map_or(
                    match workload.tls() {
                        true => "no TLS".into(),
                        false => "n/a".into(),
                    },
                    |p| format!("{:.2}", p.server_cpu_us),
                )
            })
            .collect();
        let _ = writeln!(out, "| {} | {} |", workload.label(), cells.join(" | "));
        if let Some(sentence) = difference::sentence(&workload, &profiles) {
            let verdict = against_verdict::verdict_cell(&workload, report.verdict.as_ref())
                .map(|cell| format!(" The verdict's rounds at this load: {cell}."))
                .unwrap_or_default();
            sentences.push(format!("- {}: {sentence}{verdict}", workload.label()));
        }
        if let Some(sentence) = workload
            .tls()
            .then(|| reach::crypto_sentence(&profiles, workload.unit()))
            .flatten()
        {
            sentences.push(format!("- {}: {sentence}", workload.label()));
        }
    }
    let _ = writeln!(
        out,
        "\n{}\n\nPer workload, the CPU by category, how far the event loop reaches and the \
         flame graphs: [results/profiles.md](results/profiles.md).",
        sentences.join("\n")
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profiles::test_profiles::pair;

    #[test]
    fn one_row_per_workload_profiled_and_no_table_by_category() {
        let (codec, uring) = pair();
        let mut machine = harness::machine::Machine::detect();
        machine.git_commit = "abc1234".into();
        let report = ProfilesReport {
            machine,
            pinning: "server on CPU 0, client on CPU 1".into(),
            seconds_per_profile: 3.0,
            calibration: Vec::new(),
            profiles: vec![codec, uring],
            verdict: None,
        };
        let text = section(&report);
        let first = text.lines().next().unwrap_or_default();
        assert_eq!(harness::stale::commit_of(first), Some("abc1234"), "{first}");
        assert!(
            first.ends_with("; one profile of 3 s per workload and server; method: [Method](#method)."),
            "{first}"
        );
        assert!(
            text.contains("| workload | tokio_server (codec) | io_uring_server |"),
            "{text}"
        );
        let row = format!("| {} | 10.00 | 8.00 |", WORKLOADS[0].name);
        assert!(text.contains(&row), "{text}");
        assert_eq!(text.matches("\n| ").count(), 2, "header and one row: {text}");
        assert!(
            text.contains(&format!(
                "- {}: io_uring_server spends 2.00 µs less",
                WORKLOADS[0].name
            )),
            "{text}"
        );
        assert!(
            text.contains("[results/profiles.md](results/profiles.md)"),
            "{text}"
        );
        assert!(
            !text.contains("flame graph |") && !text.contains("HTTP code |"),
            "{text}"
        );
    }
}

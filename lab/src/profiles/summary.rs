//! The PROFILES section of BENCHMARKS.md: one table of every contender's server CPU per
//! request (or connection) at every workload profiled, under a one-line provenance, and
//! where the ready runtimes' extra CPU lies by category ([`super::ready_extra`]). Where
//! io_uring_server saves or loses against tokio codec, what the verdict's rounds say at
//! that load, crypto's share over TLS, the tables by category, the checks on perf's count
//! and the flame graphs stay in `results/profiles.md` ([`super::report`]).

use std::fmt::Write as _;

use crate::profiles::{Profile, ProfilesReport, WORKLOADS};
use harness::rounds::{first_seen, short_line};

/// The section: provenance, the summary table and the link to the rest.
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
         every server served the same load (the same open-loop rate, or a closed loop where \
         the workload is one):\n\n| workload | {} |\n|---|{}",
        labels.join(" | "),
        "---|".repeat(labels.len())
    );
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
    }
    if let Some(sentence) = super::ready_extra::sentence(report) {
        let _ = writeln!(out, "\n{sentence}");
    }
    let _ = writeln!(
        out,
        "\nPer workload, where io_uring_server saves or loses against tokio codec and what the \
         verdict's rounds say at that load, the CPU by category, crypto's share over TLS, how \
         far the event loop reaches and the flame graphs: \
         [results/profiles.md](results/profiles.md)."
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profiles::test_profiles::pair;

    #[test]
    fn one_row_per_workload_profiled_and_no_table_by_category_or_sentence() {
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
            !text.contains("io_uring_server spends") && !text.contains("\n- "),
            "the sentences per workload are results/profiles.md's: {text}"
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

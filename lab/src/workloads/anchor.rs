//! The outside anchor judged: on the verdict's file rows nginx runs every round beside
//! io_uring_server ([`super::every_round`]), so the sentence under such a row's detail
//! table gives io_uring_server ÷ nginx by the verdict's rule, with the rounds in which
//! either fell behind the offered rate left out and said.

use harness::judge;
use harness::servers::NGINX;
use harness::workload::cells::fell_behind;

use crate::workloads::{SUBJECT, WorkloadsReport};

/// "io_uring_server ÷ nginx (outside anchor), run every round of this row, server CPU µs
/// per request in the same rounds: 1.02 (0.95-1.10, 6 rounds) **ties**.": `None` where
/// nginx did not run
/// `workload` in more than one round.
pub fn sentence(report: &WorkloadsReport, workload: &str) -> Option<String> {
    let rounds = report.of(workload, NGINX.id).count();
    if rounds < 2 {
        return None;
    }
    let known = crate::workloads::WORKLOADS.iter().find(|w| w.name == workload)?;
    let ratios = report.ratios_of(known, (SUBJECT.id, NGINX.id));
    let behind = fell_behind(report, workload, (SUBJECT.id, NGINX.id))
        .map_or(String::new(), |why| format!(" ({why})"));
    Some(format!(
        "{} ÷ {}, run every round of this row, {} in the same rounds: {}{behind}.",
        SUBJECT.label,
        NGINX.label,
        known.unit().describe(),
        judge::cell(&ratios)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use harness::workload::samples::Sample;

    #[test]
    fn nginx_is_judged_where_it_ran_every_round_and_silent_where_once() {
        let name = "1 MiB files, 16 connections at a fixed rate";
        let mut samples = Vec::new();
        for round in 0..4 {
            samples.push(Sample::example(name, SUBJECT.id, round, 90.0));
            samples.push(Sample::example(name, NGINX.id, round, 100.0 + round as f64));
        }
        let report = WorkloadsReport::over(samples.clone());
        let said = sentence(&report, name).expect("four rounds");
        assert!(said.starts_with("io_uring_server ÷ nginx"), "{said}");
        assert!(said.contains("4 rounds") && said.contains("**wins**"), "{said}");
        samples.retain(|s| s.contender != NGINX.id || s.round == 0);
        assert_eq!(sentence(&WorkloadsReport::over(samples), name), None);
    }
}

//! Your own servers in the verdict's lineup (`scripts/workloads.sh --server
//! 'NAME=COMMAND {port}'`): each runs every round beside the verdict's contenders, and this
//! table judges io_uring_server against it by the verdict's rule, row for row as the
//! verdict judges tokio. Such a run writes `results/partial/workloads.{md,json}` (or where `--out`
//! says), never the committed verdict.

use std::fmt::Write as _;

use crate::workloads::{SUBJECT, WORKLOADS, Workload, WorkloadsReport};
use harness::judge;
use harness::workload::client_bound;

/// The table: per judged workload and row, io_uring_server ÷ each outside server; empty
/// when the report has none.
pub fn render(report: &WorkloadsReport) -> String {
    if report.outside.is_empty() {
        return String::new();
    }
    let header: Vec<String> = report.outside.iter().map(|o| format!("÷ {o}")).collect();
    let mut out = format!(
        "## io_uring_server against your servers\n\n\
         Each cell is {} (this checkout) ÷ your server in the same round, lower is better \
         for io_uring_server (for requests/s, your server's ÷ io_uring_server's, so below 1 \
         favours io_uring_server there too): *wins* means io_uring_server costs less, \
         *loses* that your server does. Judged by the verdict's rule. {}\n\n\
         | workload | measure | {} |\n|---|---|{}\n",
        SUBJECT.label,
        judge::METHOD,
        header.join(" | "),
        "---|".repeat(header.len())
    );
    for workload in &judged_rows(report) {
        for unit in workload.verdict_units() {
            let cells: Vec<String> = report
                .outside
                .iter()
                .map(|id| {
                    let pair = (SUBJECT.id, id.as_str());
                    let ratios = report.ratios_in(workload, unit, pair);
                    match report.client_bound(workload.name) {
                        Some(busy) => client_bound::cell(&ratios, busy),
                        None => judge::cell(&ratios),
                    }
                })
                .collect();
            let _ = writeln!(
                out,
                "| {} | {} | {} |",
                report.rate_label(workload),
                unit.describe(),
                cells.join(" | ")
            );
        }
    }
    let bound = judged_rows(report)
        .iter()
        .any(|w| report.client_bound(w.name).is_some());
    if bound {
        let _ = writeln!(out, "\n{}", client_bound::explain());
    }
    out.push('\n');
    out
}

/// The workloads the verdict judges that `report` measured, in the catalogue's order.
fn judged_rows(report: &WorkloadsReport) -> Vec<Workload> {
    let measured = report.workloads();
    WORKLOADS
        .iter()
        .copied()
        .filter(|w| measured.iter().any(|m| m == w.name) && report.is_judged(w.name))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workloads::Sample;

    #[test]
    fn each_outside_server_gets_a_judged_column_and_none_means_no_section() {
        let name = "keep-alive, small requests at a fixed rate";
        let mut samples = Vec::new();
        for round in 0..6 {
            let jitter = 1.0 + round as f64 * 0.001;
            samples.push(Sample::example(name, SUBJECT.id, round, 10.0 * jitter));
            samples.push(Sample::example(name, "mine", round, 20.0));
        }
        let mut report = WorkloadsReport::over(samples);
        assert_eq!(render(&report), "");
        report.outside = vec!["mine".into()];
        let table = render(&report);
        assert!(table.contains("| workload | measure | ÷ mine |"), "{table}");
        let row = table
            .lines()
            .find(|l| l.starts_with(&format!("| {name} |")))
            .unwrap();
        assert!(
            row.contains("0.50 (") && row.contains("**wins** by ≥10%"),
            "{row}"
        );
    }
}

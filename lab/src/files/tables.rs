//! The file report's comparison tables and per-point details: tokio's io_uring fs path
//! against its epoll twin, every server against nginx, and each point's figures by server.

use std::fmt::Write as _;

use harness::judge;
use harness::servers::nginx::ANCHOR_NOTE;
use harness::servers::{AA_CONTROL, NGINX};

use crate::files::{FilesReport, median, spread};

pub(super) fn twins(out: &mut String, report: &FilesReport) {
    let _ = writeln!(out, "## How far tokio's io_uring fs path moves tokio\n");
    if report.twins.is_empty() {
        let _ = writeln!(
            out,
            "No io-uring-fs contender was in this run's lineup (`FS_TWINS` in \
             `lab/src/files/mod.rs` names them).\n"
        );
        return;
    }
    let label = |id: &str| {
        report
            .contenders()
            .into_iter()
            .find(|(i, _)| i == id)
            .map_or(id.to_string(), |(_, label)| label)
    };
    let _ = writeln!(
        out,
        "CPU per request of tokio with its io_uring fs path ÷ the same engine on epoll \
         (tokio's blocking pool for files). {}\n",
        judge::METHOD
    );
    let _ = writeln!(
        out,
        "| workload | {} |",
        report
            .twins
            .iter()
            .map(|t| format!("{} ÷ {}", label(&t.io_uring_fs), label(&t.epoll)))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let _ = writeln!(out, "|---|{}", "---|".repeat(report.twins.len()));
    for workload in report.workloads() {
        let cells: Vec<String> = report
            .twins
            .iter()
            .map(|t| judge::cell(&report.ratios(&workload, &t.io_uring_fs, &t.epoll)))
            .collect();
        let _ = writeln!(out, "| {} | {} |", super::label(&workload), cells.join(" | "));
    }
    out.push('\n');
}

pub(super) fn against_nginx(out: &mut String, report: &FilesReport) {
    let _ = writeln!(out, "## How close each server comes to nginx's sendfile\n");
    if !report.has_nginx() {
        let _ = writeln!(
            out,
            "nginx was not measured in this run (not installed: `scripts/nginx.sh` installs \
             it; or left out by `--servers`): its ratios are skipped.\n"
        );
        return;
    }
    let servers = compared(report);
    if servers.is_empty() {
        let _ = writeln!(out, "{ANCHOR_NOTE} No other server was measured in this run.\n");
        return;
    }
    let _ = writeln!(
        out,
        "{ANCHOR_NOTE} Each cell: the server's CPU per request ÷ nginx's, median (range) over \
         the rounds; below 1 is cheaper than nginx.\n"
    );
    let labels: Vec<&str> = servers.iter().map(|(_, label)| label.as_str()).collect();
    let _ = writeln!(out, "| workload | {} |", labels.join(" | "));
    let _ = writeln!(out, "|---|{}", "---|".repeat(servers.len()));
    for workload in report.workloads() {
        let cells: Vec<String> = servers
            .iter()
            .map(|(id, _)| spread(&report.ratios(&workload, id, NGINX.id)))
            .collect();
        let _ = writeln!(out, "| {} | {} |", super::label(&workload), cells.join(" | "));
    }
    out.push('\n');
}

pub(super) fn details(out: &mut String, report: &FilesReport, workload: &str) {
    let _ = writeln!(out, "## {}\n", super::label(workload));
    let _ = writeln!(
        out,
        "| server | CPU µs/request by round | median | req/s | p50 µs | p99 µs | from disk: MiB, share of bytes sent | threads (most) | bottleneck (last round) |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|---|");
    for (id, label) in report.contenders() {
        let samples: Vec<_> = report
            .samples
            .iter()
            .filter(|s| s.workload == workload && s.contender == id)
            .collect();
        let by_round: Vec<String> = report.cpu(workload, &id).into_iter().map(cpu_text).collect();
        let middle = |values: Vec<f64>, digits: usize| {
            median(&values).map_or("n/a".into(), |v| format!("{v:.digits$}"))
        };
        let rps = middle(samples.iter().map(|s| s.requests_per_sec).collect(), 0);
        let p50 = middle(samples.iter().map(|s| s.p50_us as f64).collect(), 0);
        let p99 = middle(samples.iter().map(|s| s.p99_us as f64).collect(), 0);
        let disk: Vec<f64> = samples
            .iter()
            .filter_map(|s| Some(s.watched?.disk_read_bytes as f64 / (1 << 20) as f64))
            .collect();
        let share: Vec<f64> = samples.iter().filter_map(|s| s.from_disk()).collect();
        let from_disk = match (median(&disk), median(&share)) {
            (Some(mib), Some(share)) => format!("{mib:.1}, {:.1}%", share * 100.0),
            _ => "n/a".into(),
        };
        let threads = samples.iter().filter_map(|s| Some(s.watched?.max_threads)).max();
        let _ = writeln!(
            out,
            "| {label} | {} | {} | {rps} | {p50} | {p99} | {from_disk} | {} | {} |",
            by_round.join(" "),
            cpu_text(report.median_cpu(workload, &id)),
            threads.map_or("n/a".into(), |t| t.to_string()),
            samples.last().map_or("n/a", |s| s.bottleneck.as_str()),
        );
    }
    out.push('\n');
}

/// The contenders in a comparison: neither the anchor nor the A/A control.
pub(super) fn compared(report: &FilesReport) -> Vec<(String, String)> {
    let mut all = report.contenders();
    all.retain(|(id, _)| id != NGINX.id && id != AA_CONTROL.id);
    all
}

pub(super) fn cpu_text(value: Option<f64>) -> String {
    value.map_or("n/a".into(), |v| format!("{v:.1}"))
}

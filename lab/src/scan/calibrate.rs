//! Is loadgen what the scan measures? At a few counts, loadgen and wrk (where installed)
//! drive the same server for the same time, one after the other, and the report sets
//! their requests/s and client CPU per request side by side. wrk checks no body, so its
//! figures calibrate the client only and appear nowhere else.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::scan::{Calibration, ScanReport};
use harness::cpu::{Snapshot, children_cpu_time};
use harness::load::{self, Load, LoadKind};
use harness::progress::Progress;
use harness::servers::Server;
use harness::settings::Pinning;

/// The counts calibrated: few (where the issue found loadgen short), some, many.
pub const CONNECTIONS: [usize; 3] = [4, 16, 256];

/// Whether wrk is on the PATH.
pub fn wrk_installed() -> bool {
    Command::new("wrk")
        .arg("--version")
        .output()
        .is_ok_and(|o| !o.stdout.is_empty() || !o.stderr.is_empty())
}

/// loadgen then wrk against `server` at each of [`CONNECTIONS`], `seconds` each.
pub fn run(
    server: &Server,
    pinning: &Pinning,
    seconds: f64,
    progress: &mut Progress,
) -> Result<Vec<Calibration>, String> {
    let mut rows = Vec::new();
    for connections in CONNECTIONS {
        progress.step(&format!(
            "calibration at {connections} connections: loadgen, then wrk"
        ));
        let load = Load::new(
            LoadKind::Closed,
            (connections, 1),
            None,
            Duration::from_secs_f64(seconds),
            pinning,
        );
        let point = load::run_point(server, load)?;
        rows.push(Calibration {
            tool: "loadgen".into(),
            connections,
            requests_per_sec: point.requests_per_sec,
            client_cpu_us_per_request: point.client_cpu_us_per_request,
            server_cpu_us_per_request: point.server_cpu_us_per_request,
            client_busy: point.client_busy,
        });
        rows.push(wrk(server, connections, load.client_threads, seconds)?);
    }
    Ok(rows)
}

/// One wrk run; its CPU is what this process's waited-for children used meanwhile.
fn wrk(server: &Server, connections: usize, threads: usize, seconds: f64) -> Result<Calibration, String> {
    let before = server.pid().map(Snapshot::take).transpose()?;
    let (children_before, start) = (children_cpu_time(), Instant::now());
    let output = Command::new("wrk")
        .args([
            format!("-t{}", threads.min(connections)),
            format!("-c{connections}"),
            format!("-d{}s", seconds.ceil() as u64),
            format!("{}/", server.base_url),
        ])
        .output()
        .map_err(|e| format!("cannot run wrk: {e}"))?;
    let wall = start.elapsed().as_secs_f64();
    let client = (children_cpu_time() - children_before).as_secs_f64();
    let server_cpu = match (server.pid(), before) {
        (Some(pid), Some(before)) => Some(Snapshot::take(pid)?.since(&before).as_secs_f64()),
        _ => None,
    };
    let text = String::from_utf8_lossy(&output.stdout);
    let (requests, requests_per_sec) = parse_wrk(&text)?;
    Ok(Calibration {
        tool: "wrk".into(),
        connections,
        requests_per_sec,
        client_cpu_us_per_request: client * 1e6 / requests.max(1) as f64,
        server_cpu_us_per_request: server_cpu.map(|s| s * 1e6 / requests.max(1) as f64),
        client_busy: client / (wall * threads.max(1) as f64),
    })
}

/// Requests and requests/s from wrk's summary; an error if any response was not 2xx or
/// any socket error was counted.
pub fn parse_wrk(text: &str) -> Result<(u64, f64), String> {
    if let Some(line) = text
        .lines()
        .find(|l| l.contains("Non-2xx") || l.contains("Socket errors"))
    {
        return Err(format!("wrk saw errors: {}", line.trim()));
    }
    let requests = text
        .lines()
        .find(|l| l.contains("requests in"))
        .and_then(|l| l.split_whitespace().next()?.parse().ok());
    let rate = text
        .lines()
        .find_map(|l| l.strip_prefix("Requests/sec:"))
        .and_then(|v| v.trim().parse().ok());
    requests
        .zip(rate)
        .ok_or_else(|| format!("cannot read wrk's summary: {text}"))
}

/// The calibration's section of the report.
pub fn section(report: &ScanReport) -> String {
    if report.calibration.is_empty() {
        return "\n## Calibration\n\nwrk was not installed (`apt-get install wrk`): loadgen was not \
                calibrated against it in this run.\n"
            .into();
    }
    let mut out = String::from(
        "\n## Calibration: loadgen against wrk\n\nThe same server (tokio_server, codec), the same \
         time, loadgen then wrk (`wrk -t1 -cN`), once per count. loadgen checks every response's \
         status and body; wrk checks none, so this table calibrates the client only. Where loadgen \
         costs no more client CPU per request than wrk, the scan's figures are not loadgen's \
         limits.\n\n| connections | tool | requests/s | client CPU µs/request | client busy | server CPU µs/request |\n|---|---|---|---|---|---|\n",
    );
    for row in &report.calibration {
        out.push_str(&format!(
            "| {} | {} | {} | {:.2} | {:.0}% | {} |\n",
            row.connections,
            row.tool,
            harness::format::group_thousands(row.requests_per_sec),
            row.client_cpu_us_per_request,
            row.client_busy * 100.0,
            row.server_cpu_us_per_request
                .map_or("n/a".into(), |v| format!("{v:.2}"))
        ));
    }
    out
}

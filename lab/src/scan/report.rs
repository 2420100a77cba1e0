//! `results/scan.md` and `results/scan.json`: per count and contender, the medians over
//! rounds (requests/s, server CPU per request, p50/p99) with every client-bound point
//! marked; then the checks the scan exists for (the default io_uring_server against
//! itself with batched waits, and against the codec on tokio), each judged against the
//! scan's own A/A spread; then loadgen's calibration against wrk.

use std::path::Path;

use crate::scan::{
    BATCHED, CLIENT_SATURATED, CONNECTIONS, CONTROL, CPU, Metric, RPS, ScanReport, VERSUS_CODEC,
};
use harness::format::group_thousands;
use harness::judge::{self, Word};
use harness::output::write_json;
use harness::rounds::provenance;
use harness::servers::nginx::ANCHOR_NOTE;
use harness::servers::{ANCHORS, FLOOR_TOKIO, FLOOR_URING, IO_URING};

/// Writes `scan.json`, `scan.md` and the plots into `results`.
pub fn write_all(results: &Path, report: &ScanReport) -> Result<(), String> {
    std::fs::create_dir_all(results).map_err(|e| e.to_string())?;
    write_json(&results.join("scan.json"), report)?;
    std::fs::write(results.join("scan.md"), render(report)).map_err(|e| e.to_string())?;
    crate::scan::plots::draw_all(results, report)
}

pub fn render(report: &ScanReport) -> String {
    let mut out = format!(
        "# Concurrency scan\n\n{}{} Closed loop of `GET /` (loadgen, every response's status and body \
         checked) at {} connections.\n\nPlots: [requests/s](scan_rps.svg), \
         [server CPU per request](scan_cpu.svg), both against connections on a log axis.\n",
        provenance(
            "scripts/scan.sh",
            &report.machine,
            &report.pinning,
            (report.rounds, report.seconds_per_point)
        ),
        harness::slices::describe(report.slices),
        CONNECTIONS.map(|c| c.to_string()).join(", "),
    );
    out.push_str(&answer(report));
    if report
        .contenders
        .iter()
        .any(|(id, _)| ANCHORS.iter().any(|a| a.id == id))
    {
        out.push_str(&format!("\n{ANCHOR_NOTE}\n"));
    }
    out.push_str(&format!(
        "\nEach cell is the median over the rounds. **‡**: in at least one round the client's \
         CPU was {:.0}% busy or more, so the client, not the server, may have set the pace there \
         (requests/s is then a floor of what the server can do; CPU per request still counts \
         the server's work).\n",
        CLIENT_SATURATED * 100.0
    ));
    let medians = |title: &str, metric: Metric, show: fn(f64) -> String| {
        table(report, title, |id, c| {
            let value = report.median(id, c, metric).map_or("n/a".into(), show);
            let mark = if report.client_bound(id, c) { " ‡" } else { "" };
            format!("{value}{mark}")
        })
    };
    out.push_str(&medians("Requests/s", RPS, group_thousands));
    out.push_str(&medians("Server CPU per request (µs)", CPU, |v| {
        format!("{v:.2}")
    }));
    out.push_str(&medians(
        "Whole-machine CPU per request (µs): server, client and kernel on every CPU",
        Metric::MachineCpuPerRequest,
        |v| format!("{v:.2}"),
    ));
    out.push_str(&table(report, "Latency p50 / p99 (µs)", |id, c| {
        let p = |metric: Metric| {
            report
                .median(id, c, metric)
                .map_or("n/a".into(), |v| format!("{v:.0}"))
        };
        format!("{} / {}", p(Metric::P50), p(Metric::P99))
    }));
    out.push_str(&table(
        report,
        "Client CPU busy (share of its CPUs, lowest-highest round)",
        |id, c| {
            let shares: Vec<f64> = report
                .points_at(id, c)
                .map(|p| p.point.client_busy * 100.0)
                .collect();
            match (
                shares.iter().copied().reduce(f64::min),
                shares.iter().copied().reduce(f64::max),
            ) {
                (Some(low), Some(high)) => format!("{low:.0}-{high:.0}%"),
                _ => "n/a".into(),
            }
        },
    ));
    out.push_str(&checks(report));
    out.push_str(&crate::scan::calibrate::section(report));
    out
}

/// The one paragraph a reader needs: where the default stands against batched waits and
/// against the codec engine.
fn answer(report: &ScanReport) -> String {
    let behind = report.default_behind_batching();
    let batching = if behind.is_empty() {
        "at no count does the rule find the default io_uring_server (batched waits off) \
         behind itself with batched waits on, in requests/s or in server CPU per request"
            .to_string()
    } else {
        format!(
            "the rule finds the default io_uring_server behind itself with batched waits on at \
             {} connections (see the checks below)",
            behind
                .iter()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let words = |metric: Metric| -> String {
        let mut counts = [0; 4];
        for c in CONNECTIONS {
            counts[match report.judge(VERSUS_CODEC, c, metric) {
                Word::Wins => 0,
                Word::Ties => 1,
                Word::Loses => 2,
                _ => 3,
            }] += 1;
        }
        format!(
            "wins at {}, ties at {}, loses at {}, inconclusive at {}",
            counts[0], counts[1], counts[2], counts[3]
        )
    };
    format!(
        "\n**The answer.** In this run {batching}. Against tokio_server (codec), io_uring_server \
         {} of the {} counts on server CPU per request, and {} on requests/s. {}\n",
        words(CPU),
        CONNECTIONS.len(),
        words(RPS),
        one_connection(report)
    )
}

/// At one connection: io_uring_server against the codec, beside the bare io_uring loop
/// against the bare tokio loop, so the share the I/O model itself costs is in view.
fn one_connection(report: &ScanReport) -> String {
    let ratio = |pair: (&str, &str)| judge::cell(&report.cost_ratios(pair, 1, CPU));
    format!(
        "At one connection io_uring_server's server CPU per request is {} of the codec's, \
         and a bare io_uring loop's is {} of a bare tokio loop's: that second ratio is what the I/O model itself costs or saves there, with no \
         HTTP code of ours in either.",
        ratio(VERSUS_CODEC),
        ratio((FLOOR_URING.id, FLOOR_TOKIO.id))
    )
}

/// A table with a row per connection count and a column per contender.
fn table(report: &ScanReport, title: &str, cell: impl Fn(&str, usize) -> String) -> String {
    let mut out = format!("\n## {title}\n\n| connections |");
    for (_, label) in &report.contenders {
        out.push_str(&format!(" {label} |"));
    }
    out.push_str(&format!("\n|---|{}\n", "---|".repeat(report.contenders.len())));
    for c in CONNECTIONS {
        out.push_str(&format!("| {c} |"));
        for (id, _) in &report.contenders {
            out.push_str(&format!(" {} |", cell(id, c)));
        }
        out.push('\n');
    }
    out
}

/// Per count, the cost ratios (per round: CPU per request, and requests/s inverted, so
/// below 1 is better for the first) of the default against batched waits, the A/A
/// control, and io_uring_server against the codec engine, each with its word.
fn checks(report: &ScanReport) -> String {
    let mut out = format!(
        "\n## Checks\n\nA cost ratio is subject ÷ baseline for server CPU per request and \
         baseline ÷ subject for requests/s, so below 1 always favours the subject. {} The A/A \
         control (a second default io_uring_server against the first) must read *ties*; with \
         the scan's few rounds it often cannot tell.\n\n\
         | connections | default ÷ batched waits: CPU | requests/s | A/A control ÷ default: CPU | requests/s | \
         io_uring_server ÷ tokio codec: CPU | requests/s |\n|---|---|---|---|---|---|---|\n",
        judge::METHOD
    );
    let cell =
        |pair: (&str, &str), c: usize, metric: Metric| judge::cell(&report.cost_ratios(pair, c, metric));
    for c in CONNECTIONS {
        let row: Vec<String> = [(IO_URING.id, BATCHED.id), (CONTROL.id, IO_URING.id), VERSUS_CODEC]
            .iter()
            .flat_map(|&pair| [cell(pair, c, CPU), cell(pair, c, RPS)])
            .collect();
        out.push_str(&format!("| {c} | {} |\n", row.join(" | ")));
    }
    out
}

//! BENCHMARKS.md's "What the client costs against the server": on every row the workloads
//! study calibrated, loadgen's CPU per request against io_uring_server's, at the verdict's
//! fixed rate and flat out, from the run's one results file. At the fixed rate each side
//! sleeps between requests and wakes for the next, and the client also wakes for its
//! schedule; flat out (the calibration's closed loop) neither side sleeps long, so that
//! column is what the client's code costs against the server's.

use std::path::Path;

use crate::workloads::WorkloadsReport;
use crate::workloads::worth::micros;
use harness::output::rewrite_benchmarks_section;
use harness::workload::SUBJECT;
use harness::workload::verdict::short_provenance;

pub const CLIENT: (&str, &str) = (
    "<!-- BEGIN CLIENT: scripts/workloads.sh rewrites this section -->",
    "<!-- END CLIENT -->",
);

/// Writes the section into BENCHMARKS.md.
pub fn write(workspace: &Path, report: &WorkloadsReport) -> Result<(), String> {
    rewrite_benchmarks_section(workspace, CLIENT, &section(report))
}

/// A row's (client, io_uring_server) µs per request at the fixed rate and flat out.
type Pair = Option<(f64, f64)>;

/// The section: what the columns are, how many rows the client cost more on in each, and
/// the table.
pub fn section(report: &WorkloadsReport) -> String {
    let provenance = short_provenance(report, "scripts/workloads.sh");
    let rows: Vec<(&str, Pair, Pair)> = report
        .calibrations
        .iter()
        .map(|c| {
            let base = c.workload.as_str();
            (
                base,
                report.client_and_subject_at_rate(base),
                report.client_and_subject_flat_out(base),
            )
        })
        .filter(|(_, at_rate, flat_out)| at_rate.is_some() || flat_out.is_some())
        .collect();
    if rows.is_empty() {
        return format!("{provenance}\n\nThis run recorded no client CPU beside the servers'.");
    }
    let more = |pair: Pair| pair.map(|(client, server)| client > server);
    let count = |pick: &dyn Fn(&(&str, Pair, Pair)) -> Pair| {
        let measured: Vec<bool> = rows.iter().filter_map(|row| more(pick(row))).collect();
        let above = measured.iter().filter(|more| **more).count();
        format!("{above} of {} rows", measured.len())
    };
    // Rows on one side of 1.00 at the rate and on the other flat out.
    let crossing = rows
        .iter()
        .filter(|(_, at_rate, flat_out)| matches!((more(*at_rate), more(*flat_out)), (Some(a), Some(b)) if a != b))
        .count();
    let crossing = match crossing {
        0 => String::new(),
        1 => " (1 row is on one side at the rate and on the other flat out)".into(),
        n => format!(" ({n} rows are on one side at the rate and on the other flat out)"),
    };
    let mut table = format!(
        "| row | client µs per request at the fixed rate | {s}'s server CPU µs per request | \
         client ÷ {s} | client µs per request flat out | {s}'s server CPU µs per request | \
         client ÷ {s} |\n|---|---|---|---|---|---|---|\n",
        s = SUBJECT.label
    );
    for (base, at_rate, flat_out) in &rows {
        table.push_str(&format!(
            "| {base} | {} | {} |\n",
            cells(*at_rate),
            cells(*flat_out)
        ));
    }
    format!(
        "{provenance}\n\nloadgen's CPU per request (its busy share of one CPU ÷ the requests/s \
         answered) against {s}'s own server CPU per request, on every row the study \
         calibrated (the verdict's and those beyond it): at the row's fixed rate, the one \
         every server was offered (the medians over {s}'s rounds, as the rates table in \
         [results/workloads.md](results/workloads.md) gives them), and flat out in the \
         calibration, a closed loop. At the fixed rate both sides sleep between \
         requests and pay a wake-up for the next, and the client also wakes for its \
         schedule; flat out neither side sleeps long, so that column is what the client's \
         code costs against the server's.\n\nWhere the client costs more even flat out, it does \
         more of the work: on loopback the sender's CPU runs the receiving end's TCP \
         processing too, so the client pays for both ends of what it sends (an upload's \
         body, most of each handshake it opens); a TLS client verifies what the server \
         signs; and where a server hands a file to TCP with sendfile, the client still reads \
         and checks every byte. \
         The client cost more than {s} on {} at the fixed rate and on {} flat \
         out{crossing}.\n\n{table}",
        count(&|row| row.1),
        count(&|row| row.2),
        s = SUBJECT.label
    )
}

/// "7.5 | 5.6 | 1.34×", or "n/a" thrice.
fn cells(pair: Pair) -> String {
    match pair {
        Some((client, server)) => format!(
            "{} | {} | {:.2}×",
            micros(client),
            micros(server),
            client / server
        ),
        None => "n/a | n/a | n/a".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use harness::servers::TOKIO_CODEC;
    use harness::workload::offered::{Calibration, FlatOut};
    use harness::workload::samples::Sample;

    const ROW: &str = "keep-alive, small requests at a fixed rate";
    const BASE: &str = "keep-alive, small requests";

    fn at_rate(contender: &str, round: usize, server_us: f64, client_busy: f64) -> Sample {
        Sample::example_with_client(ROW, contender, round, server_us, client_busy)
    }

    fn flat(label: &str, requests_per_sec: f64, server_cpu_us: f64, client_busy: f64) -> FlatOut {
        FlatOut {
            label: label.into(),
            requests_per_sec,
            server_cpu_us: Some(server_cpu_us),
            client_busy,
            cpus: 1,
        }
    }

    #[test]
    fn each_row_sets_the_client_against_io_uring_server_at_the_rate_and_flat_out() {
        // At the rate: 60% of a CPU at 100,000 req/s is 6 µs a request, the server's 4.
        // Flat out: 90% at 300,000 req/s is 3 µs, the server's 3.75.
        let mut report = WorkloadsReport::over(vec![
            at_rate(SUBJECT.id, 0, 4.0, 0.6),
            at_rate(SUBJECT.id, 1, 4.0, 0.6),
            at_rate(TOKIO_CODEC.id, 0, 5.0, 0.9),
        ]);
        report.calibrations.push(Calibration::new(
            BASE,
            vec![
                flat(SUBJECT.label, 300_000.0, 3.75, 0.9),
                flat(TOKIO_CODEC.label, 250_000.0, 4.0, 0.95),
            ],
        ));
        report.calibrations.push(Calibration::new(
            "64 KiB echo",
            vec![flat(TOKIO_CODEC.label, 1.0, 1.0, 1.0)],
        ));
        let section = section(&report);
        assert!(
            section.contains(&format!("| {BASE} | 6.0 | 4.0 | 1.50× | 3.0 | 3.8 | 0.80× |")),
            "{section}"
        );
        assert!(
            !section.contains("| 64 KiB echo |"),
            "a row without io_uring_server's figures"
        );
        assert!(
            section.contains(
                "on 1 of 1 rows at the fixed rate and on 0 of 1 rows flat out (1 row is on one \
                 side at the rate and on the other flat out)."
            ),
            "{section}"
        );
    }

    #[test]
    fn a_run_without_client_figures_says_so() {
        let report = WorkloadsReport::over(vec![Sample::example(ROW, SUBJECT.id, 0, 4.0)]);
        assert!(section(&report).contains("no client CPU"));
    }
}

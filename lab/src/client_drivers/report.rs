//! `results/client_drivers.{md,json}` and the client-drivers section of BENCHMARKS.md's
//! method, rendered from the study's samples: per row, what the client and
//! io_uring_server spent per request with each driver, and how late the sends left.

use std::fmt::Write as _;
use std::path::Path;

use harness::format::group_thousands;
use harness::output::{rewrite_benchmarks_section, write_json};
use harness::rounds::{self, geometric_mean, median};
use harness::workload::SUBJECT;
use loadgen::run::Driver;

use super::{ClientDriversReport, DRIVERS, Row, Sample};

pub const BEGIN: &str = "<!-- BEGIN CLIENT_DRIVERS: scripts/client_drivers.sh rewrites this section -->";
pub const END: &str = "<!-- END CLIENT_DRIVERS -->";

/// The commit from which the studies drove the ring's rows on it (`--driver auto`).
const RING_SINCE: &str = "f325494";

/// How a fixed-rate row's name ends; the table names the row by its workload and rate.
const FIXED_RATE: &str = " at a fixed rate";

/// Writes `results/client_drivers.{md,json}` and the BENCHMARKS.md section under `root`.
pub fn write_all(root: &Path, report: &ClientDriversReport) -> Result<(), String> {
    let results = root.join("results");
    std::fs::create_dir_all(&results).map_err(|e| format!("{}: {e}", results.display()))?;
    write_json(&results.join("client_drivers.json"), report)?;
    write_rendered(root, report)
}

/// Every view of `report` but its JSON: what `scripts/client_drivers.sh --render` writes.
pub fn write_rendered(root: &Path, report: &ClientDriversReport) -> Result<(), String> {
    harness::output::write(&root.join("results/client_drivers.md"), &render(report))?;
    rewrite_benchmarks_section(root, (BEGIN, END), &section(report))
}

/// What the study compares, in words, for results/client_drivers.md.
fn method(report: &ClientDriversReport) -> String {
    format!(
        "The studies drove every row with loadgen's tokio driver until commit `{RING_SINCE}`; since \
         then loadgen's ring drives the kept-alive rows over plain TCP without files. The tokio \
         driver's clock lets sends due within {} µs of each other leave together; the ring, \
         woken by every answer, sends each request close to its intended time. Here {} is \
         offered each of the ring's fixed-rate rows at the rate the workloads study offered it \
         (`results/workloads.json`, at commit `{}`), by both drivers in every round, each point \
         cut into {} slices alternated between the two. Each figure is the median over the \
         rounds; each ÷ is the geometric mean of the per-round ratios, except the client ÷ \
         server column, the median of each point's ratio. *Served* counts the answers that \
         arrived within the measured windows, as a share of the offered rate: below 99%, the \
         point fell behind the rate, and its figures are not those of the offered load. The \
         client's CPU per request is its busy share of one CPU ÷ those answers per second, as \
         in the workloads study's rates table; client ÷ server divides it by {}'s own CPU per \
         request in the same point.",
        loadgen::MIN_GAP.as_micros(),
        SUBJECT.label,
        report.rates_from,
        report.slices,
        SUBJECT.label,
    )
}

pub fn render(report: &ClientDriversReport) -> String {
    let mut out = String::from("# The client's two drivers\n\n");
    let _ = writeln!(
        out,
        "{}\n\n{}\n",
        rounds::provenance(
            "scripts/client_drivers.sh",
            &report.machine,
            &report.pinning,
            (report.rounds, report.seconds_per_point)
        ),
        method(report)
    );
    out += &table(report);
    out
}

/// BENCHMARKS.md's section: the provenance line, the method in brief, the table.
fn section(report: &ClientDriversReport) -> String {
    format!(
        "{}\n\n{}\n\nEach round's figures: [results/client_drivers.json](results/client_drivers.json).\n\n{}",
        rounds::short_provenance(
            "scripts/client_drivers.sh",
            &report.machine,
            (report.rounds, report.seconds_per_point)
        ),
        brief(report),
        table(report)
    )
}

/// The method in brief, for BENCHMARKS.md (the method bullet there says which rows each
/// driver runs); [`method`] in full in `results/client_drivers.md`.
fn brief(report: &ClientDriversReport) -> String {
    format!(
        "{} is offered each fixed-rate row the ring drives, at the workloads study's rate \
         (commit `{}`), by both drivers (*tokio*, *ring*) in every round, the slices \
         alternated. Figures are medians over the rounds; each ÷ is the geometric mean of the \
         per-round ratios (client ÷ server: the median of each point's). *Served*: the answers \
         within the measured windows ÷ the offered rate (below 99%, the point fell behind). \
         Client µs per request: its busy share of one CPU ÷ those answers per second; server: \
         {}'s own CPU per request.",
        SUBJECT.label, report.rates_from, SUBJECT.label
    )
}

/// The table of the rows the ring drives, then the rows it does not.
fn table(report: &ClientDriversReport) -> String {
    let mut out = String::from(
        "| row, offered rate | served: tokio, ring | client µs per request: tokio, ring, \
         ring ÷ tokio | client ÷ server: tokio, ring | server µs per request: tokio, ring, ring \
         ÷ tokio | sends late, p50 µs: tokio, ring | client busy: tokio, ring |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for row in report.rows.iter().filter(|r| r.on_ring) {
        let _ = writeln!(out, "{}", line(report, row));
    }
    let others: Vec<String> = report
        .rows
        .iter()
        .filter(|r| !r.on_ring)
        .map(|r| format!("*{}*", r.workload.trim_end_matches(FIXED_RATE)))
        .collect();
    if !others.is_empty() {
        let _ = writeln!(
            out,
            "\nThe tokio driver drives the other fixed-rate rows in every study (TLS, churn and \
             files are not the ring's), so they are not measured here: {}.",
            others.join(", ")
        );
    }
    out
}

/// One row's cells.
fn line(report: &ClientDriversReport, row: &Row) -> String {
    let figure = |driver: Driver, of: fn(&Sample) -> Option<f64>| {
        median(
            &report
                .of(&row.workload, driver)
                .filter_map(of)
                .collect::<Vec<_>>(),
        )
    };
    let ratio = |of: fn(&Sample) -> Option<f64>| {
        let ratios: Vec<f64> = report
            .paired(&row.workload)
            .iter()
            .filter_map(|(before, after)| Some(of(after)? / of(before)?))
            .collect();
        geometric_mean(&ratios)
    };
    let client: fn(&Sample) -> Option<f64> = |s| Some(s.client_cpu_us);
    let server: fn(&Sample) -> Option<f64> = |s| s.server_cpu_us;
    let over_server: fn(&Sample) -> Option<f64> = |s| Some(s.client_cpu_us / s.server_cpu_us?);
    let late: fn(&Sample) -> Option<f64> = |s| s.send_lateness_p50_us;
    let busy: fn(&Sample) -> Option<f64> = |s| Some(s.client_busy * 100.0);
    let served: fn(&Sample) -> Option<f64> = |s| Some(s.served_per_sec);
    let pair = |of, digits: usize, unit: &str| {
        DRIVERS
            .map(|driver| shown(figure(driver, of), digits, unit))
            .join(", ")
    };
    format!(
        "| {} at {} req/s | {} | {}, {} | {} | {}, {} | {} | {} |",
        row.workload.trim_end_matches(FIXED_RATE),
        group_thousands(row.rate),
        DRIVERS
            .map(|driver| shown(figure(driver, served).map(|s| s * 100.0 / row.rate), 0, "%"))
            .join(", "),
        pair(client, 1, ""),
        shown(ratio(client), 2, ""),
        pair(over_server, 2, "×"),
        pair(server, 1, ""),
        shown(ratio(server), 2, ""),
        pair(late, 0, ""),
        pair(busy, 0, "%"),
    )
}

/// `value` to `digits` decimals with `unit`, or "n/a".
fn shown(value: Option<f64>, digits: usize, unit: &str) -> String {
    value.map_or("n/a".into(), |v| format!("{v:.digits$}{unit}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client_drivers::driver_name;
    use harness::machine::Machine;

    fn sample(workload: &str, driver: Driver, round: usize, client: f64, server: f64) -> Sample {
        Sample {
            workload: workload.into(),
            driver: driver_name(driver).into(),
            round,
            served_per_sec: 100_000.0,
            server_cpu_us: Some(server),
            client_cpu_us: client,
            client_busy: client / 10.0,
            send_lateness_p50_us: Some(if driver == Driver::Tokio { 250.0 } else { 12.0 }),
        }
    }

    fn report() -> ClientDriversReport {
        let w = "keep-alive, small requests at a fixed rate";
        ClientDriversReport {
            machine: Machine::example(),
            pinning: "server on CPU 0, client on CPU 1".into(),
            rounds: 2,
            seconds_per_point: 1.25,
            slices: 2,
            rates_from: "abc1234".into(),
            rows: vec![
                Row {
                    workload: w.into(),
                    rate: 120_000.0,
                    on_ring: true,
                },
                Row {
                    workload: "keep-alive over TLS at a fixed rate".into(),
                    rate: 40_000.0,
                    on_ring: false,
                },
            ],
            samples: vec![
                sample(w, Driver::Tokio, 0, 6.0, 4.0),
                sample(w, Driver::Ring, 0, 6.6, 5.0),
                sample(w, Driver::Tokio, 1, 6.0, 4.0),
                sample(w, Driver::Ring, 1, 5.6, 4.0),
            ],
        }
    }

    #[test]
    fn a_row_shows_each_drivers_median_and_the_per_round_ratios_geometric_mean() {
        let table = table(&report());
        // Client: medians 6.0 and 6.1; ratios 1.1 and 0.933, geometric mean 1.013.
        // ÷ server: 1.5 both rounds with tokio; 1.32 and 1.4 with the ring (median 1.36).
        // Server: 4.0 and 4.5; ratios 1.25 and 1.0, geometric mean 1.118.
        // Busy: 60% and 60%; 66% and 56% (median 61%).
        assert!(
            table.contains(
                "| keep-alive, small requests at 120,000 req/s | 83%, 83% | 6.0, 6.1, 1.01 | 1.50×, 1.36× | \
                 4.0, 4.5, 1.12 | 250, 12 | 60%, 61% |"
            ),
            "{table}"
        );
    }

    #[test]
    fn rows_the_ring_does_not_drive_are_named_not_measured() {
        let table = table(&report());
        assert!(table.contains("in every study"), "{table}");
        assert!(table.contains(": *keep-alive over TLS*."), "{table}");
        assert_eq!(table.matches("over TLS").count(), 1, "{table}");
    }

    #[test]
    fn the_report_names_its_rates_commit_and_the_tokio_drivers_gap() {
        let text = render(&report());
        assert!(text.contains("at commit `abc1234`"), "{text}");
        assert!(text.contains("until commit `f325494`"), "{text}");
        assert!(
            text.contains(&format!("within {} µs", loadgen::MIN_GAP.as_micros())),
            "{text}"
        );
        assert!(text.starts_with("# The client's two drivers\n\nGenerated by `scripts/client_drivers.sh`"));
    }
}

//! `results/churn.md`, `results/churn.json`, `results/churn_cpu.svg` and the churn section
//! of BENCHMARKS.md: the churn study as tables, generated from its samples.

use std::fmt::Write as _;
use std::net::IpAddr;
use std::path::Path;

use crate::cargo_bench::output::{rewrite_benchmarks_section, write_json};
use crate::churn::{
    BASELINES, ChurnPoint, ChurnReport, Drive, OPEN_LOOP_CLIENTS, PATTERNS, RATE_HELD, SUBJECT, pattern_name,
    plot,
};
use crate::nginx::ANCHOR_NOTE;
use crate::rounds::{self, CLAIM_FLOOR, Word, median, spread};
use crate::servers::ANCHORS;

pub const BEGIN: &str = "<!-- BEGIN CHURN: scripts/churn.sh rewrites this section -->";
pub const END: &str = "<!-- END CHURN -->";

/// Writes the results files and the churn section of BENCHMARKS.md.
pub fn write_all(workspace: &Path, report: &ChurnReport) -> Result<(), String> {
    let results = workspace.join("results");
    std::fs::create_dir_all(&results).map_err(|e| e.to_string())?;
    write_json(&results.join("churn.json"), report)?;
    plot::draw(&results.join(plot::FILE), report)?;
    std::fs::write(results.join("churn.md"), render(report)).map_err(|e| e.to_string())?;
    rewrite_benchmarks_section(workspace, (BEGIN, END), &summary(report, "results/"))
}

pub fn render(report: &ChurnReport) -> String {
    let mut out = String::from("# Connection churn at several loads\n\n");
    out += &summary(report, "");
    out.push('\n');
    if ANCHORS
        .iter()
        .any(|a| report.samples.iter().any(|s| s.contender == a.id))
    {
        let _ = writeln!(out, "{ANCHOR_NOTE}\n");
    }
    let _ = writeln!(out, "![server CPU per connection]({})\n", plot::FILE);
    for closes in PATTERNS {
        for open in [false, true] {
            let points: Vec<ChurnPoint> = report
                .points()
                .into_iter()
                .filter(|p| p.closes == closes && matches!(p.drive, Drive::Open { .. }) == open)
                .collect();
            if !points.is_empty() {
                detail(&mut out, report, &points);
            }
        }
    }
    out
}

/// How the study ran, and io_uring_server against each baseline at every point; `prefix`
/// is the path from the document to `results/`.
pub fn summary(report: &ChurnReport, prefix: &str) -> String {
    let mut out = String::new();
    let provenance = rounds::provenance(
        "scripts/churn.sh",
        &report.machine,
        &report.pinning,
        (report.rounds, report.seconds_per_point),
    );
    let _ = writeln!(
        out,
        "{provenance} Each connection: connect, `GET /`, the answer read and checked, close. \
         *Server closes*: the request says `Connection: close` and the client reads to the \
         server's FIN; *client closes*: a keep-alive request, closed by the client once the \
         whole answer is in. Closed loop: each client opens its next connection when the last \
         is done. Open loop: a fixed rate of connections shared by {OPEN_LOOP_CLIENTS} clients, \
         each timed from when it was due (corrected for coordinated omission), after a \
         {} s warm-up kept out of the figures. Latency: from the connect to the answer's last \
         byte. Server CPU per connection: over the whole run. Source addresses: {}. Errors: \
         none; loadgen counts failed connections by kind (connect, write, read, timeout, \
         status, body) and any one fails the study, so every point here completed with zero \
         of each. Details: [{prefix}churn.md]({prefix}churn.md).\n",
        report.open_loop_warmup_s,
        sources_text(&report.source_addrs),
    );
    let _ = writeln!(
        out,
        "Each cell is {}'s server CPU per connection ÷ the baseline's, lower is better: the \
         median of the per-round ratios (lowest-highest). A word needs every round to agree by \
         {:.0}%: *wins* (all below {:.2}), *loses* (all above {:.2}), *ties* (all within), else \
         *inconclusive*.\n",
        SUBJECT.label,
        CLAIM_FLOOR * 100.0,
        1.0 - CLAIM_FLOOR,
        1.0 + CLAIM_FLOOR,
    );
    let header: Vec<String> = BASELINES.iter().map(|b| format!("÷ {}", b.label)).collect();
    let _ = writeln!(out, "| pattern | load | {} |", header.join(" | "));
    let _ = writeln!(out, "|---|---|{}", "---|".repeat(BASELINES.len()));
    for point in report.points() {
        let cells: Vec<String> = BASELINES
            .iter()
            .map(|b| {
                let ratios = report.ratios(&point, b.id);
                format!("{} **{}**", spread(&ratios), Word::judge(&ratios).as_str())
            })
            .collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            pattern_name(point.closes),
            loop_and_load(&point),
            cells.join(" | ")
        );
    }
    out
}

/// "closed, 8 clients" or "open, 2,500 connections/s".
fn loop_and_load(point: &ChurnPoint) -> String {
    let kind = match point.drive {
        Drive::Closed { .. } => "closed",
        Drive::Open { .. } => "open",
    };
    format!("{kind}, {}", point.load_name())
}

/// "127.0.0.2-127.0.0.9 in turn" when every contender's connections used the same
/// addresses; else each contender's.
fn sources_text(sources: &[(String, Vec<IpAddr>)]) -> String {
    let text = |addrs: &[IpAddr]| match addrs {
        [] => "the kernel's choice".to_string(),
        [one] => one.to_string(),
        [first, .., last] => format!(
            "{first}-{last} in turn ({} addresses, the port picked at connect)",
            addrs.len()
        ),
    };
    let all_alike = sources.windows(2).all(|w| w[0].1 == w[1].1);
    match sources.first() {
        Some((_, addrs)) if all_alike => text(addrs),
        _ => sources
            .iter()
            .map(|(label, addrs)| format!("{label}: {}", text(addrs)))
            .collect::<Vec<_>>()
            .join("; "),
    }
}

/// The table of one pattern's closed or open loop: a row per load and contender.
fn detail(out: &mut String, report: &ChurnReport, points: &[ChurnPoint]) {
    let open = points.iter().any(|p| p.rate().is_some());
    let closes = pattern_name(points[0].closes);
    if open {
        let _ = writeln!(out, "## {closes}, open loop ({OPEN_LOOP_CLIENTS} clients)\n");
        let _ = writeln!(
            out,
            "Rate held: the rounds that completed at least {:.0}% of the offered rate. Client \
             lateness: how late the client started connections against the schedule; where it \
             is near the p99, the client, not the server, fell behind.\n",
            RATE_HELD * 100.0
        );
    } else {
        let _ = writeln!(out, "## {closes}, closed loop\n");
    }
    let mut columns = vec!["load", "server", "connections/s (median)"];
    if open {
        columns.push("rate held");
    }
    columns.extend([
        "server CPU µs/connection: median (lowest-highest)",
        "p50 µs (median)",
        "p99 µs (median)",
    ]);
    columns.push(if open {
        "client lateness p99 µs (median)"
    } else {
        "bottleneck (last round)"
    });
    let _ = writeln!(
        out,
        "| {} |\n|{}",
        columns.join(" | "),
        "---|".repeat(columns.len())
    );
    for point in points {
        for (id, label) in report.contenders() {
            let samples: Vec<_> = report.of(point, &id).collect();
            if samples.is_empty() {
                continue;
            }
            let mid = |figure: fn(&super::Sample) -> Option<f64>| {
                let values: Vec<f64> = samples.iter().filter_map(|s| figure(s)).collect();
                median(&values).map_or("n/a".into(), |v| format!("{v:.0}"))
            };
            let mut cells = vec![point.load_name(), label, mid(|s| Some(s.connections_per_sec))];
            if let Some(rate) = point.rate() {
                let held = samples
                    .iter()
                    .filter(|s| s.connections_per_sec >= rate * RATE_HELD)
                    .count();
                cells.push(format!("{held} of {}", samples.len()));
            }
            let cpu: Vec<f64> = samples
                .iter()
                .filter_map(|s| s.server_cpu_us_per_connection)
                .collect();
            cells.extend([
                spread(&cpu),
                mid(|s| Some(s.p50_us as f64)),
                mid(|s| Some(s.p99_us as f64)),
            ]);
            cells.push(match open {
                true => mid(|s| s.client_lateness_p99_us.map(|l| l as f64)),
                false => samples.last().map_or("n/a".into(), |s| s.bottleneck.clone()),
            });
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use loadgen::churn::Churn;

    use super::*;
    use crate::churn::Sample;

    const SERVER_8: ChurnPoint = ChurnPoint {
        closes: Churn::ServerCloses,
        drive: Drive::Closed { clients: 8 },
    };
    const CLIENT_2500: ChurnPoint = ChurnPoint {
        closes: Churn::ClientCloses,
        drive: Drive::Open { rate: 2_500 },
    };

    fn sample(point: ChurnPoint, contender: &str, round: usize, cpu: f64) -> Sample {
        Sample {
            point,
            contender: contender.into(),
            label: format!("{contender} label"),
            round,
            connections_per_sec: if round == 0 { 2_000.0 } else { 2_400.0 },
            server_cpu_us_per_connection: Some(cpu),
            p50_us: 100 + round as u64,
            p99_us: 900 + round as u64,
            client_lateness_p99_us: point.rate().map(|_| 40),
            bottleneck: format!("client in round {round}"),
        }
    }

    fn report() -> ChurnReport {
        let mut samples = Vec::new();
        for round in 0..3 {
            let r = round as f64;
            for point in [SERVER_8, CLIENT_2500] {
                samples.push(sample(point, "io_uring", round, 40.0 + r));
                samples.push(sample(point, "tokio_codec", round, 50.0 + r));
                samples.push(sample(point, "tokio_hyper", round, [38.0, 44.0, 40.0][round]));
                samples.push(sample(point, "nginx", round, 45.0));
            }
        }
        let spread = (2..=9).map(|i| IpAddr::from([127, 0, 0, i])).collect::<Vec<_>>();
        ChurnReport {
            machine: crate::machine::blank("abc1234"),
            pinning: "server on CPU 0, client on CPU 1".into(),
            source_addrs: vec![("io_uring".into(), spread.clone()), ("nginx".into(), spread)],
            rounds: 3,
            seconds_per_point: 3.0,
            open_loop_warmup_s: 0.6,
            samples,
        }
    }

    #[test]
    fn ratios_divide_the_subject_by_each_baseline_round_by_round() {
        let text = summary(&report(), "results/");
        // 40/50, 41/51, 42/52 are 0.80, 0.80, 0.81: every round below 0.90, so it wins.
        // 40/38, 41/44, 42/40 are 1.05, 0.93, 1.05: every round within 10%, a tie.
        assert!(
            text.contains(
                "| server closes | closed, 8 clients | 0.80 (0.80-0.81) **wins** | 1.05 (0.93-1.05) **ties** |"
            ),
            "{text}"
        );
        assert!(text.contains("| client closes | open, 2,500 connections/s | 0.80 (0.80-0.81) **wins** |"));
        assert!(
            text.contains("127.0.0.2-127.0.0.9 in turn (8 addresses"),
            "{text}"
        );
        assert!(text.contains("`abc1234`") && text.contains("3 rounds of 3 s"));
        assert!(text.contains("[results/churn.md](results/churn.md)"));
        assert!(!text.contains("nginx"), "an anchor is in no ratio: {text}");
    }

    #[test]
    fn the_detail_has_a_row_per_contender_per_point() {
        let text = render(&report());
        for heading in [
            "## server closes, closed loop",
            "## client closes, open loop (128 clients)",
        ] {
            assert!(text.contains(heading), "{text}");
        }
        assert!(!text.contains("## server closes, open loop"), "{text}");
        // A line right under a table would read as one more row of it.
        assert!(text.contains(&format!("**ties** |\n\n{ANCHOR_NOTE}")), "{text}");
        assert!(
            text.contains(
                "| 8 clients | io_uring label | 2400 | 41.00 (40.00-42.00) | 101 | 901 | client in round 2 |"
            ),
            "{text}"
        );
        // 2,000 of 2,500 misses the 95% a held rate needs; 2,400 makes it.
        assert!(
            text.contains(
                "| 2,500 connections/s | tokio_codec label | 2400 | 2 of 3 | 51.00 (50.00-52.00) | 101 | 901 | 40 |"
            ),
            "{text}"
        );
        let rows = text.lines().filter(|l| l.starts_with("| 8 clients |")).count();
        assert_eq!(rows, 4);
        assert!(text.contains(ANCHOR_NOTE));
    }

    #[test]
    fn the_results_files_and_the_benchmarks_section_are_written() {
        let workspace = std::env::temp_dir().join(format!("churn-report-{}", std::process::id()));
        std::fs::create_dir_all(&workspace).unwrap();
        let document = format!("before\n{BEGIN}\nold\n{END}\nafter\n");
        std::fs::write(workspace.join("BENCHMARKS.md"), document).unwrap();
        write_all(&workspace, &report()).unwrap();
        let read = |path: &str| std::fs::read_to_string(workspace.join(path)).unwrap();
        let benchmarks = read("BENCHMARKS.md");
        assert!(benchmarks.starts_with(&format!("before\n{BEGIN}\nGenerated by")));
        assert!(
            benchmarks.ends_with(&format!("**ties** |\n{END}\nafter\n")),
            "{benchmarks}"
        );
        assert!(!benchmarks.contains("old"));
        assert!(read("results/churn.md").contains("![server CPU per connection](churn_cpu.svg)"));
        let svg = read("results/churn_cpu.svg");
        for text in [
            "server closes, closed loop",
            "client closes, open loop (128 clients)",
            "clients (log scale)",
            "offered connections/s",
            "server CPU per connection (µs)",
            "io_uring_server",
            "nginx (outside anchor)",
        ] {
            assert!(svg.contains(text), "no {text}");
        }
        let json: serde_json::Value = serde_json::from_str(&read("results/churn.json")).unwrap();
        let first = &json["samples"][0];
        assert_eq!(json["samples"].as_array().unwrap().len(), 24);
        assert_eq!(
            (&first["closes"], &first["drive"]["closed"]["clients"]),
            (&"server-closes".into(), &8.into())
        );
        std::fs::remove_dir_all(workspace).unwrap();
    }

    #[test]
    fn sources_name_each_contender_when_they_differ() {
        let spread = vec![IpAddr::from([127, 0, 0, 2]), IpAddr::from([127, 0, 0, 9])];
        let mixed = [("a".to_string(), spread), ("b".to_string(), Vec::new())];
        assert_eq!(
            sources_text(&mixed),
            "a: 127.0.0.2-127.0.0.9 in turn (2 addresses, the port picked at connect); b: the kernel's choice"
        );
    }
}

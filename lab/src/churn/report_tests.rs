//! The churn report on fixed samples: ratios divide the right cells and the word follows
//! the rounds, a closed loop reads as throughputs with no word, a row per contender per
//! point, the rate held, a whole-machine figure below the server's own left out, and the
//! files written.

use loadgen::churn::Churn;

use super::*;
use crate::churn::Sample;
use harness::servers::AA_CONTROL;

pub(crate) const SERVER_8: ChurnPoint = ChurnPoint {
    closes: Churn::ServerCloses,
    drive: Drive::Closed { clients: 8 },
};
pub(crate) const CLIENT_2500: ChurnPoint = ChurnPoint {
    closes: Churn::ClientCloses,
    drive: Drive::Open { rate: 2_500 },
};

pub(crate) fn sample(point: ChurnPoint, contender: &str, round: usize, cpu: f64) -> Sample {
    Sample {
        point,
        contender: contender.into(),
        label: format!("{contender} label"),
        round,
        connections_per_sec: if round == 0 { 2_000.0 } else { 2_400.0 },
        server_cpu_us_per_connection: Some(cpu),
        machine_cpu_us_per_connection: Some(cpu * 3.0),
        p50_us: 100 + round as u64,
        p99_us: 900 + round as u64,
        client_lateness_p99_us: point.rate().map(|_| 40),
        client_busy: 0.5,
        bottleneck: format!("client in round {round}"),
    }
}

pub(crate) fn report() -> ChurnReport {
    let mut samples = Vec::new();
    for round in 0..3 {
        let r = round as f64;
        for point in [SERVER_8, CLIENT_2500] {
            samples.push(sample(point, "io_uring", round, 40.0 + r));
            samples.push(sample(point, "tokio_codec", round, 50.0 + r));
            samples.push(sample(point, "tokio_hyper", round, [40.4, 41.0, 41.6][round]));
            samples.push(sample(point, "nginx", round, 45.0));
            samples.push(sample(point, AA_CONTROL.id, round, [40.4, 40.6, 41.8][round]));
        }
    }
    let spread = (2..=9).map(|i| IpAddr::from([127, 0, 0, i])).collect::<Vec<_>>();
    ChurnReport {
        machine: harness::machine::blank("abc1234"),
        pinning: "server on CPU 0, client on CPU 1".into(),
        source_addrs: vec![("io_uring".into(), spread.clone()), ("nginx".into(), spread)],
        rounds: 3,
        slices: 4,
        seconds_per_point: 3.0,
        open_loop_warmup_s: 0.6,
        samples,
    }
}

#[test]
fn ratios_divide_the_subject_by_each_baseline_round_by_round() {
    let text = summary(&report(), Doc::Results);
    // 40/50, 41/51, 42/52 are 0.80, 0.80, 0.81: the interval lies below 0.90, so it wins.
    // 40/40.4, 41/41, 42/41.6 are 0.99, 1.00, 1.01: the 90% interval lies inside the margin.
    assert!(
        text.contains(
            "| client closes | open, 2,500 connections/s | 0.80 (0.79-0.81, 3 rounds) **wins** by ≥10% | 1.00 (0.98-1.02, 3 rounds) **ties** | 1.00 (0.98-1.03, 3 rounds) **ties** |"
        ),
        "{text}"
    );
    // The closed loop has the same CPU figures, but each server ran at its own pace.
    let throughput = "closed loop 2,400 vs 2,400 connections/s";
    assert!(
        text.contains(&format!(
            "| server closes | closed, 8 clients | {throughput} | {throughput} | {throughput} |"
        )),
        "{text}"
    );
    assert!(text.contains("Closed-loop cells are throughputs, never judged as costs"));
    assert!(
        text.contains("*wins* by ≥10% in one and *wins* in another"),
        "{text}"
    );
    assert!(
        text.contains("127.0.0.2-127.0.0.9 in turn (8 addresses"),
        "{text}"
    );
    assert!(text.contains("`abc1234`") && text.contains("3 rounds of 3 s"));
    assert!(
        text.contains("[churn.md](churn.md)") && text.contains("Williams"),
        "{text}"
    );
    let short = summary(&report(), Doc::Benchmarks);
    let first = short.lines().next().unwrap_or_default();
    assert_eq!(harness::stale::commit_of(first), Some("abc1234"), "{first}");
    assert!(first.ends_with("3 rounds of 3 s per point; method: [Method](#method)."));
    assert!(
        !short.contains("Williams") && !short.contains("Source addresses"),
        "{short}"
    );
    assert!(short.contains("[results/churn.md](results/churn.md)"), "{short}");
    let rows = |t: &str| t.lines().filter(|l| l.starts_with("| ")).count();
    assert_eq!(rows(&short), rows(&text), "the same ratio table: {short}");
    assert!(
        short.contains(
            "| client closes | open, 2,500 connections/s | 0.80 **wins** by ≥10% | 1.00 **ties** | 1.00 **ties** |"
        ),
        "in brief, the intervals in results/churn.md: {short}"
    );
    assert!(
        short.contains(&format!("| closed, 8 clients | {throughput} |")),
        "{short}"
    );
    assert!(!text.contains("nginx"), "an anchor is in no ratio: {text}");
    // Only the fixed rate's control cell is judged: the closed loop's is a throughput.
    assert!(
        text.contains("read *ties* in 1 of 1 cells judged, *wins* or *loses* in 0, *inconclusive* in 0"),
        "{text}"
    );
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
    assert!(text.contains(&format!("rule.\n\n{ANCHOR_NOTE}")), "{text}");
    assert!(
        text.contains(
            "| 8 clients | io_uring label | 2400 | 41.00 (40.00-42.00) | 123 | 101 | 901 | client in round 2 |"
        ),
        "{text}"
    );
    // 2,000 of 2,500 misses the 95% a held rate needs; 2,400 makes it.
    assert!(
        text.contains(
            "| 2,500 connections/s | tokio_codec label | 2400 | 2 of 3 | 51.00 (50.00-52.00) | 153 | 101 | 901 | 40 (server backlog) |"
        ),
        "{text}"
    );
    let rows = text.lines().filter(|l| l.starts_with("| 8 clients |")).count();
    assert_eq!(rows, 5);
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
        benchmarks.ends_with(&format!("the rule.\n{END}\nafter\n")),
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
    assert_eq!(json["samples"].as_array().unwrap().len(), 30);
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

#[test]
fn a_whole_machine_figure_below_the_servers_own_is_not_shown() {
    let mut report = report();
    let mut text = render(&report);
    assert!(!text.contains("not measured reliably"), "{text}");
    // One round of one contender reads the whole machine below its server's CPU.
    let odd = report
        .samples
        .iter_mut()
        .find(|s| s.point == CLIENT_2500 && s.contender == "tokio_codec")
        .unwrap();
    odd.machine_cpu_us_per_connection = Some(5.0);
    text = render(&report);
    // Every contender's figure at that load goes, not only the impossible one.
    assert!(
        text.contains(
            "| 2,500 connections/s | io_uring label | 2400 | 2 of 3 | 41.00 (40.00-42.00) | not measured reliably | 101 |"
        ),
        "{text}"
    );
    assert!(
        text.contains("Whole-machine CPU *not measured reliably* at 2,500 connections/s: in some round it read less than the server's own CPU, which cannot be"),
        "{text}"
    );
    // The closed loop, where every round read it above the server's own, keeps it.
    assert!(text.contains("| 8 clients | io_uring label | 2400 | 41.00 (40.00-42.00) | 123 |"));
}

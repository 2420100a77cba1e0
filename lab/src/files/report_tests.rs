//! The file report on fixed samples: the least CPU found, targets met and missed from the
//! data, the io-uring-fs twins and nginx compared when present and one line when not, and
//! BENCHMARKS.md's part.

use harness::load::{LoadKind, blank_point};
use harness::process_watch::Watched;
use harness::servers::{AA_CONTROL, IO_URING, NGINX, TOKIO_CODEC, TOKIO_HYPER};

use super::report::{TARGETS, render, summary, target_word};
use super::*;

/// One contender's sample at `cpu` µs per request; cold points read a quarter of the
/// bytes sent from disk.
fn sample(workload: &Workload, contender: &str, round: usize, cpu: f64) -> Sample {
    let mut point = blank_point(contender, LoadKind::Closed);
    point.label = format!("{contender} label");
    point.requests_per_sec = 5000.0 + round as f64;
    point.server_cpu_us_per_request = Some(cpu);
    point.latency_us.p50 = 100;
    point.latency_us.p99 = 900 + round as u64;
    point.bottleneck = format!("server in round {round}");
    let cold = workload.cache == Cache::Cold;
    let watched = Watched {
        disk_read_bytes: cold as u64 * point.requests * workload.set.size as u64 / 4,
        max_threads: 2 + round as u64,
    };
    Sample::of(workload, round, &point, Some(watched))
}

/// io_uring 10 µs, tokio codec 20 (so 0.50: the 4 KiB target met), hyper 25, the fs twin
/// 15, nginx 9 (1.11: the 1 MiB target met), each times the round's jitter; the A/A
/// control 10 times the next round's jitter (so its ratios scatter around 1).
fn report(with_nginx: bool) -> FilesReport {
    let jitter = [1.0, 1.02, 0.98];
    let mut samples = Vec::new();
    for round in 0..3 {
        let control = 10.0 * jitter[(round + 1) % 3] / jitter[round];
        for workload in plan() {
            let mut each = vec![
                (TOKIO_HYPER.id, 25.0),
                (TOKIO_CODEC.id, 20.0),
                (IO_URING.id, 10.0),
                ("tokio_codec_fs", 15.0),
                (AA_CONTROL.id, control),
            ];
            if with_nginx {
                each.push((NGINX.id, 9.0));
            }
            for (id, cpu) in each {
                samples.push(sample(&workload, id, round, cpu * jitter[round]));
            }
        }
    }
    FilesReport {
        machine: harness::machine::blank("abc1234"),
        pinning: "server on CPU 0, client on CPU 1".into(),
        rounds: 3,
        slices: 4,
        seconds_per_point: 2.0,
        seed: 1,
        twins: vec![Twin {
            io_uring_fs: "tokio_codec_fs".into(),
            epoll: TOKIO_CODEC.id.into(),
        }],
        samples,
    }
}

#[test]
fn every_target_names_a_point_of_the_plan() {
    let names: Vec<String> = plan().iter().map(Workload::name).collect();
    for target in TARGETS {
        assert!(names.iter().any(|n| n == target.workload), "{}", target.workload);
    }
}

#[test]
fn the_least_cpu_is_found_and_nginx_stands_beside_it() {
    let text = render(&report(true));
    assert!(
        text.contains("| 4 KiB files, hot, closed loop, 16 connections | io_uring label (10.0) | tokio_codec_fs label (15.0) | 1.50 (1.50-1.50) | 9.0 |"),
        "{text}"
    );
}

#[test]
fn targets_are_met_or_missed_from_the_data() {
    let text = render(&report(true));
    assert!(
        text.contains("- ≤ 0.60x tokio_codec label on 4 KiB files, hot, closed loop, 256 connections: **met**: 0.50 (0.50-0.50, 3 rounds), the whole interval"),
        "{text}"
    );
    assert!(
        text.contains(
            "- ≤ 1.10x nginx label on 1 MiB files, hot, closed loop, 16 connections: **missed**: 1.11"
        ),
        "{text}"
    );
    assert_eq!(
        target_word(&[0.7], 0.6),
        "**missed**: 0.70 (one round: no interval)"
    );
    assert_eq!(
        target_word(&[], 0.6),
        "not measured (the point was not in this run)."
    );
    let straddles = target_word(&[0.5, 0.64, 0.52, 0.6], 0.6);
    assert!(
        straddles.starts_with("**met** on the estimate") && straddles.contains("reaches across 0.60"),
        "{straddles}"
    );
    let missed = target_word(&[1.5, 1.52, 1.49], 1.2);
    assert!(missed.starts_with("**missed**: 1.50"), "{missed}");
}

#[test]
fn without_nginx_its_rows_and_target_say_so_in_one_line() {
    let text = render(&report(false));
    assert!(text.contains("nginx was not measured in this run"), "{text}");
    assert!(text.contains(
        "on 1 MiB files, hot, closed loop, 16 connections: not judged, nginx was not measured in this run."
    ));
    assert!(!text.contains(" | 9.0 |"));
}

#[test]
fn nginx_alone_renders_whole_tables_and_one_line_per_missing_part() {
    let mut alone = report(true);
    alone.samples.retain(|s| s.contender == NGINX.id);
    alone.twins.clear();
    let text = render(&alone);
    assert!(
        text.contains("No other server was measured in this run."),
        "{text}"
    );
    assert!(
        text.contains("io_uring_server was not measured in this run.\n\n## How far"),
        "{text}"
    );
    assert!(text.contains(
        "on 4 KiB files, hot, closed loop, 256 connections: not judged, io_uring_server was not measured"
    ));
    assert!(!text.contains("|  |"), "no empty column: {text}");
    assert!(text.contains("| nginx label | 9.0 9.2 8.8 | 9.0 |"), "{text}");
}

#[test]
fn the_fs_twin_is_judged_against_its_epoll_engine() {
    let text = render(&report(true));
    assert!(
        text.contains("| workload | tokio_codec_fs label ÷ tokio_codec label |"),
        "{text}"
    );
    assert!(
        text.contains(
            "| 4 KiB files, cold, closed loop, 16 connections | 0.75 (0.75-0.75, 3 rounds) **wins** by ≥10% |"
        ),
        "{text}"
    );
    let mut alone = report(true);
    alone.twins.clear();
    assert!(render(&alone).contains("No io-uring-fs contender was in this run's lineup"));
}

#[test]
fn details_show_disk_reads_and_threads_and_the_control_is_tallied() {
    let text = render(&report(true));
    // Cold: a quarter of the bytes sent came from disk; 1000 requests of 64 KiB = 15.6 MiB.
    assert!(
        text.contains("## 64 KiB files, cold, closed loop, 256 connections"),
        "{text}"
    );
    assert!(text.contains("| io_uring label | 10.0 10.2 9.8 | 10.0 | 5001 | 100 | 901 | 15.6, 25.0% | 4 | server in round 2 |"), "{text}");
    assert!(text.contains("| 0.0, 0.0% |"), "hot: nothing from disk");
    assert!(text.contains("read *ties* in 12 of 12 cells"), "{text}");
}

#[test]
fn benchmarks_gets_the_answers_not_the_details() {
    let report = report(true);
    let text = render(&report);
    let part = summary(&report, &text);
    let first = part.lines().next().unwrap_or_default();
    assert!(first.starts_with("Generated by `scripts/files.sh`"), "{part}");
    assert!(
        first.ends_with("per point; method: [Method](#method)."),
        "{first}"
    );
    assert!(!part.contains("Williams") && text.contains("Williams"), "{part}");
    assert!(part.contains("### Which server"), "{part}");
    for heading in [
        "Targets for",
        "How far",
        "How close",
        "against tokio's engines and its own read path",
        "## 4 KiB files, hot, closed loop, 16",
    ] {
        assert!(!part.contains(heading), "{heading}: {part}");
        assert!(text.contains(heading), "{heading}: {text}");
    }
    assert!(part.ends_with("[results/files.md](results/files.md).\n"));
}

#[test]
fn the_clients_busy_share_is_read_from_the_bottleneck_line() {
    let workload = plan().remove(0);
    let mut sample = sample(&workload, IO_URING.id, 0, 10.0);
    sample.bottleneck = "client (server 12%, client 100% busy)".into();
    assert_eq!(sample.client_busy(), Some(1.0));
    sample.bottleneck = "neither: round trips (server 54%, client 18% busy)".into();
    assert_eq!(sample.client_busy(), Some(0.18));
    sample.bottleneck = "server in round 0".into();
    assert_eq!(sample.client_busy(), None);
}

#[test]
fn a_point_the_client_bound_is_not_judged_nor_a_target_met() {
    let mut report = report(true);
    let point = "1 MiB hot, 16 connections";
    for sample in report.samples.iter_mut().filter(|s| s.workload == point) {
        if sample.contender == NGINX.id || sample.contender == IO_URING.id {
            sample.bottleneck = "client (server 11%, client 97% busy)".into();
        }
    }
    let text = render(&report);
    let shown = crate::files::label(point);
    assert!(
        text.contains(&format!(
            "- ≤ 1.10x nginx label on {shown}: 1.11 (1.11-1.11, 3 rounds) *client-bound* (client 97% busy)"
        )),
        "{text}"
    );
    let cell = format!("| {shown} | {} | ", TOKIO_CODEC.label);
    let row = text.lines().find(|l| l.starts_with(&cell)).unwrap();
    assert!(
        row.contains("*client-bound* (client 97% busy)") && !row.contains("**"),
        "{row}"
    );
    assert!(text.contains("of these read *client-bound*"), "{text}");
    let least = text
        .lines()
        .find(|l| l.starts_with(&format!("| {shown} | ")))
        .unwrap();
    assert!(least.contains("io_uring label (10.0, client-bound)"), "{least}");
}

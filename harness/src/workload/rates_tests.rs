//! How the offered rates are said: every capacity, a capped rate, an old report's, a
//! pair's, and a fixed-rate row's label.

use super::*;
use crate::workload::offered::FlatOut;

fn flat(label: &str, rps: f64, cpu_us: f64, busy: f64) -> FlatOut {
    FlatOut {
        label: label.into(),
        requests_per_sec: rps,
        server_cpu_us: Some(cpu_us),
        client_busy: busy,
        cpus: 1,
    }
}

#[test]
fn the_rate_is_a_share_of_every_capacity() {
    let calibration = Calibration::new(
        "keep-alive",
        vec![flat("a", 90_000.0, 10.0, 0.99), flat("b", 50_000.0, 20.0, 0.6)],
    );
    let line = describe(&calibration, 50);
    assert!(line.starts_with("keep-alive: 25,000 req/s, which is"), "{line}");
    assert!(
        line.contains("25% of a's capacity (100,000 req/s = 10^6 ÷ 10.0 µs"),
        "{line}"
    );
    assert!(line.contains("50% of b's capacity (50,000 req/s"), "{line}");
    assert!(line.contains("the client 99% busy"), "{line}");
    assert!(line.contains("the client 60% busy"), "{line}");
    assert!(!line.contains("capped"), "{line}");
}

#[test]
fn a_capped_rate_says_so() {
    let calibration = Calibration::new(
        "w",
        vec![flat("a", 20_000.0, 5.0, 1.0), flat("b", 30_000.0, 10.0, 1.0)],
    );
    let line = describe(&calibration, 50);
    assert!(line.starts_with("w: 10,000 req/s"), "{line}");
    assert!(
        line.contains("50% of the client's reach (the slowest flat-out figure, a's 20,000 req/s)"),
        "{line}"
    );
    assert!(
        line.contains("the smallest capacity (b's 100,000 req/s)"),
        "{line}"
    );
}

#[test]
fn an_old_report_says_what_its_rate_was() {
    let json = r#"{"workload":"w","served":[["a",120000.0],["b",100000.0]],"slowest":100000.0}"#;
    let calibration: Calibration = serde_json::from_str(json).unwrap();
    let line = describe(&calibration, 50);
    assert!(
        line.contains("50,000 req/s, 50% of the slowest flat-out figure (b's 100,000"),
        "{line}"
    );
    let mut report = WorkloadsReport::over(Vec::new());
    assert_eq!(offered_rates(&report), "");
    assert_eq!(rates_table(&report), "");
    report.calibrations.push(calibration);
    assert!(offered_rates(&report).contains("the smallest capacity among the contenders"));
}

#[test]
fn a_pairs_rate_says_whose_capacities_set_it() {
    let calibration = Calibration::new(
        "keep-alive, small requests",
        vec![
            flat("io_uring_server", 90_000.0, 10.0, 0.99),
            flat("tokio_server (codec)", 50_000.0, 20.0, 0.6),
            flat("compio_server", 30_000.0, 40.0, 0.9),
        ],
    )
    .comparing(vec!["io_uring_server".into(), "tokio_server (codec)".into()]);
    let line = describe(&calibration, 50);
    assert!(
        line.starts_with(
            "keep-alive, small requests: 25,000 req/s, 50% of the smaller capacity of \
             io_uring_server (100,000 req/s) and tokio_server (codec) (50,000 req/s), the \
             tokio configuration with the most, which is 25% of io_uring_server's capacity"
        ),
        "{line}"
    );
    assert!(
        line.contains("100% of compio_server's capacity (25,000"),
        "{line}"
    );
    let mut sample = crate::workload::samples::Sample::example(
        "keep-alive, small requests at a fixed rate",
        SUBJECT.id,
        0,
        8.0,
    );
    sample.offered_per_sec = Some(25_000.0);
    sample.label = "io_uring_server".into();
    sample.client_busy = Some(0.62);
    let mut report = WorkloadsReport::over(vec![sample]);
    report.calibrations.push(calibration);
    let text = offered_rates(&report);
    assert!(
        text.contains("Rows at a fixed rate offered every server the same open-loop rate, 50% of the smaller capacity of io_uring_server and its tokio baseline"),
        "{text}"
    );
    assert!(
        !text.contains("compio_server"),
        "the figures are the table's: {text}"
    );
    assert!(!text.contains("lowered in proportion"), "no probe ran: {text}");
    report.calibrations[0] =
        report.calibrations[0]
            .clone()
            .probed(crate::workload::client_probe::ClientProbe {
                offered: 25_000.0,
                client_busy: 0.5,
            });
    assert!(offered_rates(&report).contains("lowered in proportion"));
    let table = rates_table(&report);
    assert!(
        table.contains(
            "| keep-alive, small requests | 25,000 | 50% of the smaller capacity of \
             io_uring_server and tokio_server (codec) | io_uring_server | 100,000 | 25% | 62% \
             (62%) | 620.0 µs (77.50× io_uring_server's 8.0) | 90,000 | 99% |"
        ),
        "{table}"
    );
    assert!(
        table.contains("|  |  |  | compio_server | 25,000 | 100% | n/a | n/a | 30,000 | 90% |"),
        "{table}"
    );
    assert!(
        !table.contains("sends left") && !table.contains("intended times"),
        "no round kept the send lateness: {table}"
    );
    let mut kept = report.clone();
    kept.samples[0].send_lateness_p50_us = Some(203.0);
    let table = rates_table(&kept);
    assert!(
        table.contains("| 25% | 62% (62%); sends left p50 203 µs late | 620.0 µs"),
        "{table}"
    );
    assert!(
        table.contains(&format!(
            "how late its sends left their intended times (the median over the rounds of each \
             point's p50). loadgen's ring drives the kept-alive rows over plain TCP without \
             files and sends each request close to its intended time; its tokio driver drives \
             TLS, churn and files, and lets sends due within {} µs",
            loadgen::MIN_GAP.as_micros()
        )),
        "{table}"
    );
    assert!(
        table.contains("| compio_server | 25,000 | 100% | n/a | n/a |"),
        "a contender without it shows none: {table}"
    );
    let workload = crate::workload::catalogue::by_name("keep-alive, small requests at a fixed rate").unwrap();
    assert_eq!(
        report.rate_label(&workload),
        "keep-alive, small requests at 25,000 req/s"
    );
    assert_eq!(
        report.load_shares(&workload, &["io_uring_server", "tokio_server (codec)", "nobody"]),
        Some("25% of io_uring_server's capacity, 50% of tokio_server (codec)'s".into())
    );
    let plain = crate::workload::catalogue::by_name("one connection").unwrap();
    assert_eq!(report.rate_label(&plain), "one connection");
    assert_eq!(report.load_shares(&plain, &["io_uring_server"]), None);
}

#[test]
fn a_rate_the_client_probe_lowered_says_so() {
    let calibration = Calibration::new(
        "keep-alive, small requests",
        vec![
            flat("io_uring_server", 150_000.0, 5.0, 1.0),
            flat("tokio_server (codec)", 140_000.0, 6.25, 1.0),
            flat("compio_server", 30_000.0, 40.0, 0.9),
        ],
    )
    .comparing(vec!["io_uring_server".into(), "tokio_server (codec)".into()]);
    assert_eq!(calibration.rate(50), 70_000.0);
    let calibration = calibration.probed(crate::workload::client_probe::ClientProbe {
        offered: 70_000.0,
        client_busy: 0.875,
    });
    assert_eq!(calibration.rate(50), 60_000.0);
    assert_eq!(calibration.before_probe(50), 70_000.0);
    let line = describe(&calibration, 50);
    assert!(
        line.contains(
            "; then lowered to 60,000 req/s, since the client was 88% busy at 70,000 req/s with \
             io_uring_server (at most 75%), which is 30% of io_uring_server's capacity"
        ),
        "{line}"
    );
}

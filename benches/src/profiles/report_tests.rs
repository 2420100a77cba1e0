//! The tables and the generated sentence, on made-up profiles.

use super::*;
use crate::profiles::Breakdown;

fn profile(contender: &str, label: &str, cpu_us: f64, samples: [u64; 12]) -> Profile {
    let breakdown = Breakdown {
        server: samples,
        idle: 10,
        others: 0,
    };
    Profile {
        workload: WORKLOADS[0].name.into(),
        contender: contender.into(),
        label: label.into(),
        offered_per_sec: Some(50_000.0),
        served_per_sec: 50_000.0,
        requests: 100_000,
        p99_us: 900,
        server_cpu_us: cpu_us,
        cost_us: breakdown.costs(cpu_us),
        breakdown,
        flame_graph: "profiles/keepalive_x.svg".into(),
    }
}

/// Samples by category: syscalls and epoll for tokio, io_uring for io_uring_server.
fn pair() -> (Profile, Profile) {
    let mut codec = [0u64; 12];
    codec[Category::Http.index()] = 10;
    codec[Category::Syscall.index()] = 30;
    codec[Category::Epoll.index()] = 20;
    codec[Category::TcpSend.index()] = 40;
    let mut uring = [0u64; 12];
    uring[Category::Http.index()] = 10;
    uring[Category::Syscall.index()] = 5;
    uring[Category::IoUring.index()] = 15;
    uring[Category::TcpSend.index()] = 50;
    (
        profile("tokio_codec", "tokio_server (codec)", 10.0, codec),
        profile("io_uring", "io_uring_server", 8.0, uring),
    )
}

#[test]
fn each_column_adds_up_to_the_measured_cpu() {
    let (codec, uring) = pair();
    for p in [&codec, &uring] {
        let sum: f64 = Category::ALL.iter().map(|&c| p.cost(c)).sum();
        assert!((sum - p.server_cpu_us).abs() < 1e-9, "{sum}");
    }
    assert_eq!(uring.cost(Category::IoUring), 1.5);
    assert!((codec.breakdown.server_share() - 100.0 / 110.0).abs() < 1e-9);
}

#[test]
fn the_sentence_names_where_the_saving_is() {
    let (codec, uring) = pair();
    let text = sentence(&WORKLOADS[0], &[&codec, &uring]).unwrap();
    assert!(
        text.starts_with("io_uring_server spends 2.00 µs less server CPU per request"),
        "{text}"
    );
    // Syscalls (-2.50) and epoll (-2.00) carry the saving; io_uring (+1.50) goes against it.
    assert!(
        text.contains("syscall entry/exit (-2.50 µs), epoll/readiness (-2.00 µs)"),
        "{text}"
    );
    assert!(text.ends_with("against io_uring core (+1.50 µs)."), "{text}");
    let flipped = sentence(
        &WORKLOADS[0],
        &[
            &profile("io_uring", "io_uring_server", 10.0, codec.breakdown.server),
            &profile("tokio_codec", "c", 8.0, uring.breakdown.server),
        ],
    )
    .unwrap();
    assert!(
        flipped.contains("more server CPU") && flipped.contains("most of the loss"),
        "{flipped}"
    );
}

#[test]
fn the_table_has_a_row_per_category_a_total_and_links() {
    let (codec, uring) = pair();
    let report = ProfilesReport {
        machine: crate::machine::Machine::detect(),
        pinning: "server on CPU 0, client on CPU 1".into(),
        seconds_per_profile: 3.0,
        calibration: Vec::new(),
        profiles: vec![codec, uring],
    };
    let text = tables(&report, "results/", "###");
    assert!(
        text.contains(
            "| µs per request | tokio_server (codec) | io_uring_server | io_uring_server − tokio codec |"
        ),
        "{text}"
    );
    assert!(
        text.contains("| **total (measured, /proc)** | **10.00** | **8.00** | **-2.00** |"),
        "{text}"
    );
    assert!(text.contains("[svg](results/profiles/keepalive_x.svg)"), "{text}");
    assert_eq!(
        text.matches("\n| ").count(),
        Category::ALL.len() + 5 + 1,
        "{text}"
    );
}

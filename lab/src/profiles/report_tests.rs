//! The tables and the generated sentence, on made-up profiles.

use super::*;
use crate::profiles::test_profiles::{pair, profile};

/// A report of `profiles` with no verdict run beside it.
fn report_of(profiles: Vec<Profile>) -> ProfilesReport {
    ProfilesReport {
        machine: harness::machine::Machine::detect(),
        pinning: "server on CPU 0, client on CPU 1".into(),
        seconds_per_profile: 3.0,
        calibration: Vec::new(),
        profiles,
        verdict: None,
    }
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
    let text = tables(&report_of(vec![codec, uring]), "results/", "###");
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
    assert!(
        text.contains("io_uring_server spends 2.00 µs less"),
        "the sentence under the table, BENCHMARKS.md's no more: {text}"
    );
    // The test profiles' timer delivered 90% of its periods: perf's count ÷ 0.9.
    let restored = text
        .lines()
        .find(|l| l.starts_with("| samples the timer delivered"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(restored.contains("| 90%: "), "{restored}");
    assert_eq!(
        text.matches("\n| ").count(),
        // And the table beside the verdict row: a head and two rows.
        Category::ALL.len() + 6 + 1 + 3,
        "{text}"
    );
}

#[test]
fn the_flat_out_file_profile_is_a_closed_loop_with_no_verdict_row_and_names_the_clients_share() {
    let flat = WORKLOADS
        .iter()
        .find(|w| w.name.ends_with("flat out"))
        .expect("a flat-out file profile");
    assert!(!flat.is_open_loop() && flat.file_set() == Some("4k"));
    assert!(
        flat.label().ends_with("flat out (closed loop)"),
        "{}",
        flat.label()
    );
    let at_a_rate = WORKLOADS.iter().find(|w| w.slug == "files4k").unwrap();
    assert!(at_a_rate.is_open_loop());
    let (mut codec, mut uring) = pair();
    for (p, busy) in [(&mut codec, 0.6), (&mut uring, 0.95)] {
        p.workload = flat.name.into();
        p.offered_per_sec = None;
        p.client_busy = Some(busy);
    }
    let text = tables(&report_of(vec![codec, uring]), "results/", "###");
    assert!(text.contains("Offered: a closed loop"), "{text}");
    assert!(
        text.contains("client 60% busy | 50000/s, p99 900 µs, client 95% busy |"),
        "{text}"
    );
    assert!(
        text.contains("No verdict row: flat out, a closed loop measures capacity"),
        "{text}"
    );
}

#[test]
fn the_counts_show_per_request_and_say_what_perf_could_not_count() {
    use crate::profiles::counts::Counts;
    let (mut codec, uring) = pair();
    let none = tables(&report_of(vec![codec.clone(), uring.clone()]), "results/", "###");
    assert!(
        !none.contains("system calls per request"),
        "no counts, no rows: {none}"
    );
    codec.counts = Some(Counts {
        syscalls: Some(2.5),
        completions: None,
        context_switches: Some(0.125),
    });
    let text = tables(&report_of(vec![codec, uring]), "results/", "###");
    assert!(
        text.contains("| system calls per request (a run of its own) | 2.50 | n/a |"),
        "{text}"
    );
    assert!(
        text.contains("| io_uring completions per request | n/a | n/a |"),
        "{text}"
    );
    assert!(
        text.contains("| context switches per request (mostly sleeps) | 0.12 | n/a |"),
        "{text}"
    );
}

//! The cheapest tokio configuration: who may be it, how it is chosen from the rounds that
//! measured every candidate, and who stands in for it before any round.

use super::*;
use crate::servers::{TOKIO_CODEC_SHARED, TOKIO_URING};
use crate::workload::catalogue::by_name;
use crate::workload::samples::Sample;

fn flat(label: &str, cpu_us: f64) -> FlatOut {
    FlatOut {
        label: label.into(),
        requests_per_sec: 1_000.0,
        server_cpu_us: Some(cpu_us),
        client_busy: 0.5,
        cpus: 1,
    }
}

#[test]
fn sendfile_and_tokio_io_uring_files_are_candidates_where_files_are_served_and_tls_keeps_the_adapted_ones() {
    let files = candidates(&by_name("1 MiB files, 16 connections at a fixed rate").unwrap());
    let mut expected = TOKIO_CONFIGURATIONS.to_vec();
    expected.push(TOKIO_CODEC_IO_URING_FS);
    assert_eq!(files, expected);
    let small_files = candidates(&by_name("4 KiB files, 16 connections at a fixed rate").unwrap());
    assert!(small_files.contains(&TOKIO_CODEC_IO_URING_FS) && !small_files.contains(&TOKIO_CODEC_SENDFILE));
    let keep_alive = candidates(&by_name("keep-alive, small requests at a fixed rate").unwrap());
    assert_eq!(
        keep_alive,
        vec![TOKIO_CODEC, TOKIO_HYPER, TOKIO_HYPER_MULTI_THREAD]
    );
    let tls = candidates(&by_name("keep-alive over TLS at a fixed rate").unwrap());
    assert_eq!(tls, keep_alive, "every engine but sendfile has a rustls adapter");
    assert!(!files.contains(&TOKIO_CODEC_SHARED) && !files.contains(&TOKIO_URING));
}

#[test]
fn the_cheapest_is_chosen_from_the_rounds_that_measured_every_candidate() {
    let every = vec![true; 4];
    let first_two = vec![true, true, false, false];
    let candidates = vec![
        (TOKIO_CODEC, vec![Some(10.0); 4], every.clone()),
        (TOKIO_HYPER, vec![Some(12.0); 4], every.clone()),
        (
            TOKIO_HYPER_MULTI_THREAD,
            vec![Some(9.0), Some(9.5), None, None],
            first_two,
        ),
    ];
    let best = choose(&candidates, &[0, 1, 2, 3], false);
    assert_eq!(best.contender, Some(TOKIO_HYPER_MULTI_THREAD));
    assert_eq!((best.rounds, best.chosen_from), (4, 2));
    assert_eq!(best.partial, vec![(TOKIO_HYPER_MULTI_THREAD, 2)]);
    assert_eq!(
        best.caveat(),
        "; tokio_server (hyper, multi-thread) not measured every round in this run, the \
         cheapest chosen from the 2 of 4 rounds that measured it"
    );
    let faster = choose(&candidates[..2], &[0, 1, 2, 3], true);
    assert_eq!(faster.contender, Some(TOKIO_HYPER), "requests/s: the highest");
    assert_eq!(faster.caveat(), "", "every candidate ran every round");
}

#[test]
fn the_cheapest_is_the_one_the_ratios_favour_least_not_the_lower_middle_round() {
    let every = vec![true; 4];
    let candidates = vec![
        (TOKIO_CODEC, vec![Some(27.0); 4], every.clone()),
        (
            TOKIO_HYPER_MULTI_THREAD,
            vec![Some(25.0), Some(26.0), Some(30.0), Some(31.0)],
            every.clone(),
        ),
    ];
    let best = choose(&candidates, &[0, 1, 2, 3], false);
    assert_eq!(
        best.contender,
        Some(TOKIO_CODEC),
        "its lower middle round is 26, but over the rounds it costs more than 27"
    );
}

#[test]
fn a_candidate_that_fell_behind_in_most_shared_rounds_is_not_chosen() {
    let every = vec![true; 3];
    let candidates = vec![
        (TOKIO_CODEC, vec![Some(10.0); 3], every.clone()),
        (TOKIO_HYPER, vec![Some(5.0), None, None], every.clone()),
    ];
    let best = choose(&candidates, &[0, 1, 2], false);
    assert_eq!(best.contender, Some(TOKIO_CODEC));
    assert_eq!(
        best.chosen_from, 3,
        "the rounds of the candidates able to serve the rate"
    );
    let none = choose(&[], &[0, 1, 2], false);
    assert_eq!(none.contender, None);
}

#[test]
fn where_each_candidate_fell_behind_once_the_choice_is_made_from_the_rounds_all_kept_up() {
    let every = vec![true; 5];
    let candidates = vec![
        (
            TOKIO_CODEC,
            vec![None, Some(8.0), Some(9.0), Some(8.5), Some(9.5)],
            every.clone(),
        ),
        (
            TOKIO_HYPER,
            vec![Some(11.0), Some(10.0), None, Some(11.0), Some(12.0)],
            every.clone(),
        ),
    ];
    let best = choose(&candidates, &[0, 1, 2, 3, 4], false);
    assert_eq!(
        best.contender,
        Some(TOKIO_CODEC),
        "the cheaper in rounds 1, 3 and 4"
    );
    assert_eq!((best.rounds, best.chosen_from), (5, 3));
    assert!(
        best.caveat()
            .contains("3 of 5 rounds in which every candidate kept up"),
        "{}",
        best.caveat()
    );
}

#[test]
fn a_round_in_which_every_candidate_fell_behind_is_left_out_of_the_choice() {
    let every = vec![true; 4];
    let candidates = vec![
        (
            TOKIO_CODEC,
            vec![Some(10.0), Some(10.0), None, Some(10.0)],
            every.clone(),
        ),
        (
            TOKIO_HYPER,
            vec![Some(12.0), None, None, Some(12.0)],
            every.clone(),
        ),
    ];
    let best = choose(&candidates, &[0, 1, 2, 3], false);
    assert_eq!(
        best.contender,
        Some(TOKIO_CODEC),
        "hyper fell behind in round 1 alone"
    );
    assert_eq!((best.rounds, best.chosen_from), (4, 3), "round 2 tells nothing");
}

#[test]
fn one_slow_round_does_not_hand_the_row_to_a_dearer_candidate() {
    let every = vec![true; 5];
    let candidates = vec![
        (
            TOKIO_CODEC,
            vec![Some(8.0), None, Some(9.0), Some(8.5), Some(9.5)],
            every.clone(),
        ),
        (
            TOKIO_HYPER,
            vec![Some(11.0), Some(10.0), Some(10.5), Some(11.0), Some(12.0)],
            every.clone(),
        ),
    ];
    let best = choose(&candidates, &[0, 1, 2, 3, 4], false);
    assert_eq!(
        best.contender,
        Some(TOKIO_CODEC),
        "the codec fell behind in round 1 alone: that round counts for nothing"
    );
    assert_eq!((best.rounds, best.chosen_from), (5, 4));
    assert!(best.caveat().contains("4 of 5 rounds"), "{}", best.caveat());
    let mostly_behind = vec![
        (
            TOKIO_CODEC,
            vec![Some(8.0), None, None, None, Some(9.5)],
            every.clone(),
        ),
        candidates[1].clone(),
    ];
    assert_eq!(
        choose(&mostly_behind, &[0, 1, 2, 3, 4], false).contender,
        Some(TOKIO_HYPER),
        "behind in most rounds, the codec cannot serve the rate"
    );
}

#[test]
fn the_report_names_the_cheapest_per_row_with_its_ratios() {
    let name = "keep-alive, small requests at a fixed rate";
    let mut samples = Vec::new();
    for round in 0..3 {
        for (contender, value) in [
            (SUBJECT.id, 8.0),
            (TOKIO_CODEC.id, 10.0),
            (TOKIO_HYPER.id, 16.0),
            (TOKIO_HYPER_MULTI_THREAD.id, 12.0),
        ] {
            samples.push(Sample::example(name, contender, round, value));
        }
    }
    let report = WorkloadsReport::over(samples);
    let workload = by_name(name).unwrap();
    let best = report.best_tokio(&workload, Unit::CpuPerRequest);
    assert_eq!(best.contender, Some(TOKIO_CODEC));
    assert_eq!(best.ratios, vec![0.8; 3]);
    assert!(best.partial.is_empty());
}

#[test]
fn the_rate_is_set_by_io_uring_server_and_the_candidate_with_the_most_capacity() {
    let workload = by_name("keep-alive, small requests at a fixed rate").unwrap();
    let flat_out = vec![
        flat("io_uring_server", 6.0),
        flat("tokio_server (codec)", 8.0),
        flat("tokio_server (hyper, multi-thread)", 7.5),
        flat("compio_server", 14.0),
    ];
    assert_eq!(
        rate_pair(&workload, &flat_out),
        vec!["io_uring_server", "tokio_server (hyper, multi-thread)"]
    );
    assert!(rate_pair(&workload, &flat_out[1..]).is_empty(), "no subject");
}

//! Who runs each workload: every round for the verdict, the runtimes, the feature rows and
//! every tokio configuration a row's cheapest is chosen from; the details in the first
//! rounds; nginx and TLS where they can serve.

use super::*;

#[test]
fn one_run_holds_the_verdict_the_runtimes_and_the_features() {
    for workload in WORKLOADS.iter().copied() {
        let every = every_round(&workload);
        for judged in judged_contenders(&workload) {
            assert!(every.contains(&judged), "{}", workload.name);
        }
        if !judged_contenders(&workload).is_empty() {
            for runtime in serving(&workload, runtimes::READY.to_vec()) {
                assert!(every.contains(&runtime), "{}", workload.name);
            }
        }
        for variant in features::variants_at(&workload) {
            assert!(
                every.contains(&variant) && every.contains(&IO_URING),
                "{}",
                workload.name
            );
        }
        let detail = detail_only(&workload);
        assert!(detail.iter().all(|c| !every.contains(c)), "{}", workload.name);
    }
    assert!(everyone().contains(&harness::servers::TOKIO_HYPER) && everyone().contains(&TOKIO_URING));
}

#[test]
fn uploads_are_judged_at_their_fixed_rate_and_nginx_sits_them_out() {
    let by_name = harness::workload::catalogue::by_name;
    let (saturated, offered) = (
        by_name("20 MiB uploads").unwrap(),
        by_name("20 MiB uploads at a fixed rate").unwrap(),
    );
    let mut judged = verdict_contenders();
    judged.push(harness::servers::TOKIO_HYPER_MULTI_THREAD);
    assert_eq!(
        judged_contenders(&offered),
        judged,
        "every tokio configuration but sendfile"
    );
    assert!(
        judged_contenders(&saturated).is_empty(),
        "the closed loop is a capacity, in the details"
    );
    let every = every_round(&offered);
    assert!(runtimes::READY.iter().all(|c| every.contains(c)), "{every:?}");
    for workload in [saturated, offered] {
        let everyone = [every_round(&workload), detail_contenders(&workload)].concat();
        assert!(everyone.iter().all(|c| !ANCHORS.contains(c)), "{everyone:?}");
        assert!(anchors_cannot(&workload).unwrap().contains("CRC32C"));
        assert!(bound_by(&workload).unwrap().contains("CRC32C"));
    }
}

#[test]
fn every_tokio_configuration_of_a_judged_row_runs_every_round() {
    for workload in WORKLOADS.iter().copied() {
        let judged = judged_contenders(&workload);
        if judged.is_empty() {
            continue;
        }
        for candidate in best::candidates(&workload) {
            assert!(
                judged.contains(&candidate),
                "{}: {}",
                workload.name,
                candidate.label
            );
            assert!(!detail_only(&workload).contains(&candidate), "{}", workload.name);
        }
    }
    let files = harness::workload::catalogue::by_name("1 MiB files, 16 connections at a fixed rate").unwrap();
    assert!(every_round(&files).contains(&TOKIO_CODEC_SENDFILE));
}

#[test]
fn over_tls_only_servers_with_a_rustls_adapter_run() {
    let tls = harness::workload::catalogue::by_name("keep-alive over TLS at a fixed rate").unwrap();
    let every = every_round(&tls);
    for judged in verdict_contenders() {
        assert!(every.contains(&judged), "{}", judged.label);
    }
    assert!(!every.contains(&TOKIO_URING) && every.len() == 7, "{every:?}");
    assert!(
        every.contains(&harness::servers::TOKIO_HYPER_MULTI_THREAD),
        "{every:?}"
    );
    let detail = detail_only(&tls);
    assert!(detail.iter().all(Contender::speaks_tls), "{detail:?}");
    let plain = harness::workload::catalogue::by_name("keep-alive, small requests at a fixed rate").unwrap();
    assert!(every_round(&plain).contains(&TOKIO_URING));
}

#[test]
fn hot_files_are_judged_at_a_fixed_rate_with_nginx_every_round_and_sendfile_where_it_applies() {
    let by_name = harness::workload::catalogue::by_name;
    let offered = by_name("4 KiB files, 256 connections at a fixed rate").unwrap();
    // Under 64 KiB tokio's --sendfile engine runs the plain codec engine's code.
    assert!(
        !every_round(&offered).contains(&TOKIO_CODEC_SENDFILE),
        "no second codec engine"
    );
    let large = by_name("1 MiB files, 256 connections at a fixed rate").unwrap();
    assert!(
        every_round(&large).contains(&TOKIO_CODEC_SENDFILE),
        "the sendfile control"
    );
    assert!(
        every_round(&offered).iter().any(|c| ANCHORS.contains(c)),
        "nginx judged beside"
    );
    assert!(!detail_only(&offered).iter().any(|c| ANCHORS.contains(c)));
    assert!(
        !everyone().iter().any(|c| ANCHORS.contains(c)),
        "anchors join only where installed (with_anchors)"
    );
    let keep_alive = by_name("keep-alive, small requests at a fixed rate").unwrap();
    assert!(!every_round(&keep_alive).iter().any(|c| ANCHORS.contains(c)));
    assert!(
        judged_contenders(&by_name("4 KiB files, 256 connections").unwrap()).is_empty(),
        "a capacity"
    );
    for name in [
        "pipelined 16 deep",
        "4 connections",
        "16 connections",
        "1 MiB responses",
    ] {
        let workload = by_name(name).unwrap();
        assert!(judged_contenders(&workload).is_empty(), "{name}: details only");
        assert!(!detail_only(&workload).is_empty(), "{name}: still in the details");
    }
}

#[test]
fn the_rows_beyond_the_verdict_are_judged_every_round_with_the_runtimes_on_the_echoes_only() {
    use harness::servers::{AA_CONTROL, TOKIO_CODEC_IO_URING_FS};
    use harness::workload::further;
    let planned: Vec<&str> = measured_workloads().map(|w| w.name).collect();
    for row in further::ROWS {
        assert!(planned.contains(&row.name), "{}: the run measures it", row.name);
        let every = every_round(row);
        assert!(
            every.contains(&IO_URING) && every.contains(&AA_CONTROL),
            "{}",
            row.name
        );
        let runtimes_every_round = every.contains(&runtimes::READY[1]);
        assert_eq!(runtimes_every_round, !row.serves_files(), "{}", row.name);
        if row.serves_files() {
            assert!(every.contains(&TOKIO_CODEC_IO_URING_FS), "{}", row.name);
            assert!(detail_only(row).contains(&runtimes::READY[1]), "{}", row.name);
        }
    }
}

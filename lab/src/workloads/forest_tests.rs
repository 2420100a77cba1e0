//! The forest plot: one labelled row per verdict row, the panels, client-bound cells left
//! undrawn.

use super::*;
use crate::workloads::Sample;
use harness::servers::{TOKIO_CODEC, TOKIO_HYPER};

#[test]
fn every_verdict_row_is_one_labelled_row_of_the_svg() {
    let mut samples = Vec::new();
    for round in 0..4 {
        let wobble = 1.0 + 0.02 * round as f64;
        for workload in [
            "64 KiB echo at a fixed rate",
            "one connection",
            "16 KiB responses at a fixed rate",
        ] {
            for (contender, value) in [
                (SUBJECT.id, 8.0 * wobble),
                (TOKIO_CODEC.id, 10.0),
                (TOKIO_HYPER.id, 30.0),
                (AA_CONTROL.id, 8.0),
            ] {
                samples.push(Sample::example(workload, contender, round, value));
            }
        }
    }
    let report = WorkloadsReport::over(samples);
    let rows = judged::rows(&report);
    // One connection has two rows: its round trip and its server CPU.
    assert_eq!(rows.len(), 4);
    let path = std::env::temp_dir().join(format!("forest-{}.svg", std::process::id()));
    assert_eq!(draw(&path, &report).unwrap(), 4);
    let svg = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    for row in &rows {
        assert_eq!(svg.matches(&label(row)).count(), 1, "{}", label(row));
    }
    let panels = [
        "÷ tokio_server (codec)",
        "÷ tokio_server (hyper)",
        "A/A control ÷",
    ];
    assert!(panels.iter().all(|p| svg.contains(p)), "{svg}");
}

#[test]
fn a_client_bound_cell_is_not_drawn_and_its_row_says_so() {
    let mut samples = Vec::new();
    for round in 0..4 {
        let wobble = 1.0 + 0.02 * round as f64;
        for contender in [SUBJECT.id, TOKIO_CODEC.id, TOKIO_HYPER.id, AA_CONTROL.id] {
            samples.push(Sample {
                client_busy: Some(0.99),
                ..Sample::example("1 MiB responses at a fixed rate", contender, round, 90.0 * wobble)
            });
            samples.push(Sample::example(
                "64 KiB echo at a fixed rate",
                contender,
                round,
                20.0 * wobble,
            ));
        }
    }
    let report = WorkloadsReport::over(samples);
    let rows = judged::rows(&report);
    assert_eq!(rows.len(), 2);
    let bound = rows
        .iter()
        .position(|r| r.workload == "1 MiB responses at a fixed rate")
        .unwrap();
    for panel in panels(&report, &rows) {
        for (contender, estimates) in &panel.series {
            assert!(estimates[bound].is_none(), "{} drawn", contender.label);
            assert!(estimates[1 - bound].is_some(), "{}", contender.label);
        }
    }
    let path = std::env::temp_dir().join(format!("forest-bound-{}.svg", std::process::id()));
    draw(&path, &report).unwrap();
    let svg = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    assert!(
        svg.contains("1 MiB responses at a fixed rate · server CPU · vs codec (client-bound: not drawn)"),
        "{svg}"
    );
    assert!(!svg.contains("64 KiB echo · server CPU (client-bound"), "{svg}");
}

//! One word per row in every view: from one synthetic report (a row io_uring_server
//! wins, one it ties, one it loses, one the client bound), README's first screen, the
//! verdict table of BENCHMARKS.md and results/workloads.md, `cargo bench`'s brief table
//! (the same renderer over its own rounds) and results/two_hosts.md are rendered, and each
//! row's word must be the same in all of them. `cargo bench`'s short run, which measures
//! on its own rounds, names the full verdict's word beside its own where they differ.
//! Left out: the profiles' labels (a row's rate and shares, no word) and the sweep (a load
//! curve of its own, judged per point, not per verdict row).

use crate::two_hosts;
use crate::workloads::{SUBJECT, Sample, WorkloadsReport, first_screen};
use harness::output::Doc;
use harness::servers::{AA_CONTROL, TOKIO_CODEC, TOKIO_HYPER};
use harness::workload::catalogue::WORKLOADS;
use harness::workload::verdict;

/// The words a row can read, the more specific first ("client-bound" before "wins": a
/// client-bound cell shows no rule's word, but its ratio).
const WORDS: [&str; 5] = ["client-bound", "inconclusive", "wins", "ties", "loses"];

/// Each fixture row: its workload, the name views give it, io_uring_server's figure
/// against the codec engine's 10, and whether the client bound it.
const ROWS: [(&str, &str, f64, bool); 4] = [
    (
        "keep-alive, small requests at a fixed rate",
        "keep-alive, small requests",
        8.0,
        false,
    ),
    ("64 KiB echo at a fixed rate", "64 KiB echo", 10.0, false),
    ("20 MiB uploads at a fixed rate", "20 MiB uploads", 12.0, false),
    ("16 KiB responses at a fixed rate", "16 KiB responses", 8.0, true),
];

fn report() -> WorkloadsReport {
    let mut samples = Vec::new();
    for round in 0..6 {
        let wobble = [1.01, 0.99, 1.0, 1.02, 0.98, 1.0][round];
        for (workload, _, subject, bound) in ROWS {
            for (contender, value) in [
                (SUBJECT.id, subject * wobble),
                (TOKIO_CODEC.id, 10.0),
                (TOKIO_HYPER.id, 20.0),
                (AA_CONTROL.id, subject),
            ] {
                samples.push(Sample {
                    label: contender.into(),
                    client_busy: Some(if bound { 0.97 } else { 0.6 }),
                    ..Sample::example(workload, contender, round, value)
                });
            }
        }
    }
    WorkloadsReport::over(samples)
}

/// The word in the `column`th cell (from 0) of the first table line naming `name`.
fn word(text: &str, name: &str, column: usize) -> &'static str {
    let line = text
        .lines()
        .find(|line| line.starts_with(&format!("| {name} |")) || line.starts_with(&format!("| {name} at ")))
        .unwrap_or_else(|| panic!("no row {name} in:\n{text}"));
    let cell = line.split('|').nth(column + 1).unwrap();
    WORDS
        .into_iter()
        .find(|word| cell.contains(word))
        .unwrap_or_else(|| panic!("no word in {cell:?} of {line}"))
}

#[test]
fn every_view_gives_each_row_the_same_word() {
    let report = report();
    let screen = first_screen::render(&report);
    let benchmarks = verdict::table(&report, WORKLOADS, Doc::Benchmarks);
    let results = verdict::table(&report, WORKLOADS, Doc::Results);
    let bench = verdict::brief_table(&report, WORKLOADS, Some(&report));
    let hosts = two_hosts::render(&report, &report);
    let mut seen = Vec::new();
    for (_, name, _, _) in ROWS {
        let verdict_word = word(&benchmarks, name, 2);
        let views = [
            ("README's first screen", word(&screen, name, 3)),
            ("results/workloads.md", word(&results, name, 2)),
            ("cargo bench's brief table", word(&bench, name, 2)),
            ("two_hosts.md across", word(&hosts, name, 2)),
            ("two_hosts.md over loopback", word(&hosts, name, 3)),
        ];
        for (view, said) in views {
            assert_eq!(
                said, verdict_word,
                "{name}: {view} says {said}, the verdict {verdict_word}"
            );
        }
        seen.push(verdict_word);
    }
    // The fixture reaches every word a decided or client-bound row can read.
    assert_eq!(seen, ["wins", "ties", "loses", "client-bound"]);
}

#[test]
fn the_short_run_names_the_full_verdicts_word_where_it_reads_otherwise() {
    let full = report();
    // The short run: the same rows, but the client never bound the responses row.
    let mut samples = full.samples.clone();
    for sample in &mut samples {
        sample.client_busy = Some(0.6);
    }
    let short = WorkloadsReport::over(samples);
    // BENCHMARKS.md's brief table and results/latest.md's full one alike.
    for table in [
        verdict::brief_table(&short, WORKLOADS, Some(&full)),
        verdict::table_beside(&short, WORKLOADS, Some(&full)),
    ] {
        let responses = table
            .lines()
            .find(|l| l.starts_with("| 16 KiB responses"))
            .unwrap();
        assert!(
            responses.contains("**wins** by ≥10% against tokio_server (codec) (this shorter run; the full verdict: *client-bound*)"),
            "{responses}"
        );
        let kept_alive = table
            .lines()
            .find(|l| l.starts_with("| keep-alive, small requests"))
            .unwrap();
        assert!(!kept_alive.contains("the full verdict"), "{kept_alive}");
    }
}

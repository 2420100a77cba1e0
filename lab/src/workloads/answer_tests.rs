//! The answer block on a small synthetic report: the figures it states are the ones the
//! samples imply (2 of 10 µs is 20%), the ready runtimes appear only where measured, and
//! the block fits between its markers in both documents.

use super::*;
use crate::workloads::Sample;
use harness::servers::{AA_CONTROL, COMPIO, MONOIO, TOKIO_CODEC, TOKIO_HYPER};

const KEEP_ALIVE: &str = "keep-alive, small requests at 50% load";

/// io_uring_server 8 µs, the codec engine 10, hyper 20, the A/A control 8, every round;
/// with `runtimes`, monoio 9.5 and compio 12 too.
fn report(runtimes: bool) -> WorkloadsReport {
    let mut samples = Vec::new();
    for round in 0..4 {
        let mut figures = vec![
            (SUBJECT.id, 8.0),
            (TOKIO_CODEC.id, 10.0),
            (TOKIO_HYPER.id, 20.0),
            (AA_CONTROL.id, 8.0),
        ];
        if runtimes {
            figures.extend([(MONOIO.id, 9.5), (COMPIO.id, 12.0)]);
        }
        for (contender, value) in figures {
            samples.push(Sample {
                label: contender.into(),
                ..Sample::example(KEEP_ALIVE, contender, round, value)
            });
        }
    }
    let mut report = WorkloadsReport::over(samples);
    report.machine.git_commit = "abc1234".into();
    report.machine.date = "2026-01-02 03:04 UTC".into();
    report
}

#[test]
fn the_answer_states_the_saving_in_micros_and_percent_with_the_rules_word() {
    let text = render(&report(true));
    assert!(
        text.contains("at commit `abc1234` on 2026-01-02 03:04 UTC"),
        "{text}"
    );
    assert!(
        text.contains(
            "| keep-alive, small requests | −2.0 of 10.0 µs (−20%, *wins* by ≥10%) | \
             −12.0 of 20.0 µs (−60%, *wins* by ≥10%) | monoio −5%, compio +20% |"
        ),
        "{text}"
    );
    assert!(
        text.contains("costs less on *keep-alive, small requests*."),
        "{text}"
    );
    assert!(
        text.contains("of those 1 wins over the codec engine: monoio 1, compio 0."),
        "{text}"
    );
    // 2 µs saved of 10 + 10 µs is 10%; of 10 + 100 µs, 1.8%.
    assert!(
        text.contains("the saving is 10.0% of all the CPU a request takes in a service whose own handler costs 10 µs per request, 1.8% where it costs 100 µs."),
        "{text}"
    );
    assert!(text.contains("![verdict](results/verdict.svg)"), "{text}");
    assert!(text.contains("(BENCHMARKS.md#the-verdict"), "{text}");
    assert!(text.lines().count() <= 12, "{text}");
}

#[test]
fn without_runtime_samples_the_runtime_column_and_sentence_are_left_out() {
    let text = render(&report(false));
    assert!(
        text.contains("| −2.0 of 10.0 µs (−20%, *wins* by ≥10%) |"),
        "{text}"
    );
    assert!(!text.contains("ready runtime"), "{text}");
}

#[test]
fn a_tie_is_weighed_against_no_handler() {
    let mut report = report(false);
    for sample in &mut report.samples {
        if sample.contender == SUBJECT.id {
            // About 9.9 against 10, 1-2% either way by round: a tie, so no saving to weigh.
            let wobble = [1.02, 0.98, 1.01, 0.99][sample.round];
            sample.value = Some(9.9 * wobble);
        }
    }
    let text = render(&report);
    assert!(text.contains("−0.10 of 10.0 µs (−1%, *ties*)"), "{text}");
    assert!(
        text.contains("costs the same within ±10% on *keep-alive, small requests*."),
        "{text}"
    );
    assert!(!text.contains("Where it wins on CPU"), "{text}");
}

#[test]
fn the_block_replaces_what_lies_between_its_markers() {
    let document = format!("# Title\n\n{BEGIN}\nold\n{END}\n\nrest\n");
    let block = render(&report(false));
    let rewritten = replace_between(&document, BEGIN, END, &block).unwrap();
    assert!(!rewritten.contains("old"));
    assert!(rewritten.starts_with("# Title\n\n") && rewritten.ends_with("rest\n"));
    assert!(rewritten.contains("| keep-alive, small requests |"));
}

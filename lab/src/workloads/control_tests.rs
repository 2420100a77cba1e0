//! The answer's line on the A/A control: the verdict's count and the rows it called, every
//! other A/A control named with its count, the studies without one; and the committed
//! BENCHMARKS.md's line gives the counts the committed results hold.

use super::*;

fn estimate(ratios: &[f64]) -> Option<Estimate> {
    Estimate::of(ratios)
}

#[test]
fn a_control_that_ties_everywhere_says_so() {
    let rows = vec![
        ("a".to_string(), estimate(&[1.0, 1.001, 0.999, 1.0])),
        ("b".to_string(), estimate(&[0.5, 2.0, 0.7, 1.6])),
        ("c".to_string(), None),
    ];
    assert_eq!(
        sentence(&rows, &[]).unwrap(),
        "io_uring_server against a second process of itself, which should tie, read on the \
         verdict's rows *ties* in 1 of 2 cells judged, *wins* or *loses* in 0, *inconclusive* \
         in 1: the rule called no false difference on these rows (one run's evidence, and \
         blind to a bias both processes share)."
    );
}

#[test]
fn a_difference_the_control_shows_is_named_with_its_word() {
    let rows = vec![
        ("a".to_string(), estimate(&[1.04, 1.05, 1.03, 1.04, 1.05, 1.04])),
        ("b".to_string(), estimate(&[1.0, 1.001, 0.999, 1.0])),
    ];
    let text = sentence(&rows, &[]).unwrap();
    assert!(
        text.contains(
            "*ties* in 1 of 2 cells judged, *wins* or *loses* in 1, *inconclusive* in 0; it \
             reads *loses* on *a* (the second process's figure 1.04x the first's):"
        ),
        "{text}"
    );
    assert_eq!(
        sentence(&[("a".to_string(), None)], &[]),
        None,
        "no control, no line"
    );
}

#[test]
fn every_other_control_is_named_with_its_count_and_the_studies_without_one_listed() {
    let rows = vec![("a".to_string(), estimate(&[1.0, 1.001, 0.999, 1.0]))];
    let count = |ties, called, undecided| ControlCount {
        ties,
        called,
        undecided,
    };
    let elsewhere = [
        Elsewhere::Counted("the feature rows".into(), count(9, 1, 0)),
        Elsewhere::Counted("the churn study".into(), count(10, 0, 4)),
        Elsewhere::Uncounted("the load curve".into()),
        Elsewhere::Without("scaling with cores".into()),
        Elsewhere::Without("`cargo bench`".into()),
    ];
    let text = sentence(&rows, &elsewhere).unwrap();
    assert!(
        text.ends_with(
            "share). The other A/A controls, each counted under its own table: the feature \
             rows *ties* in 9 of 10, *wins* or *loses* in 1; the churn study *ties* in 10 of \
             14, *inconclusive* in 4; the load curve under its table. No A/A control in \
             scaling with cores and `cargo bench`."
        ),
        "{text}"
    );
}

#[test]
fn a_study_has_a_control_where_its_results_file_measured_one() {
    let dir = std::env::temp_dir().join(format!("control-studies-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let with = format!(r#"{{"points": [{{"contender": "{}"}}]}}"#, AA_CONTROL.id);
    std::fs::write(dir.join("sweep.json"), with).unwrap();
    std::fs::write(
        dir.join("scaling.json"),
        r#"{"samples": [{"contender": "io_uring"}]}"#,
    )
    .unwrap();
    assert_eq!(
        studies(&dir),
        [
            Elsewhere::Uncounted("the load curve".into()),
            Elsewhere::Without("scaling with cores".into())
        ],
        "a study whose file is absent is left out"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The committed BENCHMARKS.md's line names the counts of the committed results: the churn
/// study's (results/churn.json) and the feature rows' (results/workloads.json).
#[test]
fn the_committed_line_gives_every_committed_count() {
    let root = harness::servers::workspace_root();
    let text = std::fs::read_to_string(root.join("BENCHMARKS.md")).unwrap();
    let line = text
        .lines()
        .find(|line| line.starts_with("- **The control.**"))
        .expect("BENCHMARKS.md has the control's line");
    let churn = studies(&root.join("results"))
        .into_iter()
        .find_map(|e| match e {
            Elsewhere::Counted(name, count) if name.contains("churn") => Some(count),
            _ => None,
        })
        .expect("results/churn.json counts its A/A control");
    assert!(
        line.contains(&format!("([churn](results/churn.md)) {}", short(&churn))),
        "{line}"
    );
    let report: crate::workloads::WorkloadsReport =
        harness::output::read_json(&root.join("results/workloads.json")).unwrap();
    // The feature rows' A/A cells on the verdict's workloads are the verdict's own: the
    // line counts only the others, and says how many it shares.
    let verdict: Vec<&str> = crate::workloads::judged::rows(&report)
        .iter()
        .filter(|row| row.client_bound(&report).is_none())
        .filter_map(|row| match row.source {
            crate::workloads::judged::Source::Values(w) => Some(w.name),
            _ => None,
        })
        .collect();
    let cells = crate::workloads::features::control_cells(&report);
    let (shared, own): (Vec<_>, Vec<_>) = cells.iter().partition(|(w, _)| verdict.contains(&w.name));
    let own = ControlCount::of(own.iter().map(|(_, ratios)| ratios.as_slice()));
    assert!(
        line.contains(&format!(
            "the feature rows, beyond the {} A/A cells that are the verdict's own, {}",
            shared.len(),
            short(&own)
        )),
        "{line}"
    );
    assert!(line.contains("No A/A control in"), "{line}");
}

#[test]
fn a_feature_rows_cell_on_a_verdict_workload_is_counted_once() {
    use crate::workloads::answer::feature_controls;
    use crate::workloads::{WORKLOADS, Workload};
    let (a, b): (Workload, Workload) = (WORKLOADS[0], WORKLOADS[1]);
    let tie = vec![1.0, 1.001, 0.999, 1.0];
    let win = vec![0.97, 0.98, 0.97, 0.98];
    // Both cells the verdict's: named, not counted again.
    let reused = feature_controls(vec![(a, win.clone()), (b, tie.clone())], &[a.name, b.name]);
    assert_eq!(
        reused,
        Some(Elsewhere::Reused(
            "the feature rows, whose 2 A/A cells are the verdict's own".into()
        ))
    );
    assert_eq!(
        others(&[reused.unwrap()]),
        " The other A/A controls, each counted under its own table: the feature rows, whose 2 \
         A/A cells are the verdict's own."
    );
    // One the verdict's (the win), one its own (the tie): only the tie is counted.
    let apart = feature_controls(vec![(a, win), (b, tie)], &[a.name]).unwrap();
    assert_eq!(
        others(&[apart]),
        " The other A/A controls, each counted under its own table: the feature rows, beyond \
         the 1 A/A cell that is the verdict's own, *ties* in 1 of 1."
    );
    assert_eq!(feature_controls(Vec::new(), &[a.name]), None);
}

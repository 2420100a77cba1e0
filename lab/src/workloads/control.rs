//! The answer's line on the A/A control: io_uring_server against a second process of
//! itself, judged by the same rule on every row. It should tie; a row where the rule still
//! called a difference shows how much this machine moves on its own, the yardstick for the
//! small margins in the rows beside it.

use harness::judge::{ControlCount, Estimate, Word};

use crate::workloads::SUBJECT;
use crate::workloads::worth::word;

/// Which studies the line covers: the verdict's rows; each other study with an A/A
/// control counts its own under its table.
const COVERS: &str = "This is the verdict's A/A control; the churn study counts its own under \
     its table ([churn](results/churn.md)), and the rows beyond the verdict (large bodies, \
     files) count theirs under their own tables.";

/// The sentence for `rows` (each row's name and the control's estimate on it, `None`
/// where the control did not run there; a caller leaves client-bound rows out), counted
/// as every view counts an A/A control ([`ControlCount`]); `None` where it ran on no row.
pub fn sentence(rows: &[(String, Option<Estimate>)]) -> Option<String> {
    let judged: Vec<(&String, &Estimate)> = rows
        .iter()
        .filter_map(|(name, estimate)| estimate.as_ref().map(|e| (name, e)))
        .collect();
    if judged.is_empty() {
        return None;
    }
    let count = ControlCount::of_words(judged.iter().map(|(_, e)| e.word));
    let called: Vec<String> = judged
        .iter()
        .filter(|(_, e)| matches!(e.word, Word::Wins | Word::Loses))
        .map(|(name, e)| {
            format!(
                "{} on *{name}* (the second process's figure {:.2}x the first's)",
                word(e),
                e.ratio
            )
        })
        .collect();
    let head = format!(
        "{} against a second process of itself, which should tie, read {}",
        SUBJECT.label,
        count.phrase()
    );
    Some(match called.is_empty() {
        true => format!(
            "{head}: the rule called no false difference on these rows (one run's evidence, \
             and blind to a bias both processes share). {COVERS}"
        ),
        false => format!(
            "{head}; it reads {}: a difference the machine alone made, so read a row that \
             wins without \"by ≥10%\" with that in mind. {COVERS}",
            called.join(", ")
        ),
    })
}

#[cfg(test)]
mod tests {
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
            sentence(&rows).unwrap(),
            format!(
                "io_uring_server against a second process of itself, which should tie, read \
                 *ties* in 1 of 2 cells judged, *wins* or *loses* in 0, *inconclusive* in 1: the \
                 rule called no false difference on these rows (one run's evidence, and blind \
                 to a bias both processes share). {COVERS}"
            )
        );
    }

    #[test]
    fn a_difference_the_control_shows_is_named_with_its_word() {
        let rows = vec![
            ("a".to_string(), estimate(&[1.04, 1.05, 1.03, 1.04, 1.05, 1.04])),
            ("b".to_string(), estimate(&[1.0, 1.001, 0.999, 1.0])),
        ];
        let text = sentence(&rows).unwrap();
        assert!(
            text.contains(
                "*ties* in 1 of 2 cells judged, *wins* or *loses* in 1, *inconclusive* in 0; it \
                 reads *loses* on *a* (the second process's figure 1.04x the first's):"
            ),
            "{text}"
        );
        assert_eq!(sentence(&[("a".to_string(), None)]), None, "no control, no line");
    }
}

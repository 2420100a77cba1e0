//! The answer's line on the A/A control: io_uring_server against a second process of
//! itself, judged by the same rule on every row. It should tie; a row where the rule still
//! called a difference shows how much this machine moves on its own, the yardstick for the
//! small margins in the rows beside it. The line then names every other A/A control the
//! committed results hold, with its count ([`Elsewhere`]: the feature rows, the rows beyond
//! the verdict, the churn study), each distinct cell counted once (a feature row's cell on
//! a verdict row's workload is the verdict's own), and the studies that have none
//! ([`studies`]).

use std::path::Path;

use harness::judge::{ControlCount, Estimate, Word};
use harness::servers::AA_CONTROL;

use crate::workloads::SUBJECT;
use crate::workloads::worth::word;

/// Another table's or study's A/A control, by the name the line gives it.
#[derive(Debug, Clone, PartialEq)]
pub enum Elsewhere {
    /// It has one, whose cells read so.
    Counted(String, ControlCount),
    /// It has one, which only its own page counts.
    Uncounted(String),
    /// It has one whose cells are all another control's, counted there: named, not
    /// counted again.
    Reused(String),
    /// It has none.
    Without(String),
}

/// The studies other than the workloads study, each with the results file its run is kept
/// in (under `results/`), and how to count its A/A control where it has one.
const STUDIES: [(&str, &str, Option<Count>); 5] = [
    (
        "the churn study ([churn](results/churn.md))",
        "churn.json",
        Some(churn),
    ),
    ("the load curve", "sweep.json", None),
    ("scaling with cores", "scaling.json", None),
    ("the profiles", "profiles.json", None),
    ("`cargo bench`", "latest.json", None),
];

/// How a study's A/A control read, from its results file.
type Count = fn(&Path) -> Option<ControlCount>;

fn churn(path: &Path) -> Option<ControlCount> {
    let report: crate::churn::ChurnReport = harness::output::read_json(path).ok()?;
    Some(ControlCount::of(report.control_cells().iter().map(Vec::as_slice)))
}

/// What the other studies' results files under `results` hold of an A/A control: each
/// study whose file is there, counted where it has one (a sample of [`AA_CONTROL`]).
pub fn studies(results: &Path) -> Vec<Elsewhere> {
    STUDIES
        .iter()
        .filter_map(|(name, file, count)| {
            let path = results.join(file);
            let text = std::fs::read_to_string(&path).ok()?;
            let value: serde_json::Value = serde_json::from_str(&text).ok()?;
            let name = name.to_string();
            Some(
                match (has_control(&value), count.and_then(|count| count(&path))) {
                    (false, _) => Elsewhere::Without(name),
                    (true, Some(counted)) => Elsewhere::Counted(name, counted),
                    (true, None) => Elsewhere::Uncounted(name),
                },
            )
        })
        .collect()
}

/// Whether a results file holds a measurement of the A/A control: an object whose
/// `contender` is its id, at any depth.
pub fn has_control(value: &serde_json::Value) -> bool {
    match value {
        serde_json::Value::Object(fields) => fields.iter().any(|(key, field)| {
            (key == "contender" && field.as_str() == Some(AA_CONTROL.id)) || has_control(field)
        }),
        serde_json::Value::Array(items) => items.iter().any(has_control),
        _ => false,
    }
}

/// "*ties* in 9 of 10, *wins* or *loses* in 1": a count, the cells it did not have left out.
fn short(count: &ControlCount) -> String {
    let mut out = format!("*ties* in {} of {}", count.ties, count.judged());
    if count.called > 0 {
        out.push_str(&format!(", *wins* or *loses* in {}", count.called));
    }
    if count.undecided > 0 {
        out.push_str(&format!(", *inconclusive* in {}", count.undecided));
    }
    out
}

/// " The other A/A controls, each counted under its own table: ...; no A/A control in:
/// ...": what `elsewhere` holds; empty where it holds nothing.
fn others(elsewhere: &[Elsewhere]) -> String {
    let counted: Vec<String> = elsewhere
        .iter()
        .filter_map(|e| match e {
            Elsewhere::Counted(name, count) if count.judged() > 0 => Some(format!("{name} {}", short(count))),
            Elsewhere::Counted(name, _) | Elsewhere::Uncounted(name) => {
                Some(format!("{name} under its table"))
            }
            Elsewhere::Reused(name) => Some(name.clone()),
            Elsewhere::Without(_) => None,
        })
        .collect();
    let without: Vec<&str> = elsewhere
        .iter()
        .filter_map(|e| match e {
            Elsewhere::Without(name) => Some(name.as_str()),
            _ => None,
        })
        .collect();
    let mut out = String::new();
    if !counted.is_empty() {
        out.push_str(&format!(
            " The other A/A controls, each counted under its own table: {}.",
            counted.join("; ")
        ));
    }
    if let Some((last, rest)) = without.split_last() {
        let them = match rest.is_empty() {
            true => last.to_string(),
            false => format!("{} and {last}", rest.join(", ")),
        };
        out.push_str(&format!(" No A/A control in {them}."));
    }
    out
}

/// The sentence for `rows` (each row's name and the control's estimate on it, `None`
/// where the control did not run there; a caller leaves client-bound rows out), counted
/// as every view counts an A/A control ([`ControlCount`]), then every other A/A control
/// and the studies without one (`elsewhere`); `None` where it ran on no row.
pub fn sentence(rows: &[(String, Option<Estimate>)], elsewhere: &[Elsewhere]) -> Option<String> {
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
        "{} against a second process of itself, which should tie, read on the verdict's rows {}",
        SUBJECT.label,
        count.phrase()
    );
    let others = others(elsewhere);
    Some(match called.is_empty() {
        true => format!(
            "{head}: the rule called no false difference on these rows (one run's evidence, \
             and blind to a bias both processes share).{others}"
        ),
        false => format!(
            "{head}; it reads {}: a difference the machine alone made, so read a row that \
             wins without \"by ≥10%\" with that in mind.{others}",
            called.join(", ")
        ),
    })
}

#[cfg(test)]
#[path = "control_tests.rs"]
mod tests;

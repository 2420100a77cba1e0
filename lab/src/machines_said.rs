//! What the runs of `results/machines.md` say together, in a line: the first screen's line
//! on the other machines measured ([`first_screen_line`]), and, where a run was made at
//! older benchmarked code than the rest ([`older_code`]), that a word which differs between the
//! runs may have changed with the code as well as with the machine.

use super::{CORE_ROWS, MachineRun, differing_rows};

/// Which benchmarked files changed since a commit (`None`: none did), as the stale check says
/// ([`harness::stale::changed_since`]).
pub type Changed<'a> = &'a dyn Fn(&str) -> Option<Vec<String>>;

/// The letters of the `runs` (as the page names their columns) made at older benchmarked code
/// than the rest, as `changed` says: empty where every run was made at one commit, whose
/// code is then the same in each. Where one is, a word that differs between runs may have
/// changed with the code as well as with the machine.
pub fn older_code(runs: &[MachineRun], changed: Changed) -> Vec<char> {
    if runs.iter().all(|run| run.commit() == runs[0].commit()) {
        return Vec::new();
    }
    ('A'..='Z')
        .zip(runs)
        .filter(|(_, run)| changed(run.commit()).is_some())
        .map(|(letter, _)| letter)
        .collect()
}

/// " Run A was older benchmarked code, so the code, the machine or run-to-run noise changed
/// it.": what the rows that differ cannot tell apart where [`older_code`] names a run;
/// empty where it names none.
pub(super) fn older_code_said(letters: &[char]) -> String {
    let named: Vec<String> = letters.iter().map(char::to_string).collect();
    match named.split_last() {
        None => String::new(),
        Some((last, [])) => {
            format!(
                " Run {last} was older benchmarked code, so the code, the machine or run-to-run noise changed it."
            )
        }
        Some((last, rest)) => format!(
            " Runs {} and {last} were older benchmarked code, so the code, the machine or run-to-run noise changed it.",
            rest.join(", ")
        ),
    }
}

/// The first screen's line on the machines ("Other runs" while every run is on one CPU
/// model): how many runs on how many CPU models the core rows were measured on, and which rows' words changed between them (by name while the
/// line stays under 300 characters, else by count); where a run was made at older server
/// code ([`older_code`]), that the machine or the code changed them.
pub fn first_screen_line(runs: &[MachineRun], changed: Changed) -> String {
    const PAGE: &str = "[results/machines.md](results/machines.md)";
    let mut models: Vec<&str> = runs.iter().map(|r| r.machine.cpu_model.as_str()).collect();
    models.sort_unstable();
    models.dedup();
    if runs.len() < 2 {
        return format!(
            "- **Other machines.** The core rows have been measured on one machine so far ({PAGE})."
        );
    }
    // Runs on one CPU model say how far the answer moves between runs, not across CPUs.
    let head = match models.len() {
        1 => format!(
            "- **Other runs.** On {} runs of the core rows (one CPU model so far, {PAGE}),",
            runs.len()
        ),
        n => format!(
            "- **Other machines.** On {} runs of the core rows ({n} CPU models, {PAGE}),",
            runs.len()
        ),
    };
    let differing = differing_rows(runs);
    let older = older_code(runs, changed);
    let code = older_code_said(&older);
    let named = format!(
        "{head} the word differed on {}: {}.{code}",
        differing.len(),
        differing.join("; ")
    );
    match differing.len() {
        0 => format!("{head} every core row read the same word on each."),
        _ if named.chars().count() < 300 => named,
        n => format!(
            "{head} the word differed on {n} of {} core rows.{code}",
            CORE_ROWS.len()
        ),
    }
}

//! What the runs of `results/machines.md` say together, in a line: the first screen's line
//! on the other machines measured ([`first_screen_line`]), and, where a run was made at
//! older benchmarked code than the rest ([`older_code`]), that a word which differs between the
//! runs may have changed with the code as well as with the machine.

use harness::workload::wakes::Wakefulness;

use super::{CORE_ROWS, MachineRun, RunRow, differing_rows};

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
/// model): how many runs on how many CPU models the core rows were measured on, and of the
/// rows every run measured, on how many the word held, on how many a run decided none, and
/// which differed ([`differing_rows`]: by name while the line stays under 300 characters,
/// else by count), saying so where each of those woke its servers for most requests on
/// every run (a wake-up's cost differs between machines); where a run was made at older
/// server code ([`older_code`]), that the machine or the code changed them.
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
            "- **Other runs.** On [{} runs](results/machines.md) of the core rows (one CPU model so far),",
            runs.len()
        ),
        n => format!(
            "- **Other machines.** On [{n} CPU models](results/machines.md) ({} runs of the core rows),",
            runs.len()
        ),
    };
    let differing = differing_rows(runs);
    let counts = Counts::of(runs, &differing);
    let code = older_code_said(&older_code(runs, changed));
    if differing.is_empty() && counts.undecided == 0 {
        return format!("{head} every core row read the same word on each.");
    }
    // The rows that depend on a wake-up's cost: their servers woke for most requests.
    let woken = CORE_ROWS
        .into_iter()
        .filter(|name| woke_on_every_run(runs, name))
        .count();
    let woke = match differing.iter().all(|name| woke_on_every_run(runs, name)) {
        true => format!(", all among the {woken} rows whose servers woke for most requests"),
        false => String::new(),
    };
    let named = format!("{head} {}: {}{woke}.{code}", counts.said(), differing.join("; "));
    match differing.len() {
        0 => format!("{head} {}.{code}", counts.said()),
        _ if named.chars().count() < 300 => named,
        _ => format!("{head} {}; the page names them.{code}", counts.said()),
    }
}

/// Of the core rows every run measured: how many held their word on every run, how many
/// some run decided none on (*inconclusive* or *client-bound*), and how many differed.
struct Counts {
    measured: usize,
    held: usize,
    undecided: usize,
    differed: usize,
}

impl Counts {
    fn of(runs: &[MachineRun], differing: &[&str]) -> Counts {
        let measured: Vec<&str> = CORE_ROWS
            .into_iter()
            .filter(|name| runs.iter().all(|run| run.row(name).is_some()))
            .collect();
        let differed = measured.iter().filter(|name| differing.contains(name)).count();
        let undecided = measured
            .iter()
            .filter(|name| !differing.contains(name))
            .filter(|name| {
                runs.iter()
                    .any(|run| run.row(name).and_then(RunRow::decided).is_none())
            })
            .count();
        Counts {
            measured: measured.len(),
            held: measured.len() - differed - undecided,
            undecided,
            differed,
        }
    }

    /// "4 of 10 rows held their word, 3 were undecided on a run and 3 differed".
    fn said(&self) -> String {
        let mut parts = vec![format!("{} of {} rows held their word", self.held, self.measured)];
        if self.undecided > 0 {
            let verb = if self.undecided == 1 { "was" } else { "were" };
            parts.push(format!("{} {verb} undecided on a run", self.undecided));
        }
        if self.differed > 0 {
            parts.push(format!("{} differed", self.differed));
        }
        match parts.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
            _ => parts.join(""),
        }
    }
}

/// Whether every run that counted wake-ups says row `name`'s servers woke for most requests
/// (and at least one did).
fn woke_on_every_run(runs: &[MachineRun], name: &str) -> bool {
    let wakes: Vec<&str> = runs
        .iter()
        .filter_map(|run| run.row(name)?.wakes.as_deref())
        .collect();
    let woke = Wakefulness::WokePerRequest.describe();
    !wakes.is_empty() && wakes.iter().all(|w| *w == woke)
}

//! `results/machines.md`: the verdict's core rows on every machine the project was measured
//! on, one column per run. Each run is kept as a small JSON under `results/machines/`
//! ([`MachineRun`]: its machine record and, per core row, io_uring_server ÷ the cheapest
//! tokio configuration round by round), extracted from a workloads report ([`extract`]:
//! `scripts/reproduce_here.sh`, or `scripts/reproduce.sh` from the full run), and the page
//! is rendered from all of them ([`render`]), each cell's word by the verdict's one rule.
//! A run made at a commit after which the benchmarked code changed is kept, marked as from
//! older benchmarked code ([`harness::stale`]); where one is, a word that differs between the
//! runs may have changed with the code as well as with the machine, and the page and the
//! first screen's line ([`first_screen_line`]) say so. [`differing_rows`] names the rows
//! whose word differs between machines, [`held_on`] on how many a row's word held.

use std::path::Path;

use harness::judge::{Estimate, Word, brief_cell};
use harness::machine::Machine;
use serde::{Deserialize, Serialize};

use crate::workloads::WorkloadsReport;
use crate::workloads::judged;

#[path = "machines_page.rs"]
mod page;
pub use page::{other_baselines, render};
#[path = "machines_said.rs"]
mod said;
pub use said::{Changed, first_screen_line, older_code};

/// The workloads `scripts/reproduce_here.sh` measures (`--only`, matched as the study
/// matches: within a name, so "one connection" is also its TLS row).
pub const CORE_WORKLOADS: [&str; 7] = [
    "one connection",
    "keep-alive, small requests at a fixed rate",
    "keep-alive over TLS at a fixed rate",
    "churn, server closes at a fixed rate",
    "4 KiB files, 16 connections at a fixed rate",
    "64 KiB echo at a fixed rate",
    "20 MiB uploads at a fixed rate",
];

/// The core rows, by the name a reader reads in the verdict table ([`judged::Row::name`]),
/// in the page's order.
pub const CORE_ROWS: [&str; 10] = [
    "one connection (server CPU)",
    "one connection (round trip)",
    "one connection over TLS (server CPU)",
    "one connection over TLS (round trip)",
    "keep-alive, small requests",
    "keep-alive over TLS",
    "churn, server closes",
    "4 KiB files, 16 connections",
    "64 KiB echo",
    "20 MiB uploads",
];

/// One core row of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRow {
    /// One of [`CORE_ROWS`].
    pub name: String,
    /// The cheapest tokio configuration it was divided by; `None` where none was chosen.
    pub against: Option<String>,
    /// io_uring_server ÷ it, per round.
    pub ratios: Vec<f64>,
    /// How busy the client was where the row was client-bound (its word then
    /// "client-bound", as in the verdict table).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_bound: Option<f64>,
    /// "woke for most requests", "servers mostly awake" or "only io_uring_server woke for
    /// most requests" ([`harness::workload::wakes`]); `None` for a run that did not count
    /// wake-ups.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wakes: Option<String>,
}

impl RunRow {
    /// The rule's word, where it decided one (not a client-bound row's, nor inconclusive).
    pub fn decided(&self) -> Option<Word> {
        if self.client_bound.is_some() {
            return None;
        }
        Estimate::of(&self.ratios)
            .map(|e| e.word)
            .filter(|w| *w != Word::Inconclusive)
    }

    /// "0.81 **wins** by ≥10% (woke for most requests)", or "0.82 *client-bound*"; with
    /// `baseline`, naming what it was divided by: "0.40 **wins** by ≥10% against
    /// tokio_server (codec)" (where the runs' baselines differ on the row).
    fn cell(&self, baseline: bool) -> String {
        let mut cell = match (self.client_bound, Estimate::of(&self.ratios)) {
            (Some(_), Some(estimate)) => format!("{:.2} *client-bound*", estimate.ratio),
            _ => brief_cell(&self.ratios),
        };
        if let Some(against) = self.against.as_deref().filter(|_| baseline) {
            cell.push_str(&format!(" against {against}"));
        }
        match &self.wakes {
            Some(wakes) => format!("{cell} ({wakes})"),
            None => cell,
        }
    }
}

/// One measured machine run: where it ran and its core rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MachineRun {
    pub machine: Machine,
    /// Where the servers and the client ran ("server on CPU 0, client on CPU 1").
    pub pinning: String,
    /// io_uring_server's median round trip at one connection, µs: what a wake-up costs on
    /// that machine where the wake-up probe was not recorded.
    pub one_connection_round_trip_us: Option<f64>,
    pub rows: Vec<RunRow>,
}

impl MachineRun {
    /// "intel-r-xeon-r-processor-6-18-44-fc-v669": the file name (without `.json`) a run
    /// is kept under, so that a run on the same CPU model and kernel replaces it.
    pub fn key(&self) -> String {
        slug(&format!("{} {}", self.machine.cpu_model, self.machine.kernel))
    }

    /// The commit the run was made at, without any note on uncommitted changes.
    pub fn commit(&self) -> &str {
        let text = self.machine.git_commit.as_str();
        let end = text.find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(text.len());
        &text[..end]
    }

    /// "`ac59d76`", or with the tree's uncommitted changes: "`ac59d76` plus uncommitted
    /// changes to a.rs, b.rs" where the record names the files, else "`ac59d76` plus
    /// uncommitted changes (files not recorded)".
    pub fn commit_said(&self) -> String {
        let commit = self.commit();
        let rest = self.machine.git_commit[commit.len()..].trim();
        match rest
            .strip_prefix("(uncommitted changes to ")
            .and_then(|f| f.strip_suffix(')'))
        {
            _ if rest.is_empty() => format!("`{commit}`"),
            Some(files) => format!("`{commit}` plus uncommitted changes to {files}"),
            None => format!("`{commit}` plus uncommitted changes (files not recorded)"),
        }
    }

    /// "17.3 µs wake-up round trip from idle" from the probe, else "77.0 µs
    /// one-connection round trip (wake-up not recorded)".
    pub fn wake_up(&self) -> String {
        match (&self.machine.wake_up, self.one_connection_round_trip_us) {
            (Some(w), _) => format!("{:.1} µs wake-up round trip from idle", w.asleep.round_trip_us),
            (None, Some(us)) => {
                format!("{us:.1} µs one-connection round trip (wake-up not recorded)")
            }
            (None, None) => "wake-up not recorded".into(),
        }
    }

    pub(crate) fn row(&self, name: &str) -> Option<&RunRow> {
        self.rows.iter().find(|r| r.name == name)
    }
}

/// Lowercase letters and digits, every other run of characters one `-`.
fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        match c.is_ascii_alphanumeric() {
            true => out.push(c.to_ascii_lowercase()),
            false if !out.ends_with('-') && !out.is_empty() => out.push('-'),
            false => {}
        }
    }
    out.trim_end_matches('-').to_string()
}

/// The core rows of `report`, judged as its verdict table judges them (a report from
/// before the fixed-rate rows were named so read with today's names).
pub fn extract(report: &WorkloadsReport) -> MachineRun {
    let report = &with_todays_names(report);
    let rows = judged::rows(report)
        .into_iter()
        .filter(|row| CORE_ROWS.contains(&row.name().as_str()))
        .map(|row| {
            let subject = crate::workloads::SUBJECT;
            let mut servers = vec![(subject.id, subject.label)];
            servers.extend(row.best.contender.map(|c| (c.id, c.label)));
            RunRow {
                name: row.name(),
                against: row.best.contender.map(|c| c.label.to_string()),
                client_bound: row.best_bound(report),
                wakes: report.wake_word(&row.workload, &servers),
                ratios: row.best.ratios,
            }
        })
        .collect();
    let round_trips: Vec<f64> = report
        .values("one connection", crate::workloads::SUBJECT.id)
        .into_iter()
        .flatten()
        .collect();
    MachineRun {
        machine: report.machine.clone(),
        pinning: report.pinning.clone(),
        one_connection_round_trip_us: harness::rounds::median(&round_trips),
        rows,
    }
}

/// What a fixed-rate row was named before 5a4ee6c, and is named now.
const RENAMED: (&str, &str) = (" at 50% load", " at a fixed rate");

fn with_todays_names(report: &WorkloadsReport) -> WorkloadsReport {
    let rename = |name: &mut String| {
        if let Some(base) = name.strip_suffix(RENAMED.0) {
            *name = format!("{base}{}", RENAMED.1);
        }
    };
    let mut report = report.clone();
    report.samples.iter_mut().for_each(|s| rename(&mut s.workload));
    report.judged.iter_mut().flatten().for_each(rename);
    report
}

/// The rows whose decided word differs between `runs` (a run that is inconclusive or
/// client-bound on a row does not count), in the page's order: what the first screen
/// names as depending on the machine.
pub fn differing_rows(runs: &[MachineRun]) -> Vec<&'static str> {
    CORE_ROWS
        .into_iter()
        .filter(|name| {
            let mut words: Vec<Word> = runs.iter().filter_map(|run| run.row(name)?.decided()).collect();
            words.sort_by_key(|w| w.as_str());
            words.dedup();
            words.len() > 1
        })
        .collect()
}

/// How a row's word held across machine runs ([`held_on`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Held {
    /// Runs whose rule said the word.
    pub same: usize,
    /// Runs whose rule decided nothing there (*inconclusive*, or *client-bound*).
    pub undecided: usize,
    /// Runs that measured the row.
    pub measured: usize,
}

/// On how many of `runs` the rule said `word` on row `name`, and on how many it decided
/// none, of those that measured it: how far a headline row held across machines, for the
/// first screen.
pub fn held_on(runs: &[MachineRun], name: &str, word: Word) -> Held {
    let measured: Vec<&RunRow> = runs.iter().filter_map(|run| run.row(name)).collect();
    Held {
        same: measured.iter().filter(|row| row.decided() == Some(word)).count(),
        undecided: measured.iter().filter(|row| row.decided().is_none()).count(),
        measured: measured.len(),
    }
}

/// Every run kept under `dir` (`results/machines/`), oldest first.
pub fn read_runs(dir: &Path) -> Result<Vec<MachineRun>, String> {
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|entry| Some(entry.ok()?.path()))
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    let mut runs = paths
        .iter()
        .map(|path| harness::output::read_json::<MachineRun>(path))
        .collect::<Result<Vec<_>, _>>()?;
    runs.sort_by(|a, b| a.machine.date.cmp(&b.machine.date));
    Ok(runs)
}

#[cfg(test)]
#[path = "machines_tests.rs"]
mod tests;

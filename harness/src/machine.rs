//! The machine and build a run happened on, recorded beside every result.

use std::process::Command;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::steal::StealWatch;
use crate::wake_up::{self, WakeUp};

/// Steal of every CPU since the tool started ([`start_run`]).
static RUN_STEAL: OnceLock<Option<StealWatch>> = OnceLock::new();

/// The commit the tool started at ([`start_run`]): what it builds its servers from.
static RUN_COMMIT: OnceLock<String> = OnceLock::new();

/// Starts counting the CPU steal this run will report beside its machine (see
/// [`Machine::steal_percent`]), and notes the commit it starts at, which its record
/// names: a file edited while a long study runs changes nothing it measures, since its
/// servers were built as it started. Called once by every tool as it starts.
pub fn start_run() {
    RUN_STEAL.get_or_init(|| StealWatch::start_all().ok());
    RUN_COMMIT.get_or_init(git_commit_now);
}

/// The share of every CPU's time stolen since [`start_run`], in percent.
fn run_steal_percent() -> Option<f64> {
    let steal = RUN_STEAL.get()?.as_ref()?.read().ok()?;
    Some(steal.server * 100.0)
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    pub date: String,
    pub git_commit: String,
    pub cpu_model: String,
    pub logical_cores: usize,
    pub physical_cores: Option<usize>,
    pub memory_gib: f64,
    pub kernel: String,
    pub rustc: String,
    /// CPU time stolen by the hypervisor during the run, as a percentage of all CPUs'
    /// time since the tool started; `None` when it was not counted.
    #[serde(default)]
    pub steal_percent: Option<f64>,
    /// What a wake-up costs on this machine ([`crate::wake_up`]); `None` when it was not
    /// measured (a record made before it was). Boxed, so a record stays small inside the
    /// agent's answers ([`crate::remote`]).
    #[serde(default)]
    pub wake_up: Option<Box<WakeUp>>,
}

impl Machine {
    /// "CPU, N logical cores, X GiB, kernel K, rustc R, steal S% during the run, wake-up:
    /// ...": the machine in one phrase.
    pub fn summary(&self) -> String {
        let steal = self.steal_percent.map_or_else(String::new, |s| {
            format!(", steal {s:.1}% of CPU time during the run")
        });
        let wake_up = self.wake_up_phrase();
        format!(
            "{}, {} logical cores, {:.1} GiB, kernel {}, {}{steal}{wake_up}",
            self.cpu_model, self.logical_cores, self.memory_gib, self.kernel, self.rustc
        )
    }

    /// "CPU, wake-up: ...": the CPU model and what a wake-up costs on it.
    pub fn cpu_and_wake_up(&self) -> String {
        format!("{}{}", self.cpu_model, self.wake_up_phrase())
    }

    /// "Intel(R) Xeon(R) Processor, kernel 6.18.44": the machine a BENCHMARKS.md section's
    /// one-line provenance names.
    pub fn cpu_and_kernel(&self) -> String {
        format!("{}, kernel {}", self.cpu_model, self.kernel)
    }

    fn wake_up_phrase(&self) -> String {
        self.wake_up
            .as_ref()
            .map_or_else(String::new, |w| format!(", wake-up: {}", w.describe()))
    }

    /// A fixed machine for the reports' tests (2 cores, 3.25% steal); never measured.
    pub fn example() -> Machine {
        Machine {
            date: "2026-01-02 03:04 UTC".into(),
            git_commit: "abc1234".into(),
            cpu_model: "Example CPU @ 2.00GHz".into(),
            logical_cores: 2,
            physical_cores: Some(1),
            memory_gib: 23.47,
            kernel: "6.1.0".into(),
            rustc: "rustc 1.95.0".into(),
            steal_percent: Some(3.25),
            wake_up: None,
        }
    }

    pub fn detect() -> Machine {
        let system = sysinfo::System::new_all();
        let cpu_model = system
            .cpus()
            .first()
            .map_or_else(|| "unknown".into(), |cpu| cpu.brand().trim().to_string());
        Machine {
            date: command_output("date", &["-u", "+%Y-%m-%d %H:%M UTC"]),
            git_commit: git_commit(),
            cpu_model,
            logical_cores: system.cpus().len(),
            physical_cores: sysinfo::System::physical_core_count(),
            memory_gib: system.total_memory() as f64 / (1u64 << 30) as f64,
            kernel: sysinfo::System::kernel_version().unwrap_or_else(|| "unknown".into()),
            rustc: command_output("rustc", &["--version"]),
            steal_percent: run_steal_percent(),
            wake_up: wake_up::for_this_run().map(Box::new),
        }
    }
}

/// A machine for tests of rendering: no figure of it matters.
pub fn blank(git_commit: &str) -> Machine {
    Machine {
        date: "today".into(),
        git_commit: git_commit.into(),
        cpu_model: String::new(),
        logical_cores: 2,
        physical_cores: None,
        memory_gib: 1.0,
        kernel: String::new(),
        rustc: String::new(),
        steal_percent: None,
        wake_up: None,
    }
}

/// The commit the run started at, or, outside a tool's run, the one checked out now.
fn git_commit() -> String {
    RUN_COMMIT.get().cloned().unwrap_or_else(git_commit_now)
}

fn git_commit_now() -> String {
    let commit = command_output("git", &["rev-parse", "--short", "HEAD"]);
    let dirty = dirty_files();
    match dirty.is_empty() {
        true => commit,
        false => format!("{commit} (uncommitted changes to {})", name_files(&dirty)),
    }
}

/// The tracked files the tree differs in from its commit, as `git status` names them.
/// Generated output (results/, BENCHMARKS.md, README.md's answer block) rewritten by an
/// earlier script of the same session does not change what was measured, so it does not
/// count.
pub fn dirty_files() -> Vec<String> {
    let status = [
        "status",
        "--porcelain",
        "--untracked-files=no",
        "--",
        ":(top)",
        ":(top,exclude)results",
        ":(top,exclude)BENCHMARKS.md",
        ":(top,exclude)README.md",
    ];
    let Ok(output) = Command::new("git").args(status).output() else {
        return Vec::new();
    };
    let text = String::from_utf8_lossy(&output.stdout);
    // Each line is two status letters, a space and the path ("old -> new" for a rename).
    let path = |line: &str| {
        line.get(3..)
            .map(|p| p.rsplit(" -> ").next().unwrap_or(p).to_string())
    };
    text.lines().filter_map(path).collect()
}

/// "`a.rs`, `b.rs` and 3 more": the first few of `files`, for a record's commit.
fn name_files(files: &[String]) -> String {
    const NAMED: usize = 4;
    let named: Vec<&str> = files.iter().take(NAMED).map(String::as_str).collect();
    match files.len().saturating_sub(NAMED) {
        0 => named.join(", "),
        more => format!("{} and {more} more", named.join(", ")),
    }
}

/// Refuses to measure on a tree with uncommitted changes (outside the generated output,
/// [`dirty_files`]), so that a record's commit says what ran; `allow_dirty` measures
/// anyway, the record naming the files that differed.
pub fn refuse_dirty(allow_dirty: bool) -> Result<(), String> {
    let dirty = dirty_files();
    if dirty.is_empty() || allow_dirty {
        return Ok(());
    }
    Err(format!(
        "the tree has uncommitted changes to {}: commit them, run from a worktree at a commit \
         (docs/studies.md, \"Running from a worktree\"), or pass --allow-dirty to measure anyway \
         (the record then names those files)",
        name_files(&dirty)
    ))
}

fn command_output(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_names_the_first_files_that_differed() {
        let files: Vec<String> = ["a.rs", "b.rs", "c.rs", "d.rs", "e.rs", "f.rs"]
            .map(String::from)
            .into();
        assert_eq!(name_files(&files[..2]), "a.rs, b.rs");
        assert_eq!(name_files(&files), "a.rs, b.rs, c.rs, d.rs and 2 more");
        let commit = format!("abc1234 (uncommitted changes to {})", name_files(&files[..1]));
        let line = format!("Generated by `x` on today at commit `{commit}`: m");
        assert_eq!(crate::stale::commit_of(&line), Some("abc1234"));
    }

    #[test]
    fn memory_is_reported_in_gib_not_bytes() {
        let machine = Machine::detect();
        assert!(
            machine.memory_gib > 0.1 && machine.memory_gib < 16384.0,
            "{}",
            machine.memory_gib
        );
        assert!(machine.logical_cores >= 1);
    }
}

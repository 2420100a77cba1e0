//! What every study takes on its command line beside its own flags: where the servers and
//! the client run (`--server-cpus`, `--client-cpus`, falling back to `BENCH_SERVER_CPUS`
//! and `BENCH_CLIENT_CPUS` as `cargo bench` does), servers of yours beside ours
//! (`--server 'NAME=COMMAND {port}'`, [`harness::servers::outside`]), where the
//! reports go (`--out-dir`), and whether it may measure a tree with uncommitted changes
//! (`--allow-dirty`).
//!
//! A study writes into a root laid out like the workspace (`results/...` and the study's
//! section of `BENCHMARKS.md`). The committed reports are the workspace's own; a run with
//! servers of yours, or one given `--out-dir`, writes a root of its own instead, starting
//! from a copy of the workspace's `BENCHMARKS.md`, so a part of a study never rewrites
//! the committed report.

use std::path::{Path, PathBuf};

use harness::affinity::CpuSet;
use harness::servers::{Contender, outside};
use harness::settings::Pinning;

/// Where a study runs its servers and client, who else it measures, where it writes.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct Placement {
    /// CPUs the servers are pinned to, e.g. `0` or `0-7`; each server runs one worker per
    /// CPU (default: the first available).
    #[arg(long, env = "BENCH_SERVER_CPUS", value_parser = CpuSet::parse)]
    pub server_cpus: Option<CpuSet>,
    /// CPUs the client runs on, one load thread each, its connections spread over them
    /// (default: every available CPU the servers do not use).
    #[arg(long, env = "BENCH_CLIENT_CPUS", value_parser = CpuSet::parse)]
    pub client_cpus: Option<CpuSet>,
    /// A server of yours, started by COMMAND with `{port}` where it takes the port to
    /// listen on (127.0.0.1), `{files_dir}` where it takes the directory to serve `/files/`
    /// from (the file studies) and `{threads}` where it takes its thread count (one per
    /// server CPU, as ours), pinned and measured like ours; repeat for more.
    /// The run then writes under `--out-dir` (default `results/partial/<study>`).
    #[arg(long = "server", value_name = "NAME=COMMAND {port}")]
    pub outside: Vec<String>,
    /// Write the reports under this directory (as `DIR/results/...` and
    /// `DIR/BENCHMARKS.md`) instead of the committed ones.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// Measure on a tree with uncommitted changes (outside results/, BENCHMARKS.md and
    /// README.md); the record then names the files that differed. Without it a study
    /// refuses such a tree.
    #[arg(long)]
    pub allow_dirty: bool,
}

impl Placement {
    /// The pinning the flags (or their environment variables) ask for.
    pub fn pinning(&self) -> Pinning {
        Pinning::choose(
            &CpuSet::current(),
            self.server_cpus.clone(),
            self.client_cpus.clone(),
        )
    }

    /// Refuses a tree with uncommitted changes, unless `--allow-dirty`
    /// ([`harness::machine::refuse_dirty`]): what every study checks before it measures.
    pub fn clean_tree(&self) -> Result<(), String> {
        harness::machine::refuse_dirty(self.allow_dirty)
    }

    /// The servers of yours, in the order given.
    pub fn yours(&self) -> Result<Vec<Contender>, String> {
        outside::parse_all(&self.outside)
    }

    /// `contenders` and, after them, the servers of yours.
    pub fn with_yours(&self, contenders: &[Contender]) -> Result<Vec<Contender>, String> {
        Ok([contenders, &self.yours()?].concat())
    }

    /// Whether the run writes a root of its own rather than the committed reports.
    pub fn is_partial(&self) -> bool {
        self.out_dir.is_some() || !self.outside.is_empty()
    }

    /// The root `study` writes into: the workspace, or (for a part of the study) the
    /// directory [`Placement::is_partial`] picks, made ready with a copy of the workspace's
    /// `BENCHMARKS.md` for the study's section to be written into.
    pub fn root(&self, workspace: &Path, study: &str) -> Result<PathBuf, String> {
        if !self.is_partial() {
            return Ok(workspace.to_path_buf());
        }
        let root = self
            .out_dir
            .clone()
            .unwrap_or_else(|| workspace.join("results").join("partial").join(study));
        let results = root.join("results");
        std::fs::create_dir_all(&results).map_err(|e| format!("{}: {e}", results.display()))?;
        let benchmarks = root.join("BENCHMARKS.md");
        if !benchmarks.exists() {
            std::fs::copy(workspace.join("BENCHMARKS.md"), &benchmarks)
                .map_err(|e| format!("{}: {e}", benchmarks.display()))?;
        }
        Ok(root)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_reports_are_written_only_without_a_server_of_yours_or_a_directory() {
        let workspace = Path::new("/nonexistent/workspace");
        assert_eq!(Placement::default().root(workspace, "bodies").unwrap(), workspace);
        let yours = Placement {
            outside: vec!["mine=./srv {port}".into()],
            ..Placement::default()
        };
        assert!(yours.is_partial());
        assert_eq!(yours.yours().unwrap()[0].id, "mine");
    }

    #[test]
    fn a_part_of_a_study_writes_a_root_of_its_own_from_the_workspaces_benchmarks() {
        let dir = std::env::temp_dir().join(format!("placement-{}", std::process::id()));
        let workspace = dir.join("workspace");
        std::fs::create_dir_all(&workspace).unwrap();
        std::fs::write(workspace.join("BENCHMARKS.md"), "the committed text").unwrap();
        let placement = Placement {
            outside: vec!["mine=./srv {port}".into()],
            ..Placement::default()
        };
        let root = placement.root(&workspace, "churn").unwrap();
        assert_eq!(root, workspace.join("results/partial/churn"));
        assert!(root.join("results").is_dir());
        let copied = std::fs::read_to_string(root.join("BENCHMARKS.md")).unwrap();
        assert_eq!(copied, "the committed text");
        let elsewhere = Placement {
            out_dir: Some(dir.join("elsewhere")),
            ..Placement::default()
        };
        assert_eq!(
            elsewhere.root(&workspace, "churn").unwrap(),
            dir.join("elsewhere")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

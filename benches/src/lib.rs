//! Measuring the servers against each other. One folder per tool: `cargo_bench` (the
//! criterion scenarios and their report, run by `benches/http.rs`), `sweep`, `ablation`,
//! `bodies`, `workloads`, `churn`, `profiles` and `scan` (the long-running studies, run by `src/bin/*` through
//! `scripts/*.sh`; `rounds` judges their interleaved rounds).
//! What they share sits beside them: the [`servers::CONTENDERS`] and how they are
//! started pinned, a [`load::Load`] measured into a [`load::Point`], CPU accounting, the
//! platform's noise beside a point ([`noise`]: [`steal`] and the [`hiccup`] meter) and
//! the machine description.

pub mod affinity;
pub mod cpu;
pub mod format;
pub mod hiccup;
pub mod load;
pub mod machine;
pub mod nginx;
pub mod noise;
pub mod perf;
pub mod progress;
pub mod rounds;
pub mod servers;
pub mod settings;
pub mod steal;
pub mod tool;
pub mod usage;

pub mod ablation;
pub mod bodies;
pub mod cargo_bench;
pub mod churn;
pub mod profiles;
pub mod scan;
pub mod sweep;
pub mod workloads;

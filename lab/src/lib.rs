//! The studies, one folder each: `workloads` (the verdict, its runtime table, its
//! feature rows and the rows beyond it: large bodies and files, in one run), `sweep` (the
//! load curve: 1 to 1024 connections, pipelining, open-loop latency), `churn`, `scaling`,
//! `profiles` and `client_drivers` (what loadgen's two drivers cost at the verdict's
//! rates). Each is run by its binary in `src/bin/` through `scripts/<study>.sh`, and
//! stands on the `harness` crate for everything it shares with the others. Beside them,
//! the `agent` (its own binary): on a server host, it starts and measures the servers of
//! a study run from another host (`across`: the study's flags for it).

pub mod across;
pub mod agent;
pub mod churn;
pub mod client_drivers;
pub mod machines;
pub mod placement;
pub mod profiles;
pub mod scaling;
pub mod sweep;
pub mod two_hosts;
pub mod workloads;

#[cfg(test)]
mod views_agree_tests;

//! The studies, one folder each: `workloads` (the verdict), `scan` (1 to 1024
//! connections), `sweep` (open-loop latency), `churn`, `bodies`, `files` (serving files), `ablation`
//! and `profiles`. Each is run by its binary in `src/bin/` through `scripts/<study>.sh`, and
//! stands on the `harness` crate for everything it shares with the others.

pub mod ablation;
pub mod bodies;
pub mod churn;
pub mod files;
pub mod profiles;
pub mod scan;
pub mod sweep;
pub mod workloads;

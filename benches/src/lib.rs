//! The benchmark crate's machinery: starting pinned servers, checked HTTP clients, CPU
//! accounting, criterion's estimates, and the generated report. `benches/http.rs` is the
//! criterion entry point that ties them together.

pub mod ablation;
pub mod affinity;
pub mod bodies;
pub mod bodies_report;
pub mod cpu;
pub mod estimates;
pub mod machine;
pub mod output;
pub mod perf;
pub mod report;
pub mod scenario;
pub mod servers;
pub mod settings;
pub mod sweep;
pub mod sweep_ratios;
pub mod sweep_report;

//! `cargo bench` (`benches/http.rs`): the scenarios criterion times ([`scenario`],
//! [`pipelined`]) and what counts as their answer ([`answer`]), criterion's estimates read back ([`estimates`]), and the report
//! rendered from them ([`report`]) and written where users read it ([`output`]).
//! Everything it shares with the studies lives in the `harness` crate.

pub mod answer;
pub mod estimates;
pub mod output;
pub mod pipelined;
pub mod report;
pub mod scenario;
pub mod verdict;

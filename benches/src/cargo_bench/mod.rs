//! `cargo bench` (`benches/http.rs`): the scenarios criterion times, criterion's
//! estimates read back, and the report rendered from them and written where users read it.

pub mod estimates;
pub mod output;
pub mod pipelined;
pub mod report;
pub mod scenario;

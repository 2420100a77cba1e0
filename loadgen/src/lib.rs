//! A load generator for the servers in this workspace: HTTP/1.1 over raw TCP with
//! pre-rendered requests and minimal response framing, closed loop (with pipelining) or
//! open loop at a fixed rate with coordinated-omission correction, over keep-alive
//! connections or a new connection per request (churn), latencies in an HdrHistogram,
//! every response validated, failures counted by kind; and a holder of many idle
//! keep-alive connections to run beside the load ([`idle`]). `main.rs` is the command line.

pub mod churn;
pub mod errors;
pub mod idle;
mod pace;
pub mod response;
pub mod run;
mod summary;
pub mod target;

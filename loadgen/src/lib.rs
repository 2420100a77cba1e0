//! A load generator for the servers in this workspace: HTTP/1.1 over raw TCP with
//! pre-rendered requests and minimal response framing, closed loop (with pipelining) or
//! open loop at a fixed rate with coordinated-omission correction, over keep-alive
//! connections or a new connection per request (churn), latencies in an HdrHistogram,
//! every response validated, failures counted by kind. `main.rs` is the command line.

pub mod churn;
pub mod errors;
mod pace;
pub mod response;
pub mod run;
mod summary;
pub mod target;

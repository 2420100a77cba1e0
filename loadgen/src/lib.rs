//! A load generator for the servers in this workspace: HTTP/1.1 over raw TCP with
//! pre-rendered requests and minimal response framing, closed loop (with pipelining) or
//! open loop at a fixed rate with coordinated-omission correction, latencies in an
//! HdrHistogram, every response validated; and a holder of many idle keep-alive
//! connections to run beside the load ([`idle`]). `main.rs` is the command line.

pub mod idle;
pub mod response;
pub mod run;
pub mod target;

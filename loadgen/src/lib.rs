//! A load generator for the servers in this workspace: HTTP/1.1 over raw TCP with
//! pre-rendered requests and minimal response framing, closed loop (with pipelining) or
//! open loop at a fixed rate as wrk2 runs it (each connection's schedule from its
//! connect, a discarded warm-up, latency from the intended send time beside the
//! uncorrected one, sub-millisecond pacing, the client's own lateness), over keep-alive
//! connections or a new connection per request (churn), latencies in HdrHistograms
//! (and HdrHistogram interval logs, [`hdr_log`]), every response validated, failures
//! counted by kind; and a holder of many idle keep-alive connections to run beside the
//! load ([`idle`]); or files of the study corpus picked at random, each body checked
//! byte for byte ([`files`]). Keep-alive runs over plain TCP can be driven by one io_uring
//! per thread (`ring_client.rs`), the rest by one tokio task per connection
//! (`client.rs`); [`run::Driver`] chooses. `main.rs` is the command line.

pub mod churn;
mod client;
mod config;
pub mod errors;
pub mod files;
mod framer;
pub mod hdr_log;
pub mod idle;
mod pace;
mod read;
pub mod response;
mod ring;
mod ring_answers;
mod ring_buffers;
mod ring_client;
mod ring_setup;
pub mod run;
mod scratch;
mod spin;
mod summary;
mod tally;
pub mod target;
mod timer;
pub mod tls;

pub use timer::MIN_GAP;

//! `loadgen`: load an HTTP/1.1 server and print a JSON summary on stdout.
//!
//! ```text
//! loadgen http://127.0.0.1:8081/ --connections 256 --duration-secs 10             # closed loop
//! loadgen http://127.0.0.1:8081/ --connections 256 --depth 16                     # pipelined
//! loadgen http://127.0.0.1:8081/ --connections 64 --rate 50000 --duration-secs 10 # open loop
//! loadgen http://127.0.0.1:8081/payload --connections 16 --post-bytes 65536 \
//!     --expect-body-len 65536                                                     # echo
//! loadgen http://127.0.0.1:8081/bytes/65536 --connections 16 --check-body         # pattern
//! ```
//! Exits 1 if any response was wrong or missing.

use std::time::Duration;

use clap::Parser;
use loadgen::run::{Config, run};

#[derive(Parser, Debug)]
#[command(
    version,
    about = "HTTP/1.1 load generator with coordinated-omission-corrected open loop"
)]
struct Cli {
    /// Target, e.g. http://127.0.0.1:8081/
    url: String,
    /// Connections, spread over the threads.
    #[arg(short, long, default_value_t = 64)]
    connections: usize,
    /// Threads, each running one single-threaded event loop.
    #[arg(short, long, default_value_t = 1)]
    threads: usize,
    /// Requests in flight per connection (pipelining depth); closed loop only.
    #[arg(short, long, default_value_t = 1)]
    depth: usize,
    /// Run length in seconds.
    #[arg(long, default_value_t = 10.0)]
    duration_secs: f64,
    /// Stop after this many requests.
    #[arg(long)]
    requests: Option<u64>,
    /// Open loop: total requests per second, latency measured from intended send times.
    #[arg(long)]
    rate: Option<f64>,
    /// Status every response must have.
    #[arg(long, default_value_t = 200)]
    expect_status: u16,
    /// Body length every response must have (e.g. 13 for `GET /`).
    #[arg(long)]
    expect_body_len: Option<usize>,
    /// Check every response body byte for byte against the body this workspace's contract
    /// (http_core's routes) answers the request with, e.g. the pattern of `/bytes/{n}`.
    #[arg(long)]
    check_body: bool,
    /// Send `POST` with a body of this many bytes instead of `GET` (`/payload` echoes it).
    #[arg(long)]
    post_bytes: Option<usize>,
    /// With `--post-bytes`, send the body chunked in pieces of this many bytes.
    #[arg(long, requires = "post_bytes")]
    chunk_bytes: Option<usize>,
}

fn main() {
    let cli = Cli::parse();
    let target = match cli.post_bytes {
        Some(size) => loadgen::target::post(&cli.url, size, cli.chunk_bytes),
        None => loadgen::target::parse(&cli.url),
    }
    .unwrap_or_else(|e| fail(&e));
    let config = Config {
        addr: target.addr,
        request: target.request,
        connections: cli.connections.max(1),
        threads: cli.threads,
        depth: cli.depth.max(1),
        duration: Duration::from_secs_f64(cli.duration_secs),
        max_requests: cli.requests,
        rate: cli.rate,
        expect_status: cli.expect_status,
        expect_body_len: cli.expect_body_len,
        expect_body: cli.check_body.then_some(target.contract_body),
    };
    let summary = run(config).unwrap_or_else(|e| fail(&e));
    println!(
        "{}",
        serde_json::to_string_pretty(&summary).expect("a summary serializes")
    );
    if let Some(error) = &summary.first_error {
        fail(&format!("a response failed validation: {error}"));
    }
}

fn fail(message: &str) -> ! {
    eprintln!("loadgen: error: {message}");
    std::process::exit(1)
}

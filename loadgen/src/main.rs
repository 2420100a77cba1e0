//! `loadgen`: load an HTTP/1.1 server and print a JSON summary on stdout.
//!
//! ```text
//! loadgen http://127.0.0.1:8081/ --connections 256 --duration-secs 10             # closed loop
//! loadgen http://127.0.0.1:8081/ --connections 256 --depth 16                     # pipelined
//! loadgen http://127.0.0.1:8081/ --connections 64 --rate 50000 --duration-secs 10 # open loop
//! loadgen http://127.0.0.1:8081/payload --connections 16 --post-bytes 65536 \
//!     --expect-body-len 65536                                                     # echo
//! loadgen http://127.0.0.1:8081/upload --connections 4 --post-bytes 20971520 --check-body
//!                # uploads: each answer must be the receipt of the body's length and CRC32C
//! loadgen http://127.0.0.1:8081/ --hold-idle 5000 --connections 64 --duration-secs 5
//!                                       # the closed loop while 5,000 idle connections wait
//! loadgen http://127.0.0.1:8081/ --connections 32 --churn server-closes          # churn
//! loadgen http://127.0.0.1:8081/ --connections 8 --churn client-closes --rate 5000
//! loadgen http://127.0.0.1:8081/ --connections 32 --churn client-closes \
//!     --requests-per-connection 10                          # 10 requests, then the client closes
//! loadgen http://127.0.0.1:8081/bytes/65536 --connections 16 --check-body         # pattern
//! loadgen http://127.0.0.1:8081/ --rate 20000 --hdr-log run.hlog   # HdrHistogram interval log
//! loadgen http://127.0.0.1:8081/files/ --connections 16 --files-set 64k --seed 7
//!                  # files of the corpus's 64 KiB set at random, every body byte checked
//! loadgen https://127.0.0.1:8443/ --tls-ca cert.pem --connections 8 --churn client-closes \
//!     --tls-handshakes full                     # TLS 1.3, a full handshake per connection
//! ```
//! Exits 1 if any response was wrong or missing. In the open loop, how late the client
//! sent against its schedule is printed on stderr too (and is in the JSON).

use std::time::Duration;

use clap::Parser;
use loadgen::churn::Churn;
use loadgen::idle::IdleConnections;
use loadgen::run::{Config, Driver, run};
use loadgen::tls::{Handshakes, Tls};

#[derive(Parser, Debug)]
#[command(
    version,
    about = "HTTP/1.1 load generator with coordinated-omission-corrected open loop"
)]
struct Cli {
    /// Target, e.g. http://127.0.0.1:8081/
    url: String,
    /// Connections, spread over the threads (with --churn: concurrent clients).
    #[arg(short, long, default_value_t = 64)]
    connections: usize,
    /// Threads, each running one single-threaded event loop.
    #[arg(short, long, default_value_t = 1)]
    threads: usize,
    /// Requests in flight per connection (pipelining depth); closed loop only.
    #[arg(short, long, default_value_t = 1)]
    depth: usize,
    /// Length of the measured window in seconds (after the warm-up).
    #[arg(long, default_value_t = 10.0)]
    duration_secs: f64,
    /// Seconds to run before the measured window; answers to requests meant to leave in
    /// them are counted apart and kept out of every histogram. The default, 1 s, covers
    /// connecting (each connection's schedule starts at its connect), the server's and
    /// the client's first-touch costs (page faults, buffers growing) and the rate
    /// settling, and is a tenth of the default run; 0 measures from the first request.
    #[arg(long, default_value_t = 1.0)]
    warmup: f64,
    /// Stop after this many measured requests, warm-up not counted.
    #[arg(long)]
    requests: Option<u64>,
    /// Open loop: total requests per second (with --churn, one request per connection:
    /// connections per second), latency measured from intended send times.
    #[arg(long)]
    rate: Option<f64>,
    /// Wait for each answer by busy-polling instead of sleeping until it arrives (closed
    /// loop on kept-alive connections): the client never pays a wake-up.
    #[arg(long)]
    busy_poll: bool,
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
    /// Send `POST` with a body of this many bytes of http_core's pattern instead of `GET`
    /// (`/payload` echoes it, `/upload` answers its length and CRC32C; `--check-body`
    /// checks either); the request is rendered once, however large.
    #[arg(long)]
    post_bytes: Option<usize>,
    /// With `--post-bytes`, send the body chunked in pieces of this many bytes.
    #[arg(long, requires = "post_bytes")]
    chunk_bytes: Option<usize>,
    /// Before the run, open this many more connections that each make one request, then
    /// stay open and idle until the run ends (from 127.0.0.2-9 when the target is 127.0.0.1).
    #[arg(long, default_value_t = 0)]
    hold_idle: usize,
    /// A new connection per request, closed by the server (the request says `Connection:
    /// close`; the client reads to EOF) or by the client (once it has the answer).
    #[arg(long, value_enum)]
    churn: Option<Churn>,
    /// What drives the connections: `tokio` (every run; the default), `ring` (one io_uring
    /// per thread, keep-alive over plain TCP without --files-set or --busy-poll; not the
    /// default until it measures cheaper per request than tokio, issue 70), or `auto`, the
    /// ring where it covers the run and the kernel offers io_uring.
    #[arg(long, value_enum, default_value = "tokio")]
    driver: Driver,
    /// With --churn client-closes, the requests each connection carries, one after
    /// another, before the client closes it (HttpArena's `limited-conn` closes after 10).
    #[arg(long, default_value_t = 1, requires = "churn")]
    requests_per_connection: usize,
    /// With --churn, connect from 127.0.0.1 (the kernel's choice) instead of spreading the
    /// connections over 127.0.0.2-127.0.0.9.
    #[arg(long, requires = "churn")]
    no_spread_sources: bool,
    /// Write the measured window's latency histograms to this file as an HdrHistogram
    /// interval log, one interval per second (open loop: corrected untagged, uncorrected
    /// tagged `uncorrected`); values in µs.
    #[arg(long)]
    hdr_log: Option<std::path::PathBuf>,
    /// Ask for files of this set of the study corpus (`4k`, `64k`, `1m`: http_core's
    /// CORPUS), picked at random, their names appended to the URL's path (e.g.
    /// `http://127.0.0.1:8081/files/`); every body is checked byte for byte against the
    /// file's. Keep-alive connections only.
    #[arg(long, conflicts_with_all = ["churn", "hold_idle", "post_bytes", "check_body"])]
    files_set: Option<String>,
    /// With --files-set, the seed of the random choice: the same seed and connections ask
    /// for the same files in the same order on each connection.
    #[arg(long, default_value_t = 1, requires = "files_set")]
    seed: u64,
    /// With an https:// URL, trust the certificates in this PEM file (e.g. the server's
    /// self-signed one); required for https://.
    #[arg(long)]
    tls_ca: Option<std::path::PathBuf>,
    /// With an https:// URL, the name the server's certificate must carry (and SNI);
    /// default: the URL's host.
    #[arg(long)]
    tls_name: Option<String>,
    /// With an https:// URL, what each new connection's handshake is: `full`, or
    /// `resumed` from a ticket an earlier connection got (as a rustls client does by
    /// default); the summary counts each kind.
    #[arg(long, value_enum, default_value_t = Handshakes::Resumed)]
    tls_handshakes: Handshakes,
}

fn main() {
    let cli = Cli::parse();
    let target = match cli.post_bytes {
        Some(size) => loadgen::target::post(&cli.url, size, cli.chunk_bytes),
        None => loadgen::target::parse(&cli.url),
    }
    .unwrap_or_else(|e| fail(&e));
    let tls = tls(&cli, target.https, &target.host).unwrap_or_else(|e| fail(&e));
    if tls.is_some() && cli.hold_idle > 0 {
        fail("--hold-idle holds plain TCP connections only: use an http:// URL");
    }
    let config = Config {
        connections: cli.connections.max(1),
        threads: cli.threads,
        depth: cli.depth.max(1),
        duration: Duration::from_secs_f64(cli.duration_secs),
        warmup: Duration::from_secs_f64(cli.warmup),
        max_requests: cli.requests,
        rate: cli.rate,
        expect_status: cli.expect_status,
        expect_body_len: cli.expect_body_len,
        expect_body: cli.check_body.then_some(target.contract_body),
        churn: cli.churn,
        requests_per_connection: cli.requests_per_connection,
        spread_sources: !cli.no_spread_sources,
        hdr_log: cli.hdr_log,
        files: cli
            .files_set
            .map(|label| loadgen::files::Files::by_label(&label, cli.seed))
            .transpose()
            .unwrap_or_else(|e| fail(&e)),
        tls,
        busy_poll: cli.busy_poll,
        driver: cli.driver,
        ..Config::new(target.addr, target.request)
    };
    let idle = (cli.hold_idle > 0).then(|| {
        let idle = IdleConnections::open(config.addr, cli.hold_idle, &config.request, config.expect())
            .unwrap_or_else(|e| fail(&e));
        eprintln!("loadgen: holding {} idle connections", idle.len());
        idle
    });
    let summary = run(config).unwrap_or_else(|e| fail(&e));
    if let Some(idle) = &idle
        && idle.closed() > 0
    {
        eprintln!(
            "loadgen: the server closed {} of the {} idle connections during the run",
            idle.closed(),
            idle.len()
        );
    }
    println!(
        "{}",
        serde_json::to_string_pretty(&summary).expect("a summary serializes")
    );
    if let Some(late) = &summary.send_lateness_us {
        eprintln!(
            "loadgen: sends left after their intended time by p50 {} µs, p99 {} µs, p99.9 {} µs, max {} µs",
            late.p50, late.p99, late.p999, late.max
        );
    }
    if let Some(error) = &summary.first_error {
        fail(&format!("{} error(s), the first: {error}", summary.errors));
    }
}

/// The TLS client an https:// URL asks for (none for http://).
fn tls(cli: &Cli, https: bool, host: &str) -> Result<Option<Tls>, String> {
    match (https, &cli.tls_ca) {
        (false, None) => Ok(None),
        (false, Some(_)) => Err("--tls-ca is for https:// URLs".into()),
        (true, None) => Err("an https:// URL needs --tls-ca FILE (the certificate to trust)".into()),
        (true, Some(ca)) => {
            let name = cli.tls_name.as_deref().unwrap_or(host);
            Tls::from_file(ca, name, cli.tls_handshakes).map(Some)
        }
    }
}

fn fail(message: &str) -> ! {
    eprintln!("loadgen: error: {message}");
    std::process::exit(1)
}

//! What a run is asked to do ([`Config`]): the target and request, the load's shape
//! (connections, threads, pipelining depth, rate, churn), its length and warm-up, and
//! what every answer must be. `run.rs` runs it and re-exports it as `loadgen::run::Config`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use crate::churn::Churn;
use crate::files::Files;
use crate::response::Expect;
use crate::tls::Tls;

#[derive(Debug, Clone)]
pub struct Config {
    pub addr: SocketAddr,
    /// The request sent, pre-rendered once.
    pub request: Vec<u8>,
    /// Concurrent connections (with `churn`: concurrent clients, each making one
    /// connection after another).
    pub connections: usize,
    pub threads: usize,
    pub depth: usize,
    /// The measured window, after the warm-up.
    pub duration: Duration,
    /// Run this long first and discard the answers to requests meant to leave in it
    /// (they are counted in [`Summary::warmup_requests`](crate::run::Summary::warmup_requests)). Default is zero.
    pub warmup: Duration,
    /// Stop after this many measured requests.
    pub max_requests: Option<u64>,
    /// Total requests per second for the open loop (with `churn` and one request per
    /// connection, connections per second); `None` runs closed loop.
    pub rate: Option<f64>,
    pub expect_status: u16,
    pub expect_body_len: Option<usize>,
    /// A new connection per request, closed by the server or the client; `None`:
    /// keep-alive connections held for the whole run.
    pub churn: Option<Churn>,
    /// With `churn`, the requests each connection carries before it is closed (one after
    /// another, each in its own slot of the open loop's schedule); more than one only
    /// where the client closes. Default is 1.
    pub requests_per_connection: usize,
    /// With `churn` against 127.0.0.1, bind each connection to one of 127.0.0.2..=127.0.0.9
    /// in turn, so closed connections waiting in TIME_WAIT do not exhaust one address's
    /// ports. Default is true.
    pub spread_sources: bool,
    /// The body every response must carry, byte for byte (`--check-body`).
    pub expect_body: Option<Vec<u8>>,
    /// Ask for files of a corpus set instead of `request`'s path: `request` is then a
    /// `GET` of the set's directory (e.g. `/files/`), each request adds a file's name to
    /// it, and each body must be that file's ([`Files`]). Keep-alive only. Default is none.
    pub files: Option<Files>,
    /// Write the measured window's histograms here as an HdrHistogram interval log
    /// (`hdr_log.rs`). Default is none.
    pub hdr_log: Option<PathBuf>,
    /// Speak TLS on every connection (`https://` URLs). Default is none: plain TCP.
    pub tls: Option<Tls>,
    /// Wait for each answer by busy-polling (`spin.rs`) instead of sleeping until it
    /// arrives: the client never pays a wake-up, and keeps its CPU busy. Closed loop on
    /// kept-alive connections only, on the tokio driver. Default is false.
    pub busy_poll: bool,
    /// What drives the connections. Default is [`Driver::Tokio`], which covers every run;
    /// the studies take [`Driver::Auto`], so the ring sends on time where it can.
    pub driver: Driver,
}

/// What drives a load thread's connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Driver {
    /// The ring where it covers the run (keep-alive over plain TCP, no files) and the
    /// kernel offers io_uring; tokio otherwise.
    Auto,
    /// One tokio task per connection on a current-thread runtime (`client.rs`): covers
    /// every run.
    #[default]
    Tokio,
    /// One io_uring per thread, no runtime (`ring_client.rs`): cheaper per request.
    Ring,
}

impl Config {
    /// What every response must be (with [`Config::files`], a body of the set's size).
    pub fn expect(&self) -> Expect {
        Expect {
            status: self.expect_status,
            body_len: self.files.as_ref().map(|f| f.set.size).or(self.expect_body_len),
        }
    }

    /// One keep-alive connection sending `request` to `addr` for a second in a closed
    /// loop, without warm-up, expecting 200 with any body; set the other fields with
    /// struct update syntax.
    pub fn new(addr: SocketAddr, request: Vec<u8>) -> Config {
        Config {
            addr,
            request,
            connections: 1,
            threads: 1,
            depth: 1,
            duration: Duration::from_secs(1),
            warmup: Duration::ZERO,
            max_requests: None,
            rate: None,
            expect_status: 200,
            expect_body_len: None,
            expect_body: None,
            files: None,
            churn: None,
            requests_per_connection: 1,
            spread_sources: true,
            hdr_log: None,
            tls: None,
            busy_poll: false,
            driver: Driver::Tokio,
        }
    }
}

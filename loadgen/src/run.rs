//! Drives the load: N clients over M threads (one current-thread tokio runtime each,
//! its clients sharing one `Tally`), closed loop (with pipelining depth D on keep-alive
//! connections) or open loop at a fixed total rate (the schedule, which starts when a
//! client's connection is established, and its coordinated-omission correction are in
//! `pace.rs`). A client holds one keep-alive connection for the whole run, or with
//! [`Config::churn`] makes a new connection per request (`churn.rs`). In the closed loop,
//! latency runs from the batch's send. Answers to requests meant to leave during
//! [`Config::warmup`] are counted apart and measured nowhere.

use std::cell::RefCell;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;

use crate::churn::{self, Churn};
use crate::errors::{ErrorKind, Failure};
use crate::pace::{Limits, Pacer};
use crate::response::{Expect, Frame, frame};
pub use crate::summary::{Percentiles, SPECTRUM_QUANTILES, Summary};
use crate::tally::{Tally, Window};
use crate::timer::lower_timer_slack;

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
    /// (they are counted in [`Summary::warmup_requests`]). Default is zero.
    pub warmup: Duration,
    /// Stop after this many measured requests (with `churn`: connections).
    pub max_requests: Option<u64>,
    /// Total requests per second for the open loop (with `churn`: connections per
    /// second); `None` runs closed loop.
    pub rate: Option<f64>,
    pub expect_status: u16,
    pub expect_body_len: Option<usize>,
    /// A new connection per request, closed by the server or the client; `None`:
    /// keep-alive connections held for the whole run.
    pub churn: Option<Churn>,
    /// With `churn` against 127.0.0.1, bind each connection to one of 127.0.0.2..=127.0.0.9
    /// in turn, so closed connections waiting in TIME_WAIT do not exhaust one address's
    /// ports. Default is true.
    pub spread_sources: bool,
    /// The body every response must carry, byte for byte (`--check-body`).
    pub expect_body: Option<Vec<u8>>,
    /// Write the measured window's histograms here as an HdrHistogram interval log
    /// (`hdr_log.rs`). Default is none.
    pub hdr_log: Option<PathBuf>,
}

impl Config {
    /// What every response must be.
    pub fn expect(&self) -> Expect {
        Expect {
            status: self.expect_status,
            body_len: self.expect_body_len,
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
            churn: None,
            spread_sources: true,
            hdr_log: None,
        }
    }
}

/// Runs longer than this print a progress line on stderr every second.
const PROGRESS_AFTER: Duration = Duration::from_secs(3);

pub fn run(config: Config) -> Result<Summary, String> {
    if (config.rate.is_some() || config.churn.is_some()) && config.depth != 1 {
        return Err("the open loop (--rate) and churn send one request at a time: use --depth 1".into());
    }
    // Room for many connections.
    server_kit::fd_limit::raise_to_hard_limit();
    let threads = config.threads.clamp(1, config.connections.max(1));
    let start = Instant::now();
    let window = Window::after(config.warmup);
    let deadline = window.starts + config.duration;
    let limits = Arc::new(Limits::new(window.starts, deadline, config.max_requests));
    if config.warmup + config.duration > PROGRESS_AFTER {
        let limits = limits.clone();
        std::thread::spawn(move || progress(&limits, start));
    }
    let sources = match config.churn {
        Some(_) => churn::source_addrs(config.addr, config.spread_sources),
        None => Vec::new(),
    };
    let config = Arc::new(churn::prepare(config));
    let handles: Vec<_> = (0..threads)
        .map(|thread| {
            let (config, limits, sources) = (config.clone(), limits.clone(), sources.clone());
            let clients = (thread, threads);
            std::thread::spawn(move || run_thread(config, limits, sources, clients, (start, window)))
        })
        .collect();
    let mut total = Tally::new(&config, window);
    for handle in handles {
        total.add(handle.join().map_err(|_| "a load thread panicked")?)?;
    }
    total.summary(&config, sources)
}

/// One stderr line a second until the deadline: elapsed time, answers, current rate.
fn progress(limits: &Limits, start: Instant) {
    let mut last = 0;
    while Instant::now() + Duration::from_secs(1) <= limits.deadline && !limits.failed.load(Ordering::Relaxed)
    {
        std::thread::sleep(Duration::from_secs(1));
        let answered = limits.answered.load(Ordering::Relaxed);
        eprintln!(
            "loadgen: {:>4.0} s  {answered:>10} requests  {:>9} req/s",
            start.elapsed().as_secs_f64(),
            answered - last
        );
        last = answered;
    }
}

fn run_thread(
    config: Arc<Config>,
    limits: Arc<Limits>,
    sources: Vec<IpAddr>,
    (thread, threads): (usize, usize),
    (start, window): (Instant, Window),
) -> Tally {
    lower_timer_slack();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let tally = Rc::new(RefCell::new(Tally::new(&config, window)));
    tokio::task::LocalSet::new().block_on(&runtime, async {
        let mut tasks = tokio::task::JoinSet::new();
        for index in (thread..config.connections).step_by(threads) {
            let (config, limits, sources, tally) =
                (config.clone(), limits.clone(), sources.clone(), tally.clone());
            tasks
                .spawn_local(async move { client(&config, &limits, &sources, (index, start), &tally).await });
        }
        while let Some(ended) = tasks.join_next().await {
            ended.expect("client task");
        }
    });
    Rc::into_inner(tally)
        .expect("every client has ended")
        .into_inner()
}

/// Client `index`: one keep-alive connection for the whole run, or with churn one
/// connection after another from the run's `start`.
async fn client(
    config: &Config,
    limits: &Limits,
    sources: &[IpAddr],
    (index, start): (usize, Instant),
    tally: &RefCell<Tally>,
) {
    let mut pacer = match Pacer::new(config.rate, config.connections, index) {
        Ok(pacer) => pacer,
        Err(e) => {
            limits.failed.store(true, Ordering::Relaxed);
            let failure = Failure::new(ErrorKind::Connect, format!("the thread's timerfd clock: {e}"));
            return tally.borrow_mut().fail(failure);
        }
    };
    if config.churn.is_some() {
        pacer.begin(start);
        churn::connections(config, limits, pacer, (sources, index), tally).await;
    } else if let Err(failure) = exchange(config, limits, pacer, tally).await {
        limits.failed.store(true, Ordering::Relaxed);
        tally.borrow_mut().fail(failure);
    }
}

async fn exchange(
    config: &Config,
    limits: &Limits,
    mut pacer: Pacer,
    tally: &RefCell<Tally>,
) -> Result<(), Failure> {
    let mut stream = churn::connect_by(config.addr, None, limits.patience()).await?;
    pacer.begin(Instant::now());
    let batch = config.request.repeat(config.depth);
    let mut buffer = Vec::with_capacity(64 * 1024);
    loop {
        let Some(sending) = pacer.next(limits.deadline).await else {
            return Ok(());
        };
        if !limits.take(config.depth, sending.intended) {
            return Ok(());
        }
        stream
            .write_all(&batch)
            .await
            .map_err(|e| Failure::new(ErrorKind::Write, format!("write: {e}")))?;
        for _ in 0..config.depth {
            read_response(&mut stream, &mut buffer, config, limits.patience()).await?;
            tally.borrow_mut().record(sending, limits);
        }
    }
}

/// A Content-Length body must equal `expected`; a chunked one is checked by length only.
fn check_body(body: &[u8], expected: Option<&[u8]>) -> Result<(), String> {
    match expected {
        Some(expected) if body != expected => {
            let at = body.iter().zip(expected).position(|(a, b)| a != b);
            Err(format!(
                "body differs from the expected {} bytes (got {}; first difference at {at:?})",
                expected.len(),
                body.len()
            ))
        }
        _ => Ok(()),
    }
}

/// Reads until one complete, valid response is at the front of `buffer`, and drops it.
pub(crate) async fn read_response(
    stream: &mut TcpStream,
    buffer: &mut Vec<u8>,
    config: &Config,
    patience: Instant,
) -> Result<(), Failure> {
    loop {
        let framed = frame(buffer).map_err(|e| Failure::new(ErrorKind::Body, e))?;
        if let Frame::Complete {
            status,
            len,
            body_len,
            chunked,
        } = framed
        {
            config.expect().check(status, body_len)?;
            if !chunked {
                check_body(&buffer[len - body_len..len], config.expect_body.as_deref())
                    .map_err(|e| Failure::new(ErrorKind::Body, e))?;
            }
            buffer.drain(..len);
            return Ok(());
        }
        if read_some(stream, buffer, patience).await? == 0 {
            return Err(Failure::new(ErrorKind::Read, "the server closed the connection"));
        }
    }
}

/// Appends what one read brings to `buffer`; 0 at the end of the stream.
pub(crate) async fn read_some(
    stream: &mut TcpStream,
    buffer: &mut Vec<u8>,
    patience: Instant,
) -> Result<usize, Failure> {
    let mut chunk = [0u8; 16 * 1024];
    match tokio::time::timeout_at(patience, stream.read(&mut chunk)).await {
        Ok(Ok(n)) => {
            buffer.extend_from_slice(&chunk[..n]);
            Ok(n)
        }
        Ok(Err(e)) => Err(Failure::new(ErrorKind::Read, format!("read: {e}"))),
        Err(_) => Err(Failure::new(
            ErrorKind::Timeout,
            "no response within 5 s after the run's end",
        )),
    }
}

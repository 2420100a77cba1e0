//! Drives the load: N connections over M threads (one current-thread tokio runtime each),
//! closed loop with pipelining depth D, or open loop at a fixed total rate. In the open
//! loop a request that could not be sent on time (its connection still waited for the
//! previous answer) is measured from its *intended* send time, as wrk2 does, so a server
//! stall shows in the percentiles instead of silently delaying later requests
//! (coordinated omission). In the closed loop, latency runs from the batch's send.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

use hdrhistogram::Histogram;
use serde::Serialize;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;

use crate::response::{Frame, frame};

#[derive(Debug, Clone)]
pub struct Config {
    pub addr: SocketAddr,
    /// The request sent, pre-rendered once.
    pub request: Vec<u8>,
    pub connections: usize,
    pub threads: usize,
    pub depth: usize,
    pub duration: Duration,
    pub max_requests: Option<u64>,
    /// Total requests per second for the open loop; `None` runs closed loop.
    pub rate: Option<f64>,
    pub expect_status: u16,
    pub expect_body_len: Option<usize>,
    /// The body every response must carry, byte for byte (`--check-body`).
    pub expect_body: Option<Vec<u8>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub mode: &'static str,
    pub connections: usize,
    pub depth: usize,
    pub rate: Option<f64>,
    pub requests: u64,
    pub errors: u64,
    pub first_error: Option<String>,
    pub elapsed_s: f64,
    pub requests_per_sec: f64,
    pub latency_us: Percentiles,
}

#[derive(Debug, Clone, Serialize)]
pub struct Percentiles {
    pub mean: f64,
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub p999: u64,
    pub max: u64,
}

/// What one connection measured.
struct Tally {
    histogram: Histogram<u64>,
    requests: u64,
    error: Option<String>,
}

/// Shared stop conditions, and the count of answered requests for progress lines.
struct Limits {
    deadline: Instant,
    budget: AtomicI64,
    failed: AtomicBool,
    answered: AtomicU64,
}

/// Runs longer than this print a progress line on stderr every second.
const PROGRESS_AFTER: Duration = Duration::from_secs(3);

pub fn run(config: Config) -> Result<Summary, String> {
    if config.rate.is_some() && config.depth != 1 {
        return Err("the open loop (--rate) sends one request at a time: use --depth 1".into());
    }
    let threads = config.threads.clamp(1, config.connections.max(1));
    let start = Instant::now();
    let limits = Arc::new(Limits {
        deadline: start + config.duration,
        budget: AtomicI64::new(config.max_requests.map_or(i64::MAX, |n| n as i64)),
        failed: AtomicBool::new(false),
        answered: AtomicU64::new(0),
    });
    if config.duration > PROGRESS_AFTER {
        let limits = limits.clone();
        std::thread::spawn(move || progress(&limits, start));
    }
    let config = Arc::new(config);
    let handles: Vec<_> = (0..threads)
        .map(|thread| {
            let (config, limits) = (config.clone(), limits.clone());
            std::thread::spawn(move || run_thread(config, limits, thread, threads, start))
        })
        .collect();
    let mut total = Tally {
        histogram: new_histogram(),
        requests: 0,
        error: None,
    };
    for handle in handles {
        for tally in handle.join().map_err(|_| "a load thread panicked")? {
            total.histogram.add(&tally.histogram).map_err(|e| e.to_string())?;
            total.requests += tally.requests;
            total.error = total.error.or(tally.error);
        }
    }
    let elapsed = start.elapsed().as_secs_f64();
    let h = &total.histogram;
    Ok(Summary {
        mode: if config.rate.is_some() { "open" } else { "closed" },
        connections: config.connections,
        depth: config.depth,
        rate: config.rate,
        requests: total.requests,
        errors: u64::from(total.error.is_some()),
        first_error: total.error,
        elapsed_s: elapsed,
        requests_per_sec: total.requests as f64 / elapsed,
        latency_us: Percentiles {
            mean: h.mean(),
            p50: h.value_at_quantile(0.5),
            p90: h.value_at_quantile(0.9),
            p99: h.value_at_quantile(0.99),
            p999: h.value_at_quantile(0.999),
            max: h.max(),
        },
    })
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

fn new_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 60_000_000, 3).expect("valid histogram bounds")
}

fn run_thread(
    config: Arc<Config>,
    limits: Arc<Limits>,
    thread: usize,
    threads: usize,
    start: Instant,
) -> Vec<Tally> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    runtime.block_on(async {
        let mut tasks = tokio::task::JoinSet::new();
        for index in (thread..config.connections).step_by(threads) {
            let (config, limits) = (config.clone(), limits.clone());
            tasks.spawn(async move { connection(&config, &limits, index, start).await });
        }
        let mut tallies = Vec::new();
        while let Some(tally) = tasks.join_next().await {
            tallies.push(tally.expect("connection task"));
        }
        tallies
    })
}

async fn connection(config: &Config, limits: &Limits, index: usize, start: Instant) -> Tally {
    let mut tally = Tally {
        histogram: new_histogram(),
        requests: 0,
        error: None,
    };
    if let Err(error) = exchange(config, limits, index, start, &mut tally).await {
        limits.failed.store(true, Ordering::Relaxed);
        tally.error = Some(error);
    }
    tally
}

async fn exchange(
    config: &Config,
    limits: &Limits,
    index: usize,
    start: Instant,
    tally: &mut Tally,
) -> Result<(), String> {
    let mut stream = TcpStream::connect(config.addr)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    let batch = config.request.repeat(config.depth);
    let mut buffer = Vec::with_capacity(64 * 1024);
    let interval = config
        .rate
        .map(|rate| Duration::from_secs_f64(config.connections as f64 / rate));
    let mut intended = start
        + interval.map_or(Duration::ZERO, |i| {
            i.mul_f64(index as f64 / config.connections as f64)
        });
    loop {
        if limits.failed.load(Ordering::Relaxed)
            || limits.budget.fetch_sub(config.depth as i64, Ordering::Relaxed) <= 0
        {
            return Ok(());
        }
        let sent = match interval {
            Some(_) if intended >= limits.deadline => return Ok(()),
            // Behind schedule because the previous response came late: count from the
            // intended time (the coordinated-omission correction). On schedule: sleep, and
            // count from the actual send, so the timer's millisecond overshoot is not
            // charged to the server.
            Some(_) if Instant::now() > intended => intended,
            Some(_) => {
                tokio::time::sleep_until(intended).await;
                Instant::now()
            }
            None if Instant::now() >= limits.deadline => return Ok(()),
            None => Instant::now(),
        };
        stream
            .write_all(&batch)
            .await
            .map_err(|e| format!("write: {e}"))?;
        for _ in 0..config.depth {
            read_response(&mut stream, &mut buffer, config, limits.deadline).await?;
            let micros = sent.elapsed().as_micros().max(1) as u64;
            tally.histogram.saturating_record(micros);
            tally.requests += 1;
            limits.answered.fetch_add(1, Ordering::Relaxed);
        }
        if let Some(interval) = interval {
            intended += interval;
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
async fn read_response(
    stream: &mut TcpStream,
    buffer: &mut Vec<u8>,
    config: &Config,
    deadline: Instant,
) -> Result<(), String> {
    loop {
        if let Frame::Complete {
            status,
            len,
            body_len,
            chunked,
        } = frame(buffer)?
        {
            if status != config.expect_status {
                return Err(format!("status {status}, expected {}", config.expect_status));
            }
            if config.expect_body_len.is_some_and(|want| want != body_len) {
                return Err(format!(
                    "body of {body_len} bytes, expected {:?}",
                    config.expect_body_len
                ));
            }
            if !chunked {
                check_body(&buffer[len - body_len..len], config.expect_body.as_deref())?;
            }
            buffer.drain(..len);
            return Ok(());
        }
        let patience = deadline + Duration::from_secs(5);
        let mut chunk = [0u8; 16 * 1024];
        let read = tokio::time::timeout_at(patience, stream.read(&mut chunk)).await;
        match read {
            Ok(Ok(0)) => return Err("the server closed the connection".into()),
            Ok(Ok(n)) => buffer.extend_from_slice(&chunk[..n]),
            Ok(Err(e)) => return Err(format!("read: {e}")),
            Err(_) => return Err("no response within 5 s after the run's end".into()),
        }
    }
}

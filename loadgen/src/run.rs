//! Drives the load: N clients over M threads (one current-thread tokio runtime each,
//! its clients sharing one `Tally`), closed loop (with pipelining depth D on keep-alive
//! connections) or open loop at a fixed total rate (the schedule, which starts when a
//! client's connection is established, and its coordinated-omission correction are in
//! `pace.rs`). A client (`client.rs`) holds one keep-alive connection for the whole run,
//! or with [`Config::churn`] makes a new connection per request (`churn.rs`). In the
//! closed loop, latency runs from the batch's send. Answers to requests meant to leave
//! during [`Config::warmup`] are counted apart and measured nowhere.

use std::cell::RefCell;
use std::net::IpAddr;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio::time::Instant;

use crate::churn;
use crate::client::{client, prepare};
pub use crate::config::{Config, Driver};
use crate::pace::Limits;
pub use crate::summary::{Percentiles, SPECTRUM_QUANTILES, Summary};
use crate::tally::{Tally, Window};
use crate::timer::lower_timer_slack;
use crate::{ring_client, ring_setup};

/// Runs longer than this print a progress line on stderr every second.
const PROGRESS_AFTER: Duration = Duration::from_secs(3);

pub fn run(config: Config) -> Result<Summary, String> {
    if (config.rate.is_some() || config.churn.is_some()) && config.depth != 1 {
        return Err("the open loop (--rate) and churn send one request at a time: use --depth 1".into());
    }
    if config.requests_per_connection == 0 {
        return Err("a connection carries at least one request: --requests-per-connection 1 or more".into());
    }
    if config.requests_per_connection > 1 && config.churn != Some(churn::Churn::ClientCloses) {
        return Err("several requests per connection are sent with --churn client-closes".into());
    }
    if config.busy_poll && (config.rate.is_some() || config.churn.is_some()) {
        return Err(
            "--busy-poll spins in the closed loop on kept-alive connections: drop --rate and --churn".into(),
        );
    }
    if config.files.is_some() && config.churn.is_some() {
        return Err("the file mode runs on keep-alive connections: drop --churn".into());
    }
    let on_ring = match config.driver {
        Driver::Tokio => false,
        Driver::Ring if !ring_client::covers(&config) => {
            return Err("the ring driver runs keep-alive connections over plain TCP without files: use --driver tokio".into());
        }
        Driver::Ring => true,
        Driver::Auto => ring_client::covers(&config) && ring_setup::available(),
    };
    // Room for many connections.
    server_kit::fd_limit::raise_to_hard_limit();
    let threads = config.threads.clamp(1, config.connections.max(1));
    let start = Instant::now();
    let window = Window::after(config.warmup, config.duration);
    let deadline = window.ends;
    let limits = Arc::new(Limits::new(window.starts, deadline, config.max_requests));
    if config.warmup + config.duration > PROGRESS_AFTER {
        let limits = limits.clone();
        std::thread::spawn(move || progress(&limits, start));
    }
    let sources = match config.churn {
        Some(_) => churn::source_addrs(config.addr, config.spread_sources),
        None => Vec::new(),
    };
    let config = Arc::new(prepare(config));
    let handles: Vec<_> = (0..threads)
        .map(|thread| {
            let (config, limits, sources) = (config.clone(), limits.clone(), sources.clone());
            let clients = (thread, threads);
            std::thread::spawn(move || match on_ring {
                true => {
                    lower_timer_slack();
                    ring_client::run_thread(&config, &limits, clients, window)
                }
                false => run_thread(config, limits, sources, clients, (start, window)),
            })
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
        // Kept-alive connections close only once every client of the thread is done.
        let mut done = Vec::new();
        while let Some(ended) = tasks.join_next().await {
            done.extend(ended.expect("client task"));
        }
        drop(done);
    });
    Rc::into_inner(tally)
        .expect("every client has ended")
        .into_inner()
}

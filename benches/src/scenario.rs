//! The scenarios every contender runs, and one timed iteration of each. Every response's
//! status and body are checked inside the timed region: an error aborts the run, it is
//! never timed as a fast iteration. reqwest is the client of every scenario but one: the
//! pipelined batch, sent by a raw client (`pipelined.rs`) so that the server saturates
//! before the client does.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use futures::future::try_join_all;
use reqwest::Client;

use http_core::routes::HELLO;

use crate::answer::check;
use crate::pipelined::{DEPTH, Pipelined};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scenario {
    Single,
    SingleCold,
    Concurrent50,
    Throughput1000,
    Pipelined1000,
    Payload1K,
    Payload64K,
    Payload64KChunked,
    Payload1M,
}

/// Warm connections shared by the concurrent scenarios.
pub const CONNECTIONS: usize = 50;

/// Bytes per chunk of the chunked scenario.
const CHUNK: usize = 512;

/// Requests in one iteration of the throughput scenario.
pub const BATCH: usize = 1000;

/// The client drops pooled connections idle this long, well before the servers' 60 s idle
/// timeout closes them, so it never sends on a connection the server has just closed.
const CLIENT_IDLE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(20);

impl Scenario {
    pub const ALL: [Scenario; 9] = [
        Scenario::Single,
        Scenario::SingleCold,
        Scenario::Concurrent50,
        Scenario::Throughput1000,
        Scenario::Pipelined1000,
        Scenario::Payload1K,
        Scenario::Payload64K,
        Scenario::Payload64KChunked,
        Scenario::Payload1M,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Scenario::Single => "single",
            Scenario::SingleCold => "single_cold",
            Scenario::Concurrent50 => "concurrent_50",
            Scenario::Throughput1000 => "throughput_1000",
            Scenario::Pipelined1000 => "pipelined_1000",
            Scenario::Payload1K => "payload_1KiB",
            Scenario::Payload64K => "payload_64KiB",
            Scenario::Payload64KChunked => "payload_64KiB_chunked",
            Scenario::Payload1M => "payload_1MiB",
        }
    }

    pub fn describe(self) -> String {
        match self {
            Scenario::Single => "one `GET /` on a warm keep-alive connection: round-trip latency".into(),
            Scenario::SingleCold => "connect, one `GET /`, close: what a new client pays".into(),
            Scenario::Concurrent50 => format!(
                "{CONNECTIONS} `GET /` in flight at once on {CONNECTIONS} warm connections; time is the whole batch (makespan)"
            ),
            Scenario::Throughput1000 => format!(
                "{BATCH} `GET /` over {CONNECTIONS} warm connections ({} each, back to back); time is the whole batch",
                BATCH / CONNECTIONS
            ),
            Scenario::Pipelined1000 => format!(
                "the same {BATCH} `GET /` over {CONNECTIONS} warm connections, pipelined {DEPTH} deep by a raw \
                 client that checks every status and body byte (far cheaper per request than reqwest); \
                 time is the whole batch"
            ),
            Scenario::Payload1K | Scenario::Payload64K | Scenario::Payload1M => format!(
                "`POST /payload` of {} KiB echoed on a warm connection",
                self.payload_size() >> 10
            ),
            Scenario::Payload64KChunked => format!(
                "`POST /payload` of {} KiB sent in {CHUNK}-byte chunks, echoed on a warm connection",
                self.payload_size() >> 10
            ),
        }
    }

    pub fn requests_per_iteration(self) -> u64 {
        match self {
            Scenario::Concurrent50 => CONNECTIONS as u64,
            Scenario::Throughput1000 | Scenario::Pipelined1000 => BATCH as u64,
            _ => 1,
        }
    }

    /// Whether requests/s is a meaningful column (batches of many requests).
    pub fn reports_throughput(self) -> bool {
        self.requests_per_iteration() > 1
    }

    fn payload_size(self) -> usize {
        match self {
            Scenario::Payload1K => 1 << 10,
            Scenario::Payload64K | Scenario::Payload64KChunked => 64 << 10,
            Scenario::Payload1M => 1 << 20,
            _ => 0,
        }
    }

    /// The chunk size an echo scenario's body is sent in; `None` for Content-Length.
    fn chunk_size(self) -> Option<usize> {
        (self == Scenario::Payload64KChunked).then_some(CHUNK)
    }
}

/// The clients of one contender, built once, outside every timed region.
pub struct Clients {
    warm: Client,
    cold: Client,
    pipelined: Pipelined,
    base_url: String,
    /// The echo scenarios' bodies, one per size.
    payloads: Vec<Vec<u8>>,
    /// Requests completed (and checked), for CPU time per request.
    pub completed: AtomicU64,
}

impl Clients {
    pub fn new(base_url: &str) -> Result<Clients, String> {
        let builder = || Client::builder().http1_only().no_proxy().tcp_nodelay(true);
        let warm = builder()
            .pool_max_idle_per_host(CONNECTIONS * 2)
            .pool_idle_timeout(CLIENT_IDLE_TIMEOUT)
            .build()
            .map_err(|e| e.to_string())?;
        let cold = builder()
            .pool_max_idle_per_host(0)
            .build()
            .map_err(|e| e.to_string())?;
        let payload = |size: usize| (0..size).map(|i| (i % 251) as u8).collect();
        Ok(Clients {
            warm,
            cold,
            pipelined: Pipelined::new(base_url, CONNECTIONS)?,
            base_url: base_url.to_string(),
            payloads: [Scenario::Payload1K, Scenario::Payload64K, Scenario::Payload1M]
                .map(|s| payload(s.payload_size()))
                .into(),
            completed: AtomicU64::new(0),
        })
    }

    /// Opens and exercises the warm connections (the raw client's anew); run before each
    /// scenario is timed.
    pub async fn warm_up(&self) -> Result<(), String> {
        self.pipelined.reconnect().await?;
        for _ in 0..3 {
            self.run(Scenario::Concurrent50).await?;
            self.run(Scenario::Pipelined1000).await?;
        }
        self.completed.store(0, Ordering::Relaxed);
        Ok(())
    }

    /// One iteration of `scenario`.
    pub async fn run(&self, scenario: Scenario) -> Result<(), String> {
        match scenario {
            Scenario::Single => self.get(&self.warm).await,
            Scenario::SingleCold => self.get(&self.cold).await,
            Scenario::Concurrent50 => try_join_all((0..CONNECTIONS).map(|_| self.get(&self.warm)))
                .await
                .map(drop),
            Scenario::Throughput1000 => {
                let per_connection = BATCH / CONNECTIONS;
                let lanes = (0..CONNECTIONS).map(|_| async move {
                    for _ in 0..per_connection {
                        self.get(&self.warm).await?;
                    }
                    Ok::<(), String>(())
                });
                try_join_all(lanes).await.map(drop)
            }
            Scenario::Pipelined1000 => self.pipelined.batch(BATCH).await,
            Scenario::Payload1K
            | Scenario::Payload64K
            | Scenario::Payload64KChunked
            | Scenario::Payload1M => self.echo(scenario.payload_size(), scenario.chunk_size()).await,
        }
    }

    async fn get(&self, client: &Client) -> Result<(), String> {
        let response = client
            .get(format!("{}/", self.base_url))
            .send()
            .await
            .map_err(|e| format!("GET /: {e}"))?;
        let status = response.status().as_u16();
        let body = response.bytes().await.map_err(|e| format!("GET / body: {e}"))?;
        check(status, &body, HELLO)
    }

    async fn echo(&self, size: usize, chunk: Option<usize>) -> Result<(), String> {
        let payload = self
            .payloads
            .iter()
            .find(|p| p.len() == size)
            .expect("a payload of every echo size");
        let body = match chunk {
            // Each stream item goes out as one chunk, so the server sees `chunk`-byte chunks.
            Some(chunk) => {
                let pieces: Vec<Result<Vec<u8>, std::io::Error>> =
                    payload.chunks(chunk).map(|p| Ok(p.to_vec())).collect();
                reqwest::Body::wrap_stream(futures::stream::iter(pieces))
            }
            None => reqwest::Body::from(payload.clone()),
        };
        let response = self
            .warm
            .post(format!("{}/payload", self.base_url))
            .body(body)
            .send()
            .await
            .map_err(|e| format!("POST /payload: {e}"))?;
        let status = response.status().as_u16();
        let body = response
            .bytes()
            .await
            .map_err(|e| format!("POST /payload body: {e}"))?;
        check(status, &body, payload)
    }
}

/// Times `iterations` runs of `scenario`; the first failure ends the timing with an error.
pub async fn time_iterations(
    clients: &Clients,
    scenario: Scenario,
    iterations: u64,
) -> Result<Duration, String> {
    let start = Instant::now();
    for _ in 0..iterations {
        clients.run(scenario).await?;
        clients
            .completed
            .fetch_add(scenario.requests_per_iteration(), Ordering::Relaxed);
    }
    Ok(start.elapsed())
}

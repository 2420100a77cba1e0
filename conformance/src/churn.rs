//! Churn by loadgen, as the benchmarks drive it: a new connection per request in both
//! who-closes patterns (the server closing on `Connection: close`, the client closing once
//! it has the answer), in a closed and an open loop, every connection answered without an
//! error of any kind and nothing left held afterwards.

use std::time::Duration;

use loadgen::churn::Churn;
use loadgen::run::{Config, Summary};
use server_kit::ServerProcess;

use crate::stress::{expect_released, held_resources};

/// `connections` connections per pattern in a closed loop of 8 clients, then a second of
/// an open loop at 1,000 connections/s; the server's descriptors and held connections
/// return to where they started.
pub fn loadgen_churn(server: &ServerProcess, connections: u64) -> Result<(), String> {
    let before = held_resources(server)?;
    let request = format!("GET / HTTP/1.1\r\nHost: {}\r\n\r\n", server.addr()).into_bytes();
    for churn in [Churn::ServerCloses, Churn::ClientCloses] {
        let base = Config {
            churn: Some(churn),
            connections: 8,
            expect_body_len: Some(http_core::routes::HELLO.len()),
            ..Config::new(server.addr(), request.clone())
        };
        let closed = run(Config {
            max_requests: Some(connections),
            duration: Duration::from_secs(30),
            ..base.clone()
        })?;
        if closed.requests != connections {
            return Err(format!(
                "churn {churn:?}: {} of {connections} connections",
                closed.requests
            ));
        }
        let open = run(Config {
            rate: Some(1000.0),
            ..base
        })?;
        if open.requests < 500 {
            return Err(format!(
                "churn {churn:?} at 1,000/s: {} connections in a second",
                open.requests
            ));
        }
    }
    expect_released(server, before, "churn by loadgen")
}

/// A loadgen run that had no error of any kind.
fn run(config: Config) -> Result<Summary, String> {
    let churn = config.churn;
    let summary = loadgen::run::run(config)?;
    match &summary.first_error {
        Some(error) => Err(format!(
            "churn {churn:?}: {:?}, the first: {error}",
            summary.errors_by_kind
        )),
        None => Ok(summary),
    }
}

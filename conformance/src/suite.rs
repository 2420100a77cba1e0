//! Runs every [`crate::cases`] case against a server and compares each response with what
//! http_core's codec answers for the same bytes (status, headers with Date masked, body).

use std::time::Duration;

use http_core::{Codec, Limits};

use crate::cases::{Case, all};
use crate::endpoint::Endpoint;
use crate::wire::{Conn, Response, parse_response, probe};

/// A case where a server legitimately answers differently from the codec, and why.
#[derive(Debug, Clone, Copy)]
pub struct Deviation {
    pub case: &'static str,
    /// The status this server answers with instead.
    pub status: u16,
    pub why: &'static str,
}

/// Headers every final response must carry.
const REQUIRED: [&str; 4] = ["server", "date", "content-type", "content-length"];

/// Runs all cases; returns one line per failure.
pub fn run_cases(to: &Endpoint, deviations: &[Deviation]) -> Vec<String> {
    let mut failures = Vec::new();
    for case in all() {
        let deviation = deviations.iter().find(|d| d.case == case.name);
        let result = match deviation {
            None => check_case(to, &case),
            Some(deviation) => check_deviation(to, &case, deviation),
        };
        if let Err(why) = result {
            failures.push(format!("{}: {why}", case.name));
        }
        if let Err(why) = probe(to) {
            failures.push(format!("{}: server unhealthy afterwards: {why}", case.name));
        }
    }
    for deviation in deviations {
        if !all().iter().any(|c| c.name == deviation.case) {
            failures.push(format!("deviation for unknown case {}", deviation.case));
        }
    }
    failures
}

/// The codec's answer to the case: the contract as implemented once, in-process.
fn reference(case: &Case) -> Result<(Vec<Response>, bool), String> {
    let mut out = Vec::new();
    let outcome = Codec::new(Limits::default()).serve(&case.request, &mut out);
    let mut responses = Vec::new();
    let mut rest = out.as_slice();
    while !rest.is_empty() {
        let (response, used) = parse_response(rest, case.head)?.ok_or("reference output is incomplete")?;
        responses.push(response);
        rest = &rest[used..];
    }
    let statuses: Vec<u16> = responses.iter().map(|r| r.status).collect();
    if statuses != case.statuses || outcome.close != case.close {
        return Err(format!(
            "the codec itself breaks the contract: statuses {statuses:?} close {} (want {:?} close {})",
            outcome.close, case.statuses, case.close
        ));
    }
    Ok((responses, outcome.close))
}

fn check_case(to: &Endpoint, case: &Case) -> Result<(), String> {
    let (expected, close) = reference(case)?;
    let mut conn = Conn::connect(to);
    let _ = conn.send(&case.request);
    for (i, want) in expected.iter().enumerate() {
        let got = conn
            .response(case.head)
            .map_err(|e| format!("response {i}: {e}"))?;
        if got.status >= 200 {
            for name in REQUIRED {
                got.header(name)
                    .ok_or_else(|| format!("response {i} lacks {name}"))?;
            }
        }
        if got.normalized() != want.normalized() {
            return Err(format!(
                "response {i}\n   got: {}\n  want: {}",
                got.normalized(),
                want.normalized()
            ));
        }
    }
    if close {
        conn.expect_close(Duration::from_secs(3))
    } else {
        conn.send(b"GET / HTTP/1.1\r\nHost: again\r\n\r\n")
            .map_err(|e| e.to_string())?;
        let again = conn
            .response(false)
            .map_err(|e| format!("connection not kept alive: {e}"))?;
        match again.status {
            200 => Ok(()),
            other => Err(format!("follow-up request got {other}")),
        }
    }
}

/// A documented deviation must get its documented status, close when the contract closes,
/// and really differ from the codec, so the list cannot go stale.
fn check_deviation(to: &Endpoint, case: &Case, deviation: &Deviation) -> Result<(), String> {
    if check_case(to, case).is_ok() {
        return Err(format!(
            "listed as a deviation ({}) but now matches the codec; remove it",
            deviation.why
        ));
    }
    let mut conn = Conn::connect(to);
    let _ = conn.send(&case.request);
    let response = conn.response(case.head)?;
    if response.status != deviation.status {
        return Err(format!(
            "deviation answered {}, documented {}",
            response.normalized(),
            deviation.status
        ));
    }
    if case.close {
        conn.expect_close(Duration::from_secs(3))?;
    }
    eprintln!("  deviation {}: {}", case.name, deviation.why);
    Ok(())
}

//! A request's pace against the real server (`--request-grace-secs`,
//! `--min-request-rate`): a head trickled a byte at a time, well inside the silence
//! timeout, is closed soon after its grace, over plain TCP and over TLS (a record a byte).

use std::time::{Duration, Instant};

use conformance::wire::Conn;
use conformance::{Endpoint, ServerProcess, TestIdentity};

const BIN: &str = env!("CARGO_BIN_EXE_io_uring_server");

/// One second of grace, then 1,000 bytes a second; the silence timeout stays at 10 s.
const PACE: [&str; 6] = [
    "--request-grace-secs",
    "1",
    "--min-request-rate",
    "1000",
    "--threads",
    "1",
];

/// Time between two bytes of the trickle.
const EVERY: Duration = Duration::from_millis(250);

/// How long a trickle is kept up before the test gives up: the grace, the tick the
/// deadline is checked in and a tick of slack, with room to spare.
const GIVE_UP: Duration = Duration::from_secs(6);

/// Sends a head that never ends, a byte every [`EVERY`], until the server closes the
/// connection; returns how long that took.
fn trickle_until_closed(to: &Endpoint) -> Result<Duration, String> {
    let mut conn = Conn::connect(to);
    let start = Instant::now();
    let head = b"GET / HTTP/1.1\r\nHost: t\r\nX-Slow: ";
    for sent in 0.. {
        if start.elapsed() > GIVE_UP {
            return Err(format!("still open after {GIVE_UP:?} of trickling"));
        }
        let byte = head.get(sent).copied().unwrap_or(b'a');
        if conn.send(&[byte]).is_err() {
            return Ok(start.elapsed());
        }
        match conn.expect_abandoned(EVERY) {
            Ok(()) => return Ok(start.elapsed()),
            Err(e) if e.contains("timed out") => continue,
            Err(e) => return Err(e),
        }
    }
    unreachable!("the loop returns")
}

fn closed_after_the_grace(to: &Endpoint) {
    let took = trickle_until_closed(to).unwrap();
    assert!(
        took >= Duration::from_millis(900),
        "closed after {took:?}, within its grace"
    );
}

#[test]
fn a_trickled_head_is_closed_after_the_grace() {
    let server = ServerProcess::start(BIN, &PACE);
    closed_after_the_grace(&server.addr().into());
}

#[test]
fn a_trickled_head_over_tls_is_closed_after_the_grace() {
    let identity = TestIdentity::generate();
    let dir = std::env::temp_dir().join(format!("uring-pace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (cert, key) = identity.write(&dir).unwrap();
    let (cert, key) = (cert.to_string_lossy(), key.to_string_lossy());
    let mut args = PACE.to_vec();
    args.extend(["--tls-cert", &cert, "--tls-key", &key]);
    let server = ServerProcess::start(BIN, &args);
    closed_after_the_grace(&Endpoint::https(server.addr(), &identity));
    let _ = std::fs::remove_dir_all(&dir);
}

//! Hostile TLS clients that keep to the protocol: a request head sent as one-byte
//! records (a server must not spend per record what it should spend per read: its CPU
//! per head is measured), pipelined requests cut into records of assorted sizes, and,
//! from [`crate::tls_stalled`], crowds that pipeline large responses and never read them
//! and ClientHellos dribbled a byte a second. Each is followed by a probe: the server
//! goes on serving everyone else. [`hostile_clients`] runs them all.

use std::io::Write;
use std::time::Duration;

use http_core::limits::MAX_HEAD_BYTES;
use http_core::routes::{HELLO, pattern};
use server_kit::ServerProcess;

use crate::endpoint::{ANSWER_TIMEOUT, Endpoint, Wire};
use crate::tls_stalled::{DRIBBLERS, dribbled_hello, stalled_readers};
use crate::wire::{Conn, probe};

/// The head sent as one-byte records: close to the head limit, and under it.
const TINY_HEAD_LEN: usize = MAX_HEAD_BYTES - 384;

/// How many heads of one-byte records the CPU is measured over.
const TINY_ROUNDS: u32 = 5;

/// The server CPU one head of one-byte records may cost at least: a server that works
/// per record as it works per read spends some 30 ms (release build); one that gathers
/// records first, under 1 ms.
const TINY_CPU_LIMIT: Duration = Duration::from_millis(5);

/// The server CPU one head of one-byte records may cost, as a multiple of the CPU this
/// client spent sealing them, when that is more than [`TINY_CPU_LIMIT`]: the same rustls
/// in the same build on both sides, a yardstick that follows debug builds (where rustls
/// alone costs some 40 ms per head on either side) and slow machines. Healthy servers
/// spend about as much as the client (0.8 to 1.2 times); one that reparses or moves its
/// input per record, 30 times as much.
const TINY_CPU_PER_SEALING: u32 = 3;

/// How long the server is given to finish its side of a handshake (its session tickets)
/// before its CPU is read, so that the handshake is not counted.
const SETTLE: Duration = Duration::from_millis(50);

/// Plaintext bytes per record of the pipelined requests, cycled (from a different start
/// on each round), up to the largest record TLS allows.
const RECORD_SIZES: [usize; 6] = [1, 7, 100, 1000, 4096, 16384];

/// Every hostile client, the dribblers beside the others; one line per failure. What
/// each measured is printed (shown with the test's output).
pub fn hostile_clients(server: &ServerProcess, to: &Endpoint) -> Vec<String> {
    let dribblers: Vec<_> = (0..DRIBBLERS)
        .map(|_| {
            let to = to.clone();
            std::thread::spawn(move || dribbled_hello(&to))
        })
        .collect();
    let mut failures = Vec::new();
    let tiny = "a request head in one-byte records";
    match tiny_records(server, to) {
        Ok((spent, sealing)) => {
            eprintln!("  {tiny}: {spent:?} of server CPU per head ({sealing:?} sealing it)")
        }
        Err(e) => failures.push(format!("{tiny}: {e}")),
    }
    failures.extend(probe(to).err().map(|e| format!("{tiny}: then {e}")));
    let assorted = "pipelined requests in records of assorted sizes";
    failures.extend(assorted_records(to).err().map(|e| format!("{assorted}: {e}")));
    failures.extend(probe(to).err().map(|e| format!("{assorted}: then {e}")));
    let stalled = "clients that never read three pipelined 1 MiB responses";
    match stalled_readers(server, to) {
        Ok(kib) => eprintln!("  {stalled}: {kib} KiB of server RSS per connection"),
        Err(e) => failures.push(format!("{stalled}: {e}")),
    }
    failures.extend(probe(to).err().map(|e| format!("{stalled}: then {e}")));
    let dribbled = "a ClientHello dribbled a byte a second";
    for dribbler in dribblers {
        match dribbler.join().expect("a dribbler's thread") {
            Ok(closed) => eprintln!("  {dribbled}: closed after {closed:?}"),
            Err(e) => failures.push(format!("{dribbled}: {e}")),
        }
    }
    failures.dedup();
    failures.extend(probe(to).err().map(|e| format!("{dribbled}: then {e}")));
    failures
}

/// A `GET /` padded to [`TINY_HEAD_LEN`], sent in one write as one-byte records, on a
/// fresh connection [`TINY_ROUNDS`] times: each answered with 200, and the server's
/// CPU per head (the handshake not counted) within [`TINY_CPU_PER_SEALING`] times what
/// sealing the records cost this client, [`TINY_CPU_LIMIT`] at least; returns that CPU
/// and the client's.
fn tiny_records(server: &ServerProcess, to: &Endpoint) -> Result<(Duration, Duration), String> {
    let head = padded_get(TINY_HEAD_LEN);
    let (mut spent, mut sealed_in) = (Duration::ZERO, Duration::ZERO);
    for round in 1..=TINY_ROUNDS {
        let mut wire = to.try_connect()?;
        std::thread::sleep(SETTLE);
        let sealing = thread_cpu_time()?;
        let records = sealed(&mut wire, &head, &[1])?;
        sealed_in += thread_cpu_time()?.saturating_sub(sealing);
        let before = cpu_time(server.pid())?;
        send(&wire, &records)?;
        let response = Conn::from(wire).response(false)?;
        spent += cpu_time(server.pid())?.saturating_sub(before);
        if (response.status, response.body.as_slice()) != (200, HELLO) {
            return Err(format!("head {round} got {}", response.normalized()));
        }
    }
    let (per_head, sealing) = (spent / TINY_ROUNDS, sealed_in / TINY_ROUNDS);
    let limit = TINY_CPU_LIMIT.max(sealing * TINY_CPU_PER_SEALING);
    match per_head <= limit {
        true => Ok((per_head, sealing)),
        false => Err(format!(
            "the server spent {per_head:?} of CPU per {TINY_HEAD_LEN}-byte head (mean of \
             {TINY_ROUNDS}), the client {sealing:?} sealing it (limit {limit:?}: \
             {TINY_CPU_PER_SEALING} times that, {TINY_CPU_LIMIT:?} at least)"
        )),
    }
}

/// `GET / HTTP/1.1` with a padding header, `len` bytes in all.
fn padded_get(len: usize) -> Vec<u8> {
    let (start, end) = ("GET / HTTP/1.1\r\nHost: t\r\nX-Pad: ", "\r\n\r\n");
    let mut head = start.as_bytes().to_vec();
    head.resize(len - end.len(), b'a');
    head.extend_from_slice(end.as_bytes());
    head
}

/// `GET /`, `GET /bytes/70000`, a 40,000-byte `POST /payload` and `GET /bytes/7`
/// pipelined, cut into records of [`RECORD_SIZES`] from each start in turn, on one
/// connection: every answer right and in order.
fn assorted_records(to: &Endpoint) -> Result<(), String> {
    let echoed: Vec<u8> = (0..40_000).map(|i| (i * 13 % 251) as u8).collect();
    let mut requests = b"GET / HTTP/1.1\r\nHost: t\r\n\r\n".to_vec();
    requests.extend_from_slice(b"GET /bytes/70000 HTTP/1.1\r\nHost: t\r\n\r\n");
    let post = format!(
        "POST /payload HTTP/1.1\r\nHost: t\r\nContent-Length: {}\r\n\r\n",
        echoed.len()
    );
    requests.extend_from_slice(post.as_bytes());
    requests.extend_from_slice(&echoed);
    requests.extend_from_slice(b"GET /bytes/7 HTTP/1.1\r\nHost: t\r\n\r\n");
    let bodies: [(&str, &[u8]); 4] = [
        ("GET /", HELLO),
        ("GET /bytes/70000", pattern(70_000).expect("a body in range")),
        ("POST /payload", &echoed),
        ("GET /bytes/7", pattern(7).expect("a body in range")),
    ];
    let mut conn = Conn::from(to.try_connect()?);
    for start in 0..RECORD_SIZES.len() {
        let sizes: Vec<usize> = RECORD_SIZES
            .iter()
            .cycle()
            .skip(start)
            .take(RECORD_SIZES.len())
            .copied()
            .collect();
        let records = sealed(conn.wire_mut(), &requests, &sizes)?;
        send(conn.wire_mut(), &records)?;
        for (what, body) in bodies {
            let response = conn
                .response(false)
                .map_err(|e| format!("records {sizes:?}: {what}: {e}"))?;
            if response.status != 200 || response.body != body {
                return Err(format!(
                    "records {sizes:?}: {what} got {} with {} body bytes (want 200 with {})",
                    response.status,
                    response.body.len(),
                    body.len()
                ));
            }
        }
    }
    Ok(())
}

/// `bytes` sealed in `wire`'s TLS session as records of `sizes` plaintext bytes each
/// (cycled), one record per piece.
fn sealed(wire: &mut Wire, bytes: &[u8], sizes: &[usize]) -> Result<Vec<u8>, String> {
    let Wire::Tls(stream) = wire else {
        return Err("not a TLS connection".into());
    };
    let mut records = Vec::new();
    let (mut rest, mut pieces) = (bytes, 0);
    for &size in sizes.iter().cycle() {
        if rest.is_empty() {
            break;
        }
        let (piece, after) = rest.split_at(size.min(rest.len()));
        stream
            .conn
            .writer()
            .write_all(piece)
            .map_err(|e| format!("seal: {e}"))?;
        while stream.conn.wants_write() {
            stream
                .conn
                .write_tls(&mut records)
                .map_err(|e| format!("seal: {e}"))?;
        }
        (rest, pieces) = (after, pieces + 1);
    }
    // Each piece must have made exactly one record, or the check tests less than it says.
    match record_count(&records) {
        count if count == pieces => Ok(records),
        count => Err(format!("{pieces} pieces made {count} records")),
    }
}

/// Writes `records` onto `wire`'s socket at once.
fn send(wire: &Wire, records: &[u8]) -> Result<(), String> {
    let mut tcp = wire.tcp();
    tcp.set_write_timeout(Some(ANSWER_TIMEOUT))
        .map_err(|e| e.to_string())?;
    tcp.write_all(records)
        .map_err(|e| format!("send {} B of records: {e}", records.len()))
}

/// How many TLS records `bytes` holds, whole ones back to back.
fn record_count(mut bytes: &[u8]) -> usize {
    let mut count = 0;
    while let [_, _, _, high, low, ..] = *bytes {
        let end = (5 + usize::from(u16::from_be_bytes([high, low]))).min(bytes.len());
        (bytes, count) = (&bytes[end..], count + 1);
    }
    count
}

/// CPU time process `pid`'s live threads have spent so far: the sum of the first
/// figure of each `/proc/PID/task/*/schedstat` (ns, user and system alike). A thread
/// that exits between the listing and its read is skipped; an unreadable /proc is an
/// error, never zero.
pub fn cpu_time(pid: u32) -> Result<Duration, String> {
    let dir = format!("/proc/{pid}/task");
    let mut ns = 0u64;
    for task in std::fs::read_dir(&dir).map_err(|e| format!("{dir}: {e}"))? {
        let path = task.map_err(|e| format!("{dir}: {e}"))?.path().join("schedstat");
        let Ok(stat) = std::fs::read_to_string(&path) else {
            continue;
        };
        ns += schedstat_ns(&stat).ok_or_else(|| format!("{}: unreadable: {stat:?}", path.display()))?;
    }
    Ok(Duration::from_nanos(ns))
}

/// CPU time the calling thread has spent so far (`/proc/thread-self/schedstat`).
fn thread_cpu_time() -> Result<Duration, String> {
    let path = "/proc/thread-self/schedstat";
    let stat = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    schedstat_ns(&stat)
        .map(Duration::from_nanos)
        .ok_or_else(|| format!("{path}: unreadable: {stat:?}"))
}

/// The first figure of a `schedstat` file: nanoseconds on a CPU.
fn schedstat_ns(stat: &str) -> Option<u64> {
    stat.split_whitespace().next()?.parse().ok()
}

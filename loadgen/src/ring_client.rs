//! The ring driver: one load thread's keep-alive connections over plain TCP driven from
//! one io_uring (`ring.rs`) with no async runtime, open loop or closed loop (with
//! pipelining), as `client.rs` drives them on tokio, sending each request close to its
//! intended time (`results/client_drivers.md`: what that costs per request). Each
//! wake-up reads the clock once, queues a send on every idle connection whose intended
//! send time has come (idle connections wait in a heap by that time, so a wake-up
//! touches only the connections it serves) (the pre-rendered request: no per-request
//! allocation), and submits them in the one `io_uring_enter` that also waits, until the
//! next intended send at the latest (but never sooner than [`MIN_GAP`] after the last
//! wait that ran to its end, as the tokio driver's clock coalesces). Answers arrive
//! through each connection's multishot recv, armed once (and again whenever it ends, as
//! when the provided buffers ran out), and are framed and checked straight out of the
//! provided buffer, which goes back to the kernel at once (`ring_answers.rs`, every byte
//! once).
//!
//! Latency is wrk2's, from each request's intended send time (the same schedule and
//! coordinated-omission correction as `pace.rs`). The clock is read once per batch of
//! completions, after the wait: every answer in the batch had arrived by then, so a
//! latency can be overstated by the batch's processing before it, never understated. A
//! send's `sent` time is the wake-up's clock, read before the send leaves, so the
//! uncorrected latency can be overstated the same way, and the lateness understated by at
//! most the time to queue the batch's sends. A failed connection fails the run.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio::time::Instant;

use crate::config::Config;
use crate::errors::{ErrorKind, Failure};
use crate::framer::{Framer, Reference};
use crate::pace::{Limits, Sending};
use crate::ring::{Completion, Op, Ring};
use crate::ring_answers::Answers;
use crate::ring_buffers::Shape;
use crate::tally::{Tally, Window};
use crate::timer::MIN_GAP;

/// Whether the ring driver covers a run of `config`: keep-alive connections over plain
/// TCP asking for one path (no TLS, churn or files).
pub(crate) fn covers(config: &Config) -> bool {
    config.tls.is_none() && config.churn.is_none() && config.files.is_none() && !config.busy_poll
}

/// The provided buffers of a thread with `connections` connections: 16 KiB each (64 KiB
/// where the answers are known to be larger), about one per connection, at most 16 MiB.
pub(crate) fn shape(config: &Config, connections: usize) -> Shape {
    let hint = config
        .expect_body_len
        .or(config.expect_body.as_ref().map(Vec::len));
    let size = if hint.unwrap_or(0) > 16 << 10 {
        64 << 10
    } else {
        16 << 10
    };
    let count = connections.next_power_of_two().clamp(32, (16 << 20) / size);
    Shape {
        count: count as u16,
        size,
    }
}

/// A send in flight and its answers.
#[derive(Clone, Copy)]
struct Waiting {
    sending: Sending,
    /// Answers still due (the pipelining depth at first).
    answers: usize,
    /// The bytes of the batch the kernel has sent so far.
    written: usize,
}

/// One connection's state between wake-ups.
struct Connection<'a> {
    /// Its next send's intended time (open loop).
    next: Instant,
    /// `None` while idle, in the heap of idle connections: once its answers are all in
    /// and its send's completion too (which may come after them).
    waiting: Option<Waiting>,
    answers: Answers<'a>,
}

/// Idle connections by when they may send next (the heap's top is the earliest).
type Idle = BinaryHeap<Reverse<(Instant, usize)>>;

/// Runs clients `thread`, `thread + threads`, ... of `config` on one ring until the run
/// ends, recording into a new tally over `window`.
pub(crate) fn run_thread(
    config: &Arc<Config>,
    limits: &Limits,
    (thread, threads): (usize, usize),
    window: Window,
) -> Tally {
    let clients: Vec<usize> = (thread..config.connections).step_by(threads).collect();
    run_shaped(config, limits, &clients, window, shape(config, clients.len()))
}

/// Runs `clients` of `config` on one ring with provided buffers of `shape`.
pub(crate) fn run_shaped(
    config: &Arc<Config>,
    limits: &Limits,
    clients: &[usize],
    window: Window,
    shape: Shape,
) -> Tally {
    let mut tally = Tally::new(config, window);
    if let Err(failure) = drive(config, limits, clients, shape, &mut tally) {
        limits.failed.store(true, Ordering::Relaxed);
        tally.fail(failure);
    }
    tally
}

fn drive(
    config: &Arc<Config>,
    limits: &Limits,
    clients: &[usize],
    shape: Shape,
    tally: &mut Tally,
) -> Result<(), Failure> {
    let failed = |kind: ErrorKind, what: &'static str| {
        move |e: std::io::Error| Failure::new(kind, format!("{what}: {e}"))
    };
    let mut ring = Ring::new(config.clone(), config.depth, clients.len(), shape)
        .map_err(failed(ErrorKind::Connect, "io_uring"))?;
    let interval = config
        .rate
        .map(|rate| Duration::from_secs_f64(config.connections as f64 / rate));
    let sockets: Vec<TcpStream> = clients
        .iter()
        .map(|_| connect(config, limits.patience()))
        .collect::<Result<_, _>>()?;
    // The schedules start once the thread's connections are all made (so none is charged
    // the connects made before it sends, as wrk2 charges none its own), staggered as
    // `pace.rs` staggers them.
    let begin = Instant::now();
    let mut connections = Vec::with_capacity(clients.len());
    let mut idle = Idle::with_capacity(clients.len());
    for (&index, socket) in clients.iter().zip(sockets) {
        let offset = interval.map_or(Duration::ZERO, |i| {
            i.mul_f64(index as f64 / config.connections as f64)
        });
        let next = begin + offset;
        let conn = ring.add(socket);
        ring.arm(conn).map_err(failed(ErrorKind::Read, "recv"))?;
        idle.push(Reverse((next, conn)));
        connections.push(Connection {
            next,
            waiting: None,
            answers: Answers::new(Framer::new(config.expect(), Reference::of(config, None))),
        });
    }
    // Connections not done: idle, or waiting for an answer.
    let mut live = connections.len();
    let mut completions = Vec::with_capacity(2 * clients.len());
    let mut last_timeout = Instant::now();
    loop {
        let now = Instant::now();
        while let Some(&Reverse((next, conn))) = idle.peek()
            && (interval.is_none() || next <= now)
        {
            idle.pop();
            let intended = if interval.is_some() { next } else { now };
            if intended >= limits.deadline || !limits.take(config.depth, intended) {
                live -= 1;
                continue;
            }
            let connection = &mut connections[conn];
            connection.next = intended + interval.unwrap_or_default();
            connection.waiting = Some(Waiting {
                sending: Sending { intended, sent: now },
                answers: config.depth,
                written: 0,
            });
            ring.send(conn, 0).map_err(failed(ErrorKind::Write, "send"))?;
        }
        if live == 0 {
            return Ok(());
        }
        let patience = limits.patience();
        if now >= patience {
            let message = "no response within 5 s after the run's end";
            return Err(Failure::new(ErrorKind::Timeout, message));
        }
        let due = idle.peek().map(|Reverse((next, _))| *next);
        let until = due.map_or(patience, |due| due.max(last_timeout + MIN_GAP).min(patience));
        ring.wait(until.saturating_duration_since(now))
            .map_err(failed(ErrorKind::Read, "io_uring_enter"))?;
        ring.completions(&mut completions);
        // One clock read for the whole batch (module doc).
        let now = Instant::now();
        if now >= until {
            last_timeout = now;
        }
        for completion in completions.drain(..) {
            let conn = completion.conn;
            let connection = &mut connections[conn];
            match completion.op {
                Op::Send => sent(&mut ring, conn, connection, completion.result)?,
                Op::Recv => received(&mut ring, &completion, connection, (now, limits, tally))?,
            }
            if let Some(Waiting {
                answers: 0, written, ..
            }) = connection.waiting
                && written == ring.outgoing().len()
            {
                connection.waiting = None;
                idle.push(Reverse((connection.next, conn)));
            }
        }
    }
}

/// A blocking connect to the target with Nagle off, given up at `patience`.
fn connect(config: &Config, patience: Instant) -> Result<TcpStream, Failure> {
    let fail = |e: std::io::Error| Failure::new(ErrorKind::Connect, format!("connect: {e}"));
    let left = patience
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(1));
    let socket = TcpStream::connect_timeout(&config.addr, left).map_err(fail)?;
    socket.set_nodelay(true).map_err(fail)?;
    Ok(socket)
}

/// A send on `conn` completed with `result`: the rest of the batch goes if it was partial.
fn sent(ring: &mut Ring, conn: usize, connection: &mut Connection, result: i32) -> Result<(), Failure> {
    let Some(waiting) = &mut connection.waiting else {
        return Ok(());
    };
    if result <= 0 {
        let e = std::io::Error::from_raw_os_error(-result);
        let message = if result == 0 {
            "write: nothing sent".into()
        } else {
            format!("write: {e}")
        };
        return Err(Failure::new(ErrorKind::Write, message));
    }
    waiting.written += result as usize;
    if waiting.written < ring.outgoing().len() {
        let resend = ring.send(conn, waiting.written);
        resend.map_err(|e| Failure::new(ErrorKind::Write, format!("send: {e}")))?;
    }
    Ok(())
}

/// A recv completion on a connection: frames and checks the bytes it brought straight out
/// of its provided buffer (then given back), records each complete answer at `now`, and
/// re-arms the recv if it has ended (as when the provided buffers ran out: ENOBUFS).
fn received(
    ring: &mut Ring,
    completion: &Completion,
    connection: &mut Connection,
    (now, limits, tally): (Instant, &Limits, &mut Tally),
) -> Result<(), Failure> {
    let result = completion.result;
    if result > 0 {
        let due = connection.waiting.map_or(0, |waiting| waiting.answers);
        let absorbed = connection.answers.absorb(ring.bytes(completion), due);
        ring.recycle(completion);
        let done = absorbed?;
        if let Some(waiting) = &mut connection.waiting {
            waiting.answers -= done;
            for _ in 0..done {
                tally.record_at(waiting.sending, now, limits);
            }
        }
    } else if result == 0 {
        return Err(Failure::new(ErrorKind::Read, "the server closed the connection"));
    } else if result != -libc::ENOBUFS {
        let e = std::io::Error::from_raw_os_error(-result);
        return Err(Failure::new(ErrorKind::Read, format!("read: {e}")));
    }
    if !completion.more {
        let rearmed = ring.arm(completion.conn);
        rearmed.map_err(|e| Failure::new(ErrorKind::Read, format!("recv: {e}")))?;
    }
    Ok(())
}

#[cfg(test)]
#[path = "ring_client_tests.rs"]
mod tests;

//! The ring driver: one load thread's keep-alive connections over plain TCP driven from
//! one io_uring (`ring.rs`) with no async runtime, open loop or closed loop (with
//! pipelining), as `client.rs` drives them on tokio, for less CPU per request. Each
//! wake-up reads the clock once, queues a send on every idle connection whose intended
//! send time has come (idle connections wait in a heap by that time, so a wake-up
//! touches only the connections it serves) (the pre-rendered request: no per-request allocation) with a recv
//! for its answer, and submits them all in the one `io_uring_enter` that also waits,
//! until the next intended send at the latest (but never sooner than [`MIN_GAP`] after
//! the last wait that ended by its timeout, as the tokio driver's clock coalesces). The
//! answers are framed and checked in place as they arrive (`Framer`, every byte once).
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
use crate::framer::{Framer, Reference, Step};
use crate::pace::{Limits, Sending};
use crate::read::{MAX_READ, MIN_READ};
use crate::ring::{Completion, Op, Ring};
use crate::tally::{Tally, Window};
use crate::timer::MIN_GAP;

/// Whether the ring driver covers a run of `config`: keep-alive connections over plain
/// TCP asking for one path (no TLS, churn or files).
pub(crate) fn covers(config: &Config) -> bool {
    config.tls.is_none() && config.churn.is_none() && config.files.is_none() && !config.busy_poll
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
    framer: Framer<'a>,
    /// The first byte of its inbox not consumed yet.
    start: usize,
    /// Its last answer's length: the room a read for the next one's head starts with.
    last: usize,
    /// The bytes its framer said the current answer still needs (0: not known).
    want: usize,
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
    let mut tally = Tally::new(config, window);
    let clients: Vec<usize> = (thread..config.connections).step_by(threads).collect();
    if let Err(failure) = drive(config, limits, &clients, &mut tally) {
        limits.failed.store(true, Ordering::Relaxed);
        tally.fail(failure);
    }
    tally
}

fn drive(config: &Arc<Config>, limits: &Limits, clients: &[usize], tally: &mut Tally) -> Result<(), Failure> {
    let failed = |kind: ErrorKind, what: &'static str| {
        move |e: std::io::Error| Failure::new(kind, format!("{what}: {e}"))
    };
    let mut ring = Ring::new(config.clone(), config.depth, clients.len())
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
        idle.push(Reverse((next, ring.add(socket))));
        connections.push(Connection {
            next,
            waiting: None,
            framer: Framer::new(config.expect(), Reference::of(config, None)),
            start: 0,
            last: 0,
            want: 0,
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
            receive(&mut ring, conn, connection, true)?;
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
        if completions.is_empty() {
            last_timeout = now;
        }
        for Completion { conn, op, result } in completions.drain(..) {
            let connection = &mut connections[conn];
            match op {
                Op::Send => sent(&mut ring, conn, connection, result)?,
                Op::Recv => received(&mut ring, (conn, connection), result, (now, limits, tally))?,
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

/// A recv on `conn` completed with `result`: frames and checks what has arrived, records
/// each complete answer at `now`, and receives again while answers are still due.
fn received(
    ring: &mut Ring,
    (conn, connection): (usize, &mut Connection),
    result: i32,
    (now, limits, tally): (Instant, &Limits, &mut Tally),
) -> Result<(), Failure> {
    if result < 0 {
        let e = std::io::Error::from_raw_os_error(-result);
        return Err(Failure::new(ErrorKind::Read, format!("read: {e}")));
    }
    if result == 0 {
        return Err(Failure::new(ErrorKind::Read, "the server closed the connection"));
    }
    let Some(waiting) = &mut connection.waiting else {
        return Ok(());
    };
    let inbox = ring.inbox(conn);
    while waiting.answers > 0 {
        let (used, step) = connection.framer.feed(&inbox[connection.start..])?;
        connection.start += used;
        if let Step::More(want) = step {
            connection.want = want;
            break;
        }
        connection.last = connection.framer.consumed();
        connection.framer.restart();
        connection.want = 0;
        tally.record_at(waiting.sending, now, limits);
        waiting.answers -= 1;
    }
    if waiting.answers > 0 {
        receive(ring, conn, connection, false)?;
    }
    Ok(())
}

/// Makes room in `conn`'s inbox for the rest of its answer (moving the rare partial head
/// to the front) and queues a recv into it; `early` with the request's send, before any
/// of its answer can have come.
fn receive(ring: &mut Ring, conn: usize, connection: &mut Connection, early: bool) -> Result<(), Failure> {
    let inbox = ring.inbox(conn);
    if connection.start > 0 {
        inbox.copy_within(connection.start.., 0);
        inbox.truncate(inbox.len() - connection.start);
        connection.start = 0;
    }
    let want = match connection.want {
        0 => connection.last.max(connection.framer.consumed()),
        want => want,
    };
    inbox.reserve(want.clamp(MIN_READ, MAX_READ));
    ring.recv(conn, early)
        .map_err(|e| Failure::new(ErrorKind::Read, format!("recv: {e}")))
}

//! A ping-pong between two threads pinned to two CPUs, over a Unix socket pair: one byte
//! there and back, many times. With blocking reads both threads sleep between messages, so
//! every round trip wakes each side once: the wake-up a server on an idle CPU pays for
//! every request, and its client for every answer. With busy-polling (non-blocking reads
//! in a loop) neither side ever sleeps: the same exchange without a wake-up. The machine
//! record keeps both ([`crate::wake_up`]).

use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use crate::affinity::CpuSet;
use crate::cpu::thread_cpu_time;

/// How each side waits for the other's byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// A blocking read: the thread sleeps until the byte arrives and is woken for it.
    Sleep,
    /// Non-blocking reads in a loop: the thread never leaves its CPU.
    BusyPoll,
}

/// How long one probe runs.
#[derive(Debug, Clone, Copy)]
pub struct Length {
    /// Round trips made first and left out of the median.
    pub warm_up: usize,
    /// Round trips measured, at most.
    pub round_trips: usize,
    /// Measuring stops after this long even when fewer round trips were made.
    pub time_cap: Duration,
}

/// Default: 1,000 round trips of warm-up, then 20,000, or as many as fit in 0.4 s (a
/// machine where a wake-up costs 45 µs makes about 9,000), so both modes together take
/// under a second.
pub const DEFAULT_LENGTH: Length = Length {
    warm_up: 1_000,
    round_trips: 20_000,
    time_cap: Duration::from_millis(400),
};

/// The longest round trip recorded as itself; a longer one counts as this long.
const LONGEST: Duration = Duration::from_secs(10);

/// What one probe measured.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RoundTrips {
    /// The median round trip the pinging side saw, in µs (to 3 significant figures).
    pub round_trip_us: f64,
    /// Both threads' CPU time (user and system) per round trip, in µs, the warm-up
    /// included.
    pub cpu_per_round_trip_us: f64,
    /// How many round trips the median is over.
    pub measured: usize,
}

/// Runs one probe: the echoing thread pinned to `cpus[0]` (where a server runs), the
/// pinging one to `cpus[1]` (where its client runs), each waiting as `wait` says.
pub fn run(cpus: [usize; 2], wait: Wait, length: Length) -> Result<RoundTrips, String> {
    let (echo_end, ping_end) = UnixStream::pair().map_err(|e| format!("socket pair: {e}"))?;
    for end in [&echo_end, &ping_end] {
        end.set_nonblocking(wait == Wait::BusyPoll)
            .map_err(|e| format!("socket pair: {e}"))?;
    }
    // Whichever side fails drops its end, so the other sees the pair closed and stops too.
    let echo = std::thread::spawn(move || echo(echo_end, cpus[0]));
    let ping = std::thread::spawn(move || ping(ping_end, cpus[1], length));
    let pinged = ping.join().map_err(|_| "the pinging thread panicked")?;
    let echoed = echo.join().map_err(|_| "the echoing thread panicked")?;
    let ((times, ping_cpu), (echoed, echo_cpu)) = (pinged?, echoed?);
    let measured = times.len() as usize;
    let made = length.warm_up + measured;
    if echoed != made {
        return Err(format!("{made} round trips made but {echoed} echoed"));
    }
    if measured == 0 {
        return Err("no round trip measured".into());
    }
    Ok(RoundTrips {
        round_trip_us: times.value_at_quantile(0.5) as f64 / 1e3,
        cpu_per_round_trip_us: (ping_cpu + echo_cpu).as_secs_f64() * 1e6 / made as f64,
        measured,
    })
}

/// The server's side: sends every byte back until the pair is closed. Returns how many it
/// echoed and the CPU time that took.
fn echo(mut end: UnixStream, cpu: usize) -> Result<(usize, Duration), String> {
    pin(cpu)?;
    let start = thread_cpu_time();
    let mut echoed = 0;
    while receive(&mut end).map_err(|e| format!("echo: {e}"))? {
        send(&mut end).map_err(|e| format!("echo: {e}"))?;
        echoed += 1;
    }
    Ok((echoed, thread_cpu_time().saturating_sub(start)))
}

/// The client's side: the warm-up, then round trips until `length` says stop. Returns the
/// measured round trips, in ns to 3 significant figures, and the CPU time all of them took.
fn ping(mut end: UnixStream, cpu: usize, length: Length) -> Result<(Histogram<u64>, Duration), String> {
    pin(cpu)?;
    let start = thread_cpu_time();
    for _ in 0..length.warm_up {
        round_trip(&mut end)?;
    }
    let mut times =
        Histogram::new_with_bounds(1, LONGEST.as_nanos() as u64, 3).expect("valid histogram bounds");
    let measuring = Instant::now();
    while (times.len() as usize) < length.round_trips && measuring.elapsed() < length.time_cap {
        let sent = Instant::now();
        round_trip(&mut end)?;
        times.saturating_record(sent.elapsed().as_nanos() as u64);
    }
    Ok((times, thread_cpu_time().saturating_sub(start)))
}

fn pin(cpu: usize) -> Result<(), String> {
    CpuSet(vec![cpu])
        .pin_current_thread()
        .map_err(|e| format!("pinning a thread to CPU {cpu}: {e}"))
}

fn round_trip(end: &mut UnixStream) -> Result<(), String> {
    send(end).map_err(|e| format!("ping: {e}"))?;
    match receive(end) {
        Ok(true) => Ok(()),
        Ok(false) => Err("ping: the echoing side closed the pair".into()),
        Err(e) => Err(format!("ping: {e}")),
    }
}

/// Reads one byte, spinning while a non-blocking read finds none; `false` when the other
/// end has closed the pair.
fn receive(end: &mut UnixStream) -> io::Result<bool> {
    let mut byte = [0u8];
    loop {
        match end.read(&mut byte) {
            Ok(n) => return Ok(n == 1),
            Err(e) if retry(&e) => std::hint::spin_loop(),
            Err(e) => return Err(e),
        }
    }
}

/// Writes one byte, spinning while a non-blocking write finds no room.
fn send(end: &mut UnixStream) -> io::Result<()> {
    loop {
        match end.write(b"!") {
            Ok(1) => return Ok(()),
            Ok(_) => return Err(io::ErrorKind::WriteZero.into()),
            Err(e) if retry(&e) => std::hint::spin_loop(),
            Err(e) => return Err(e),
        }
    }
}

fn retry(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHORT: Length = Length {
        warm_up: 100,
        round_trips: 2_000,
        time_cap: Duration::from_millis(100),
    };

    fn two_cpus() -> [usize; 2] {
        match CpuSet::current().0[..] {
            [a, b, ..] => [a, b],
            _ => panic!("the probe needs two CPUs"),
        }
    }

    #[test]
    fn both_modes_measure_positive_round_trips_and_cpu() {
        for wait in [Wait::Sleep, Wait::BusyPoll] {
            let probe = run(two_cpus(), wait, SHORT).unwrap();
            assert!(
                probe.measured >= 1 && probe.measured <= SHORT.round_trips,
                "{probe:?}"
            );
            // Four system calls cannot take under 0.1 µs: a smaller median is a unit slip.
            assert!(probe.round_trip_us >= 0.1, "{wait:?}: {probe:?}");
            assert!(probe.cpu_per_round_trip_us > 0.0, "{wait:?}: {probe:?}");
        }
    }

    #[test]
    fn a_cpu_that_does_not_exist_is_an_error_not_a_hang() {
        let error = run([0, 1_000], Wait::Sleep, SHORT).unwrap_err();
        assert!(error.contains("CPU 1000"), "{error}");
    }
}

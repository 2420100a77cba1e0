//! The platform's own noise floor, measured as jHiccup does: a thread pinned to one CPU
//! sleeps [`INTERVAL`] in a loop and records how late each wake-up is. Whatever stalls
//! that CPU (the hypervisor running another guest, interrupts, a long kernel path) delays
//! the sleeper as it delays every request served there, so a latency no higher than the
//! sleeper's at the same percentile cannot be told apart from the platform's own noise.
//!
//! [`Hiccups`] is the pure recording (how long a sleep took in, percentiles out), tested
//! without timing; [`HiccupMeter`] is the sleeping thread. A stall longer than the interval
//! is recorded as jHiccup does, once for every interval it swallowed (each shorter by one
//! interval), since a request arriving at any moment of the stall waits for its end.
//!
//! Cost: one wake-up per millisecond, each a few microseconds on its CPU, more when the
//! CPU is busy (it was seen at up to 6% of a loaded CPU); every summary carries the share
//! of its CPU the meter itself used (`cpu_share`). So it never runs beside the server
//! while a point is measured ([`crate::noise`]). The meter's timer slack is set to 1 ns, so the kernel's default 50 µs slack for
//! sleeping threads is not mistaken for a hiccup.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use crate::affinity::CpuSet;

/// How long the meter sleeps between wake-ups.
pub const INTERVAL: Duration = Duration::from_millis(1);

/// How late one CPU's wake-ups were during a point, in µs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HiccupSummary {
    /// Wake-ups measured (about the point's duration divided by [`INTERVAL`]).
    pub samples: u64,
    pub p50_us: u64,
    pub p99_us: u64,
    pub p999_us: u64,
    pub max_us: u64,
    /// Share of its CPU the meter itself used.
    pub cpu_share: f64,
}

/// The lateness of every wake-up so far, in nanoseconds.
#[derive(Debug, Clone)]
pub struct Hiccups {
    histogram: Histogram<u64>,
    wakeups: u64,
}

impl Default for Hiccups {
    fn default() -> Self {
        Hiccups {
            histogram: Histogram::new(3).expect("3 significant figures are supported"),
            wakeups: 0,
        }
    }
}

impl Hiccups {
    /// Records one wake-up: a sleep of `asked` that took `took`.
    pub fn record(&mut self, asked: Duration, took: Duration) {
        let late = took.saturating_sub(asked).as_nanos() as u64;
        let interval = asked.as_nanos().max(1) as u64;
        // An auto-resizing histogram accepts any u64.
        self.histogram
            .record_correct(late, interval)
            .expect("an auto-resizing histogram records any value");
        self.wakeups += 1;
    }

    /// The percentiles so far, with the meter's own CPU share beside them.
    pub fn summary(&self, cpu_share: f64) -> HiccupSummary {
        let micros = |ns: u64| (ns + 500) / 1000;
        let at = |q: f64| micros(self.histogram.value_at_quantile(q));
        HiccupSummary {
            samples: self.wakeups,
            p50_us: at(0.5),
            p99_us: at(0.99),
            p999_us: at(0.999),
            max_us: micros(self.histogram.max()),
            cpu_share,
        }
    }
}

/// A sleeping thread pinned to one CPU, recording until stopped.
pub struct HiccupMeter {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<Result<HiccupSummary, String>>,
}

impl HiccupMeter {
    /// Starts a meter on `cpu` (unpinned if `None`); returns once it is pinned and sleeping.
    pub fn start(cpu: Option<usize>) -> Result<HiccupMeter, String> {
        let stop = Arc::new(AtomicBool::new(false));
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let stopped = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("hiccup-meter".into())
            .spawn(move || {
                let setup = prepare(cpu);
                let failed = setup.clone().err();
                // The receiver waits for this message before returning.
                let _ = ready_tx.send(setup);
                match failed {
                    Some(error) => Err(error),
                    None => sleep_until_stopped(&stopped),
                }
            })
            .map_err(|e| format!("cannot start a hiccup meter: {e}"))?;
        let setup = ready_rx
            .recv()
            .map_err(|_| "the hiccup meter ended before it started".to_string());
        let meter = HiccupMeter { stop, thread };
        match setup.and_then(|s| s) {
            Ok(()) => Ok(meter),
            Err(error) => {
                let _ = meter.stop();
                Err(error)
            }
        }
    }

    /// Stops the meter and returns what it recorded.
    pub fn stop(self) -> Result<HiccupSummary, String> {
        self.stop.store(true, Ordering::Relaxed);
        self.thread
            .join()
            .map_err(|_| "the hiccup meter panicked".to_string())?
    }
}

/// Pins the calling thread to `cpu` and sets its timer slack to 1 ns.
fn prepare(cpu: Option<usize>) -> Result<(), String> {
    if let Some(cpu) = cpu {
        CpuSet(vec![cpu])
            .pin_current_thread()
            .map_err(|e| format!("cannot pin a hiccup meter to CPU {cpu}: {e}"))?;
    }
    // SAFETY: PR_SET_TIMERSLACK takes a plain integer and changes only this thread's timer
    // slack; no memory is passed.
    let rc = unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
    if rc != 0 {
        return Err(format!(
            "cannot set the hiccup meter's timer slack: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(())
}

/// Sleeps [`INTERVAL`] at a time, recording each wake-up's lateness, until `stop` is set.
fn sleep_until_stopped(stop: &AtomicBool) -> Result<HiccupSummary, String> {
    let mut hiccups = Hiccups::default();
    let (cpu_before, start) = (thread_cpu_time()?, Instant::now());
    while !stop.load(Ordering::Relaxed) {
        let before = Instant::now();
        std::thread::sleep(INTERVAL);
        hiccups.record(INTERVAL, before.elapsed());
    }
    let used = thread_cpu_time()?.saturating_sub(cpu_before);
    Ok(hiccups.summary(used.as_secs_f64() / start.elapsed().as_secs_f64().max(1e-9)))
}

/// Time the calling thread has spent on a CPU (`/proc/thread-self/schedstat`).
fn thread_cpu_time() -> Result<Duration, String> {
    let path = "/proc/thread-self/schedstat";
    let stat = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    crate::cpu::schedstat_ns(&stat, path).map(Duration::from_nanos)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn late_by(micros: u64) -> Duration {
        INTERVAL + Duration::from_micros(micros)
    }

    #[test]
    fn a_stall_shows_in_the_tail_and_the_max() {
        let mut hiccups = Hiccups::default();
        for _ in 0..1000 {
            hiccups.record(INTERVAL, late_by(20));
        }
        hiccups.record(INTERVAL, late_by(50_000));
        let summary = hiccups.summary(0.0);
        assert_eq!(summary.samples, 1001);
        assert_eq!(summary.p50_us, 20);
        assert!(summary.max_us >= 50_000, "{summary:?}");
        // The 50 ms stall swallowed 49 wake-ups, each recorded one interval shorter: a
        // request arriving during it waited that long, so it reaches the 99th percentile.
        assert!(summary.p99_us >= 10_000, "{summary:?}");
    }

    #[test]
    fn a_quiet_platform_has_a_flat_floor() {
        let mut hiccups = Hiccups::default();
        for late in [10, 20, 30, 40] {
            (0..250).for_each(|_| hiccups.record(INTERVAL, late_by(late)));
        }
        // A wake-up that came early (it cannot, but clocks are clocks) counts as on time.
        hiccups.record(INTERVAL, INTERVAL / 2);
        let summary = hiccups.summary(0.0);
        assert_eq!((summary.p50_us, summary.max_us), (20, 40));
        assert!(summary.p999_us <= 40);
    }

    #[test]
    fn the_meter_wakes_about_once_per_interval() {
        let start = Instant::now();
        let meter = HiccupMeter::start(CpuSet::current().0.first().copied()).unwrap();
        std::thread::sleep(Duration::from_millis(200));
        let summary = meter.stop().unwrap();
        let elapsed_ms = start.elapsed().as_millis() as u64;
        // Each sleep lasts at least the interval, so the meter cannot wake more often than
        // once a millisecond; a busy machine may delay many wake-ups, so the lower bound
        // is generous.
        assert!(summary.samples <= elapsed_ms, "{summary:?} in {elapsed_ms} ms");
        assert!(
            summary.samples >= elapsed_ms / 10,
            "{summary:?} in {elapsed_ms} ms"
        );
        assert!(summary.cpu_share > 0.0 && summary.cpu_share < 1.0, "{summary:?}");
    }

    #[test]
    fn a_meter_on_a_missing_cpu_is_an_error() {
        // The highest CPU number a cpu_set_t holds, which this machine does not have.
        let error = HiccupMeter::start(Some(1023)).err().unwrap();
        assert!(error.contains("CPU 1023"), "{error}");
    }
}

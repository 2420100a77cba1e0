//! Whole-machine CPU: the busy time of every CPU, read from `/proc/stat`. It counts
//! everything the machine did for a load. This includes work no process is charged for:
//! softirq receive processing (on loopback it runs on the sender's CPU), ksoftirqd, and
//! io_uring's io-wq workers wherever they ran. Less what the machine spends with nothing
//! measured running (the idle baseline) and divided by the requests, it is what a request
//! cost the whole machine: server, client and kernel together, on both CPUs. The server
//! process's own CPU ([`crate::cpu`]) is the figure that can tell servers apart; this one
//! says how much of the machine's work that figure leaves out.
//! Busy time is the wall time of every CPU less the time each spent idle (idle, iowait,
//! steal), not the user, system and interrupt figures: on a kernel with tick-based CPU
//! accounting those charge a whole tick (4 ms at 250 Hz) to whatever the tick interrupts,
//! so work at a fixed rate in step with the tick (1,000 connections/s, a 1 ms period) is
//! caught every time or never, and whole-machine CPU read from them ranged 10x either way,
//! below the server's own CPU, which is measured exactly. On a tickless kernel the idle
//! figures are kept exactly, from each CPU's entry to and exit from idle.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// `/proc` reports user and system time in these units (USER_HZ, 100 on Linux).
pub(crate) const TICK: Duration = Duration::from_millis(10);

/// The machine's CPUs and the time they had spent idle, at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Busy {
    /// Idle, iowait and steal ticks of all CPUs together.
    idle_ticks: u64,
    /// The CPUs online (the `cpuN` lines).
    cpus: u32,
    at: Instant,
}

impl Busy {
    /// Reads `/proc/stat` now.
    pub fn take() -> Result<Busy, String> {
        let path = "/proc/stat";
        let stat = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        Busy::parse(&stat, Instant::now()).ok_or_else(|| format!("{path}: no readable `cpu` line"))
    }

    /// The machine's idle ticks from the text of `/proc/stat` read at `at`: its first
    /// line, `cpu`, sums every CPU. Idle, iowait and steal are time no work of this machine
    /// ran; everything else (user, nice, system, irq, softirq; guest is inside user) is
    /// busy.
    pub fn parse(stat: &str, at: Instant) -> Option<Busy> {
        let mut lines = stat.lines();
        let fields: Vec<u64> = lines
            .next()?
            .strip_prefix("cpu ")?
            .split_whitespace()
            .map(|v| v.parse().ok())
            .collect::<Option<_>>()?;
        // user nice system idle iowait irq softirq steal ...
        let [_user, _nice, _system, idle, iowait, _irq, _softirq, steal, ..] = fields[..] else {
            return None;
        };
        let cpus = lines
            .filter(|l| {
                l.strip_prefix("cpu")
                    .is_some_and(|n| n.starts_with(|c: char| c.is_ascii_digit()))
            })
            .count();
        Some(Busy {
            idle_ticks: idle + iowait + steal,
            cpus: u32::try_from(cpus).ok().filter(|&n| n > 0)?,
            at,
        })
    }

    /// The busy CPU time between `earlier` and this reading, all CPUs together: their wall
    /// time less the time they spent idle.
    pub fn since(&self, earlier: &Busy) -> Duration {
        let wall = self.at.saturating_duration_since(earlier.at) * self.cpus;
        let idle = TICK * self.idle_ticks.saturating_sub(earlier.idle_ticks) as u32;
        wall.saturating_sub(idle)
    }
}

/// Busy CPU time per second of wall time while nothing measured runs: the harness waiting,
/// the servers idle, the system's own housekeeping. Measured once per run, over
/// [`BASELINE_WINDOW`], the first time a figure needs it.
fn idle_rate() -> Result<f64, String> {
    static RATE: OnceLock<Result<f64, String>> = OnceLock::new();
    RATE.get_or_init(|| {
        let (before, start) = (Busy::take()?, Instant::now());
        std::thread::sleep(BASELINE_WINDOW);
        let busy = Busy::take()?.since(&before);
        Ok(busy.as_secs_f64() / start.elapsed().as_secs_f64())
    })
    .clone()
}

/// How long the idle baseline is measured: long enough for its ticks' rounding to be
/// small against the few ticks a quiet machine spends.
const BASELINE_WINDOW: Duration = Duration::from_secs(2);

/// The machine's busy seconds over a window of `wall`, less what it spends idle for that
/// long (never below zero: a quiet window can read under the baseline); `None` when the
/// baseline could not be measured.
pub fn net_of_idle(busy: Duration, wall: Duration) -> Option<f64> {
    Some(less_baseline(busy, wall, idle_rate().ok()?))
}

fn less_baseline(busy: Duration, wall: Duration, idle_rate: f64) -> f64 {
    (busy.as_secs_f64() - idle_rate * wall.as_secs_f64()).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two readings of a 2-CPU machine's `/proc/stat`, 1 s apart, under load.
    const BEFORE: &str = "cpu  1000 10 500 90000 20 5 300 40 0 0\n\
                          cpu0 500 5 250 45000 10 3 150 20 0 0\n\
                          cpu1 500 5 250 45000 10 2 150 20 0 0\n\
                          intr 12345\n";
    const AFTER: &str = "cpu  1090 10 560 90030 25 6 343 50 0 0\n\
                         cpu0 545 5 280 45015 12 4 171 25 0 0\n\
                         cpu1 545 5 280 45015 13 2 172 25 0 0\n";

    fn readings(after: &str, apart: Duration) -> (Busy, Busy) {
        let start = Instant::now();
        (
            Busy::parse(BEFORE, start).unwrap(),
            Busy::parse(after, start + apart).unwrap(),
        )
    }

    #[test]
    fn busy_is_the_cpus_wall_time_less_idle_iowait_and_steal() {
        let (before, after) = readings(AFTER, Duration::from_secs(1));
        // 2 CPUs for 1 s; idle +30, iowait +5, steal +10 ticks: 0.45 s not working.
        assert_eq!(after.since(&before), Duration::from_millis(1_550));
        assert_eq!(before.since(&after), Duration::ZERO);
    }

    #[test]
    fn the_ticks_charged_to_user_and_system_do_not_count() {
        // The tick caught no work at all (user, system, irq and softirq unchanged), as it
        // does when work at a fixed rate runs between its ticks; the idle time still says
        // the CPUs worked 0.5 s of their 2 s.
        let after = "cpu  1000 10 500 90100 20 5 300 40 0 0\ncpu0\ncpu1\n";
        let (before, after) = readings(after, Duration::from_secs(1));
        assert_eq!(after.since(&before), Duration::from_millis(1_000));
        let after = "cpu  1000 10 500 90150 20 5 300 40 0 0\ncpu0\ncpu1\n";
        let (before, after) = readings(after, Duration::from_secs(1));
        assert_eq!(after.since(&before), Duration::from_millis(500));
    }

    #[test]
    fn the_idle_baseline_is_taken_off_before_dividing() {
        let busy = Duration::from_millis(1_940);
        let wall = Duration::from_secs(1);
        // 1.94 s busy, 0.04 s of it the machine's idle housekeeping.
        assert!((less_baseline(busy, wall, 0.04) - 1.9).abs() < 1e-9);
        assert_eq!(less_baseline(Duration::ZERO, wall, 0.04), 0.0);
        assert!((less_baseline(busy, wall * 2, 0.04) - 1.86).abs() < 1e-9);
    }

    #[test]
    fn an_unreadable_stat_is_none() {
        let now = Instant::now();
        assert_eq!(Busy::parse("", now), None);
        assert_eq!(Busy::parse("cpu0 1 2 3 4 5 6 7\n", now), None);
        assert_eq!(Busy::parse("cpu  1 2 3\n", now), None);
        assert_eq!(Busy::parse("cpu  1 2 x 4 5 6 7 8\n", now), None);
        // No `cpuN` line: no CPUs to count the wall time of.
        assert_eq!(Busy::parse("cpu  1 2 3 4 5 6 7 8\nintr 1\n", now), None);
    }

    #[test]
    fn this_machine_reads_and_its_idle_time_only_grows() {
        let first = Busy::take().unwrap();
        let second = Busy::take().unwrap();
        assert!(second.idle_ticks >= first.idle_ticks && second.cpus >= 1);
        assert!(second.since(&first) <= second.at.duration_since(first.at) * second.cpus);
    }
}

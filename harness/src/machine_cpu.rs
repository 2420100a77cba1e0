//! Whole-machine CPU: the busy time of every CPU, read from `/proc/stat`. It counts
//! everything the machine did for a load. This includes work no process is charged for:
//! softirq receive processing (on loopback it runs on the sender's CPU), ksoftirqd, and
//! io_uring's io-wq workers wherever they ran. Less what the machine spends with nothing
//! measured running (the idle baseline) and divided by the requests, it is what a request
//! cost the whole machine: server, client and kernel together, on both CPUs. The server
//! process's own CPU ([`crate::cpu`]) is the figure that can tell servers apart; this one
//! says how much of the machine's work that figure leaves out.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// `/proc` reports user and system time in these units (USER_HZ, 100 on Linux).
pub(crate) const TICK: Duration = Duration::from_millis(10);

/// The busy ticks of all CPUs together at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Busy {
    ticks: u64,
}

impl Busy {
    /// Reads `/proc/stat` now.
    pub fn take() -> Result<Busy, String> {
        let path = "/proc/stat";
        let stat = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        Busy::parse(&stat).ok_or_else(|| format!("{path}: no readable `cpu` line"))
    }

    /// The machine's busy ticks from the text of `/proc/stat`: its first line, `cpu`, sums
    /// every CPU. Busy is user, nice, system, irq and softirq. Idle, iowait and steal are
    /// time no work of this machine ran; guest time is already inside user.
    pub fn parse(stat: &str) -> Option<Busy> {
        let fields: Vec<u64> = stat
            .lines()
            .next()?
            .strip_prefix("cpu ")?
            .split_whitespace()
            .map(|v| v.parse().ok())
            .collect::<Option<_>>()?;
        // user nice system idle iowait irq softirq steal ...
        let [user, nice, system, _idle, _iowait, irq, softirq, ..] = fields[..] else {
            return None;
        };
        Some(Busy {
            ticks: user + nice + system + irq + softirq,
        })
    }

    /// The busy CPU time between `earlier` and this reading, all CPUs together.
    pub fn since(&self, earlier: &Busy) -> Duration {
        TICK * self.ticks.saturating_sub(earlier.ticks) as u32
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

    #[test]
    fn busy_counts_user_system_and_interrupts_but_not_idle_iowait_or_steal() {
        let (before, after) = (Busy::parse(BEFORE).unwrap(), Busy::parse(AFTER).unwrap());
        // user +90, system +60, irq +1, softirq +43; idle +30, iowait +5, steal +10 left out.
        assert_eq!(after.since(&before), Duration::from_millis(1_940));
        assert_eq!(before.since(&after), Duration::ZERO);
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
        assert_eq!(Busy::parse(""), None);
        assert_eq!(Busy::parse("cpu0 1 2 3 4 5 6 7\n"), None);
        assert_eq!(Busy::parse("cpu  1 2 3\n"), None);
        assert_eq!(Busy::parse("cpu  1 2 x 4 5 6 7 8\n"), None);
    }

    #[test]
    fn this_machine_reads_and_its_busy_time_only_grows() {
        let first = Busy::take().unwrap();
        let second = Busy::take().unwrap();
        assert!(second.ticks >= first.ticks);
    }
}

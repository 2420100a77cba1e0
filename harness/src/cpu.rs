//! CPU time of a process. For a server: the nanoseconds each of its threads spent on a
//! CPU (`/proc/PID/task/*/schedstat`, user and system alike, precise enough to bracket
//! each criterion sample); when a thread exits between two readings, the process's own
//! counters (`/proc/PID/stat`, which keep exited threads, in 10 ms ticks) show more than
//! the live threads can explain, and decide instead, so that thread's work is never lost.
//! A failed read is an error, never zero. For this process: `getrusage`, which also counts
//! threads that have exited.

use std::collections::HashMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::machine_cpu::{Busy, TICK};

/// CPU time of this process so far, threads that have already exited included
/// (`getrusage`, microsecond precision): the sweep's load threads end before it reads.
pub fn own_cpu_time() -> Duration {
    rusage_time(libc::RUSAGE_SELF)
}

/// CPU time of this process's children that have ended and been waited for (a tool such
/// as wrk run to completion).
pub fn children_cpu_time() -> Duration {
    rusage_time(libc::RUSAGE_CHILDREN)
}

/// CPU time of the calling thread so far, to the nanosecond and up to date while it runs
/// (`CLOCK_THREAD_CPUTIME_ID`; `getrusage` of a thread that has not left its CPU lags by
/// up to a scheduler tick).
pub fn thread_cpu_time() -> Duration {
    // SAFETY: clock_gettime writes only into the struct we pass.
    let time = unsafe {
        let mut time: libc::timespec = std::mem::zeroed();
        libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut time);
        time
    };
    Duration::new(time.tv_sec as u64, time.tv_nsec as u32)
}

fn rusage_time(who: libc::c_int) -> Duration {
    // SAFETY: getrusage writes only into the struct we pass.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(who, &mut usage);
        usage
    };
    let micros = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    Duration::from_micros(micros(usage.ru_utime) + micros(usage.ru_stime))
}

/// The time on a CPU, in ns, from the text of the `schedstat` file at `path` (its first
/// figure).
pub(crate) fn schedstat_ns(stat: &str, path: &str) -> Result<u64, String> {
    stat.split_whitespace()
        .next()
        .and_then(|ns| ns.parse().ok())
        .ok_or_else(|| format!("{path}: unreadable: {stat:?}"))
}

/// What process `pid` had consumed at one moment: per live thread, and in total. It
/// crosses hosts as JSON (an agent's usage reply, `crate::remote`), so a study reads a
/// remote server's CPU with the same [`Snapshot::since`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// Thread id -> nanoseconds on a CPU.
    threads: HashMap<u32, u64>,
    /// User + system time of the whole process, exited threads included.
    process: Duration,
}

impl Snapshot {
    pub fn take(pid: u32) -> Result<Snapshot, String> {
        let process = process_time(pid)?;
        let dir = format!("/proc/{pid}/task");
        let tasks = std::fs::read_dir(&dir).map_err(|e| format!("{dir}: {e}"))?;
        let mut threads = HashMap::new();
        for task in tasks {
            let task = task.map_err(|e| format!("{dir}: {e}"))?;
            let Ok(tid) = task.file_name().to_string_lossy().parse::<u32>() else {
                continue;
            };
            let path = task.path().join("schedstat");
            match std::fs::read_to_string(&path) {
                Ok(stat) => {
                    threads.insert(tid, schedstat_ns(&stat, &path.display().to_string())?);
                }
                // The thread exited since the directory was listed (its entry gone, or
                // still listed but already reaped: ESRCH): the process total keeps its
                // time, and `since` sees it gone.
                Err(e) if thread_gone(&e) => {}
                Err(e) => return Err(format!("{}: {e}", path.display())),
            }
        }
        Ok(Snapshot { threads, process })
    }

    /// CPU consumed between `earlier` and this snapshot: to the nanosecond from the live
    /// threads, unless threads that exited in between (seen before and gone, or born and
    /// gone between the readings) leave the process's own counters ahead of that by more
    /// than their ticks' rounding; then the process's counters, to the tick.
    pub fn since(&self, earlier: &Snapshot) -> Duration {
        let live: u64 = self
            .threads
            .iter()
            .map(|(tid, ns)| ns.saturating_sub(earlier.threads.get(tid).copied().unwrap_or(0)))
            .sum();
        let live = Duration::from_nanos(live);
        let process = self.process.saturating_sub(earlier.process);
        if process > live + ROUNDING { process } else { live }
    }
}

/// Whether reading a thread's file failed only because that thread has exited.
fn thread_gone(error: &std::io::Error) -> bool {
    error.kind() == std::io::ErrorKind::NotFound || error.raw_os_error() == Some(libc::ESRCH)
}

/// How far the process's tick counters may run ahead of its threads' nanoseconds from
/// rounding alone: a tick at each end.
const ROUNDING: Duration = Duration::from_millis(20);

/// User + system time of process `pid`, exited threads included (`/proc/PID/stat`).
fn process_time(pid: u32) -> Result<Duration, String> {
    let path = format!("/proc/{pid}/stat");
    let stat = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
    // The command name may hold spaces and parentheses: fields are counted after its end.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    // Fields 14 and 15 (utime, stime) are the 12th and 13th after the command name.
    let ticks = |i: usize| fields.get(i).and_then(|v| v.parse::<u32>().ok());
    match (ticks(11), ticks(12)) {
        (Some(user), Some(system)) => Ok(TICK * (user + system)),
        _ => Err(format!("{path}: unreadable: {stat:?}")),
    }
}

/// CPU consumed by the server (when we know its pid), by this process and by the whole
/// machine ([`crate::machine_cpu`]) while `work` ran, and the wall time it took.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Spent {
    pub server: Option<Duration>,
    pub client: Duration,
    /// Every CPU's busy time, all CPUs together.
    pub machine: Duration,
    pub wall: Duration,
}

impl Spent {
    pub fn add(&mut self, other: Spent) {
        self.server = match (self.server, other.server) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
        self.client += other.client;
        self.machine += other.machine;
        self.wall += other.wall;
    }
}

/// Runs `work`, measuring what it cost on both sides and to the whole machine; an error
/// when the server's or the machine's counters cannot be read. `server` reads the server's
/// CPU ([`Snapshot::take`] of its pid, or through the agent), `None` where there is none.
pub fn measure<T>(
    server: impl Fn() -> Option<Result<Snapshot, String>>,
    work: impl FnOnce() -> T,
) -> (T, Result<Spent, String>) {
    let before = server().transpose();
    let machine_before = Busy::take();
    let (client_before, start) = (own_cpu_time(), std::time::Instant::now());
    let result = work();
    let wall = start.elapsed();
    let client = own_cpu_time().saturating_sub(client_before);
    let machine_after = Busy::take();
    let after = server().transpose();
    let spent = before.and_then(|before| {
        Ok(Spent {
            server: after?.zip(before).map(|(after, before)| after.since(&before)),
            client,
            machine: machine_after?.since(&machine_before?),
            wall,
        })
    });
    (result, spent)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Works until this thread has had `time` on a CPU, however busy the machine is.
    fn spin(time: Duration) {
        let on_cpu = || {
            let stat = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap();
            Duration::from_nanos(stat.split_whitespace().next().unwrap().parse().unwrap())
        };
        let start = on_cpu();
        while on_cpu() - start < time {
            for _ in 0..10_000 {
                std::hint::black_box(0u64);
            }
        }
    }

    #[test]
    fn busy_work_is_counted_in_this_and_exited_threads() {
        let ((), busy) = measure(|| None, || spin(Duration::from_millis(100)));
        assert!(busy.unwrap().client >= Duration::from_millis(50));
        let ((), idle) = measure(|| None, || std::thread::sleep(Duration::from_millis(100)));
        let ((), in_thread) = measure(
            || None,
            || {
                std::thread::spawn(|| spin(Duration::from_millis(100)))
                    .join()
                    .unwrap()
            },
        );
        let in_thread = in_thread.unwrap();
        assert!(
            in_thread.client >= Duration::from_millis(50),
            "an exited thread's CPU counts: {in_thread:?}"
        );
        // Other tests run beside this one and their CPU counts too, so sleeping is only
        // checked for its wall time.
        assert!(idle.unwrap().wall >= Duration::from_millis(100));
    }

    #[test]
    fn a_server_thread_that_exits_mid_point_still_counts() {
        // This test process plays the server: a thread works 200 ms and exits.
        let me = std::process::id();
        let ((), spent) = measure(
            || Some(Snapshot::take(me)),
            || {
                std::thread::spawn(|| spin(Duration::from_millis(200)))
                    .join()
                    .unwrap()
            },
        );
        let server = spent.unwrap().server.unwrap();
        assert!(server >= Duration::from_millis(150), "{server:?}");
    }

    #[test]
    fn a_thread_that_lives_throughout_counts_to_the_nanosecond() {
        let earlier = Snapshot {
            threads: HashMap::from([(1, 1_000), (2, 5_000)]),
            process: Duration::from_millis(10),
        };
        let later = Snapshot {
            threads: HashMap::from([(1, 1_500), (2, 5_000), (3, 700)]),
            process: Duration::from_millis(30),
        };
        assert_eq!(later.since(&earlier), Duration::from_nanos(1_200));
        let one_gone = Snapshot {
            threads: HashMap::from([(1, 1_500)]),
            process: Duration::from_millis(60),
        };
        assert_eq!(one_gone.since(&earlier), Duration::from_millis(50));
    }

    #[test]
    fn only_a_vanished_thread_is_skipped() {
        assert!(thread_gone(&std::io::Error::from_raw_os_error(libc::ESRCH)));
        assert!(thread_gone(&std::io::Error::from_raw_os_error(libc::ENOENT)));
        assert!(!thread_gone(&std::io::Error::from_raw_os_error(libc::EACCES)));
    }

    #[test]
    fn a_failed_read_is_an_error() {
        assert!(Snapshot::take(999_999_999).is_err());
        let ((), spent) = measure(|| Some(Snapshot::take(999_999_999)), || ());
        assert!(spent.unwrap_err().contains("/proc/999999999"));
    }
}

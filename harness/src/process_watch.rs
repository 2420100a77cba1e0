//! What a server process did over a measurement beside its CPU ([`crate::cpu`]): the
//! bytes it had read from storage, and the most threads it ran at once.
//!
//! - Disk bytes: the change in `read_bytes` of `/proc/PID/io`, the bytes whose reads
//!   went to the block layer (page-cache misses and their readahead), not those served
//!   from the cache. The kernel sums it over every thread of the process, live or exited
//!   (an exited thread's counts are folded into the process's), and io_uring's workers
//!   are threads of the process, so reads punted to them count too.
//! - Threads: `Threads:` of `/proc/PID/status`, sampled every [`SAMPLE_EVERY`] by a thread
//!   of this process (which runs pinned where the client runs), its maximum kept. A
//!   thread born and gone between two samples is missed.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// How often the thread count is sampled. Default is 10 ms.
pub const SAMPLE_EVERY: Duration = Duration::from_millis(10);

/// What [`Watch`] saw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Watched {
    /// Bytes read from storage over the measurement.
    pub disk_read_bytes: u64,
    /// The most threads the process had at a sample (at least the count at the start).
    pub max_threads: u64,
}

impl Watched {
    /// Two measurements of one server as one: bytes added, the larger thread count.
    pub fn plus(self, other: Watched) -> Watched {
        Watched {
            disk_read_bytes: self.disk_read_bytes + other.disk_read_bytes,
            max_threads: self.max_threads.max(other.max_threads),
        }
    }
}

/// A process being watched; [`Watch::stop`] ends it and says what it saw.
pub struct Watch {
    pid: u32,
    read_before: u64,
    stop: Arc<AtomicBool>,
    sampler: JoinHandle<Result<u64, String>>,
}

impl Watch {
    pub fn start(pid: u32) -> Result<Watch, String> {
        let read_before = io_field(pid, "read_bytes")?;
        let first = status_number(pid, "Threads")?;
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        let sampler = std::thread::spawn(move || {
            let mut most = first;
            while !stopped.load(Ordering::Relaxed) {
                most = most.max(status_number(pid, "Threads")?);
                std::thread::sleep(SAMPLE_EVERY);
            }
            Ok(most)
        });
        Ok(Watch {
            pid,
            read_before,
            stop,
            sampler,
        })
    }

    pub fn stop(self) -> Result<Watched, String> {
        self.stop.store(true, Ordering::Relaxed);
        let max_threads = self.sampler.join().map_err(|_| "the thread sampler panicked")??;
        let read_after = io_field(self.pid, "read_bytes")?;
        Ok(Watched {
            disk_read_bytes: read_after.saturating_sub(self.read_before),
            max_threads,
        })
    }
}

/// A `name: number` line of `text` (a `/proc` file read from `path`), its unit (` kB`)
/// dropped.
fn field(text: &str, path: &str, name: &str) -> Result<u64, String> {
    text.lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| format!("{path}: no {name} line"))
}

/// A figure of `/proc/PID/status` (`VmRSS` and `VmHWM` in KiB, `Threads` a count).
pub fn status_number(pid: u32, name: &str) -> Result<u64, String> {
    let path = format!("/proc/{pid}/status");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
    field(&text, &path, name)
}

/// A figure of `/proc/PID/io`, in bytes.
pub fn io_field(pid: u32, name: &str) -> Result<u64, String> {
    let path = format!("/proc/{pid}/io");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
    field(&text, &path, name)
}

/// Resets the peak resident memory (VmHWM) of `pid` to its current size, so each point
/// reports its own peak rather than the largest of every point before it.
pub fn reset_peak_rss(pid: u32) -> Result<(), String> {
    let path = format!("/proc/{pid}/clear_refs");
    std::fs::write(&path, "5").map_err(|e| format!("{path}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_read_by_name_with_their_unit_dropped() {
        let status = "Name:\tx\nThreads:\t7\nVmHWM:\t  1234 kB\n";
        assert_eq!(field(status, "s", "Threads"), Ok(7));
        assert_eq!(field(status, "s", "VmHWM"), Ok(1234));
        assert!(field(status, "s", "VmRSS").unwrap_err().contains("no VmRSS"));
        assert_eq!(
            field("rchar: 5\nread_bytes: 4096\n", "io", "read_bytes"),
            Ok(4096)
        );
    }

    #[test]
    fn a_thread_started_while_watched_is_counted() {
        let me = std::process::id();
        let before = status_number(me, "Threads").unwrap();
        let watch = Watch::start(me).unwrap();
        let sleepers: Vec<_> = (0..3)
            .map(|_| std::thread::spawn(|| std::thread::sleep(SAMPLE_EVERY * 10)))
            .collect();
        for sleeper in sleepers {
            sleeper.join().unwrap();
        }
        let watched = watch.stop().unwrap();
        // The sampler and the three sleepers ran at once; other tests' threads may add.
        assert!(watched.max_threads >= before + 4, "{watched:?} from {before}");
        assert!(Watch::start(999_999_999).is_err());
    }
}

//! How often a server slept: the voluntary context switches of all its live threads
//! (`voluntary_ctxt_switches` in `/proc/PID/task/*/status`). A thread switches out
//! voluntarily when it blocks (in `epoll_wait`, `io_uring_enter` waiting for completions,
//! a futex), and each such sleep ends in a wake-up: read before and after a point, the
//! difference is the server's wake-ups over it ([`crate::load::Point::server_wakeups`]),
//! which [`crate::workload::wakes`] reads per request. A thread that exited in between
//! takes its count with it.

/// The voluntary context switches of every live thread of process `pid`.
pub fn voluntary(pid: u32) -> Result<u64, String> {
    let dir = format!("/proc/{pid}/task");
    let tasks = std::fs::read_dir(&dir).map_err(|e| format!("{dir}: {e}"))?;
    let mut total = 0;
    for task in tasks {
        let path = task.map_err(|e| format!("{dir}: {e}"))?.path().join("status");
        // A thread that exited since the directory was listed is skipped.
        let Ok(status) = std::fs::read_to_string(&path) else {
            continue;
        };
        total += voluntary_in(&status).ok_or_else(|| format!("{}: no switch count", path.display()))?;
    }
    Ok(total)
}

/// The `voluntary_ctxt_switches:` figure of a `status` file's text.
fn voluntary_in(status: &str) -> Option<u64> {
    status
        .lines()
        .find_map(|line| line.strip_prefix("voluntary_ctxt_switches:"))
        .and_then(|count| count.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_voluntary_count_is_read_not_the_involuntary_one() {
        let status = "Name:\tio_uring_server\nThreads:\t1\n\
                      voluntary_ctxt_switches:\t15342\nnonvoluntary_ctxt_switches:\t27\n";
        assert_eq!(voluntary_in(status), Some(15342));
        assert_eq!(voluntary_in("nonvoluntary_ctxt_switches:\t27\n"), None);
        assert_eq!(voluntary_in("voluntary_ctxt_switches:\tmany\n"), None);
    }

    #[test]
    fn a_thread_that_sleeps_is_counted_in_its_process() {
        let (tid_tx, tid_rx) = std::sync::mpsc::channel();
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        let sleeper = std::thread::spawn(move || {
            for _ in 0..10 {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            // SAFETY: gettid has no arguments and cannot fail.
            tid_tx.send(unsafe { libc::gettid() }).unwrap();
            let _ = done_rx.recv();
        });
        let tid = tid_rx.recv().unwrap();
        let path = format!("/proc/self/task/{tid}/status");
        let own = voluntary_in(&std::fs::read_to_string(path).unwrap()).unwrap();
        // Other tests' threads come and go, but this one lives until it is told.
        let total = voluntary(std::process::id()).unwrap();
        done_tx.send(()).unwrap();
        sleeper.join().unwrap();
        assert!(own >= 10, "{own}");
        assert!(total >= own, "{total} < {own}");
        assert!(voluntary(999_999_999).is_err());
    }
}

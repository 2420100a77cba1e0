//! io_uring's worker threads (`iou-wrk-*`): work the kernel cannot complete inline is
//! punted to them, and they do not follow the server's CPU affinity unless the ring
//! registers one (IORING_REGISTER_IOWQ_AFF), so their work can land on the client's CPU.
//! Their time is in the process's CPU figure either way; this counts them, so a report
//! can say whether any ran at all.

use serde::{Deserialize, Serialize};

/// The io_uring worker threads a server had at the end of a point.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct IoWorkers {
    pub threads: usize,
    /// The CPU they had used in their lives, seconds.
    pub cpu_s: f64,
}

impl IoWorkers {
    /// The threads of process `pid` named as io_uring workers; empty when none (or when
    /// `/proc` cannot be read: this is a clue, never a reason to fail a point).
    pub fn of(pid: u32) -> IoWorkers {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            return IoWorkers::default();
        };
        let mut found = IoWorkers::default();
        for task in tasks.flatten() {
            let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
            if !is_io_worker(&comm) {
                continue;
            }
            let stat = std::fs::read_to_string(task.path().join("schedstat")).unwrap_or_default();
            let ns: u64 = stat
                .split_whitespace()
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            found.threads += 1;
            found.cpu_s += ns as f64 / 1e9;
        }
        found
    }

    /// The most threads and CPU either saw (slices of one server: the later counts the
    /// earlier's threads again if they lived on).
    pub fn larger(self, other: IoWorkers) -> IoWorkers {
        IoWorkers {
            threads: self.threads.max(other.threads),
            cpu_s: self.cpu_s.max(other.cpu_s),
        }
    }
}

/// Whether a thread's `comm` names an io_uring worker (`iou-wrk-1234`; `iou-sqp-` is
/// the SQPOLL thread, which a server asks for).
fn is_io_worker(comm: &str) -> bool {
    comm.trim().starts_with("iou-wrk")
}

/// What the io_uring worker threads did, in a sentence for a report: no point ended with
/// one (a worker lives on for seconds after its last work, longer than any point), or
/// which servers had them where.
/// `seen`: per point, the server's label, the workload, the round (from 0) and its workers.
pub fn note<'a>(seen: impl Iterator<Item = (&'a str, &'a str, usize, Option<IoWorkers>)>) -> String {
    let seen: Vec<String> = seen
        .filter_map(|(label, workload, round, workers)| {
            let workers = workers.filter(|w| w.threads > 0)?;
            Some(format!(
                "{label} at {workload} (round {}): {} thread(s), {:.1} ms of CPU",
                round + 1,
                workers.threads,
                workers.cpu_s * 1e3
            ))
        })
        .collect();
    if seen.is_empty() {
        return "io_uring worker threads (`iou-wrk`, which would not follow the server's CPU \
                affinity: neither io_uring server registers IORING_REGISTER_IOWQ_AFF): no \
                point of any server ended with one (one lives on for seconds after its last \
                work), so nothing measured here was punted to them."
            .into();
    }
    const SHOWN: usize = 6;
    let more = match seen.len().saturating_sub(SHOWN) {
        0 => String::new(),
        n => format!(" and {n} more points"),
    };
    format!(
        "io_uring worker threads (`iou-wrk`, which do not follow the server's CPU affinity: \
         neither io_uring server registers IORING_REGISTER_IOWQ_AFF; their CPU is in the \
         server's figure wherever they ran) at the end of a point: {}{more}.",
        seen[..seen.len().min(SHOWN)].join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_io_worker_threads_are_counted() {
        assert!(is_io_worker("iou-wrk-4121\n"));
        assert!(!is_io_worker("iou-sqp-4121\n"));
        assert!(!is_io_worker("io_uring_server\n"));
        // This test process has no io_uring workers.
        assert_eq!(IoWorkers::of(std::process::id()), IoWorkers::default());
    }

    #[test]
    fn slices_keep_the_larger() {
        let a = IoWorkers {
            threads: 2,
            cpu_s: 0.1,
        };
        let b = IoWorkers {
            threads: 1,
            cpu_s: 0.3,
        };
        assert_eq!(
            a.larger(b),
            IoWorkers {
                threads: 2,
                cpu_s: 0.3
            }
        );
    }
}

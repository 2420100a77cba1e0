//! CPU time of a process: the sum over its threads of the nanoseconds each spent on a CPU
//! (`/proc/PID/task/*/schedstat`, user and system alike). Unlike `/proc/PID/stat`, which
//! counts in 10 ms ticks, this is precise enough to bracket each criterion sample.

use std::time::Duration;

/// CPU time consumed so far by the live threads of process `pid` (`"self"` for this one).
pub fn cpu_time(pid: &str) -> Option<Duration> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let mut total = 0u64;
    for task in tasks.flatten() {
        let Ok(stat) = std::fs::read_to_string(task.path().join("schedstat")) else {
            continue;
        };
        total += stat
            .split_whitespace()
            .next()
            .and_then(|ns| ns.parse::<u64>().ok())
            .unwrap_or(0);
    }
    Some(Duration::from_nanos(total))
}

/// CPU consumed by the server (when we know its pid) and by this process while `work` ran,
/// and the wall time it took.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Spent {
    pub server: Option<Duration>,
    pub client: Duration,
    pub wall: Duration,
}

impl Spent {
    pub fn add(&mut self, other: Spent) {
        self.server = match (self.server, other.server) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
        self.client += other.client;
        self.wall += other.wall;
    }
}

/// Runs `work`, measuring what it cost on both sides.
pub fn measure<T>(server_pid: Option<u32>, work: impl FnOnce() -> T) -> (T, Spent) {
    let server = || server_pid.and_then(|pid| cpu_time(&pid.to_string()));
    let (server_before, client_before, start) = (server(), cpu_time("self"), std::time::Instant::now());
    let result = work();
    let wall = start.elapsed();
    let spent = Spent {
        server: server()
            .zip(server_before)
            .map(|(after, before)| after.saturating_sub(before)),
        client: cpu_time("self")
            .zip(client_before)
            .map_or(Duration::ZERO, |(a, b)| a.saturating_sub(b)),
        wall,
    };
    (result, spent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_work_is_counted_and_sleep_is_not() {
        let ((), busy) = measure(None, || {
            let start = std::time::Instant::now();
            let mut x = 0u64;
            while start.elapsed() < Duration::from_millis(100) {
                x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
            }
        });
        assert!(busy.client >= Duration::from_millis(50), "{busy:?}");
        let ((), idle) = measure(None, || std::thread::sleep(Duration::from_millis(100)));
        assert!(idle.client < Duration::from_millis(20), "{idle:?}");
        assert!(idle.wall >= Duration::from_millis(100));
        assert!(cpu_time("999999999").is_none());
    }
}

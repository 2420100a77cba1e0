//! CPU time of a process: for a server, the sum over its threads of the nanoseconds each
//! spent on a CPU (`/proc/PID/task/*/schedstat`, user and system alike; unlike
//! `/proc/PID/stat`, which counts in 10 ms ticks, precise enough to bracket each criterion
//! sample); for this process, `getrusage`, which also counts threads that have exited.

use std::time::Duration;

/// CPU time of this process so far, threads that have already exited included
/// (`getrusage`, microsecond precision): the sweep's load threads end before it reads.
pub fn own_cpu_time() -> Duration {
    // SAFETY: getrusage writes only into the struct we pass.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let micros = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    Duration::from_micros(micros(usage.ru_utime) + micros(usage.ru_stime))
}

/// CPU time consumed so far by the live threads of process `pid`.
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
    let (server_before, client_before, start) = (server(), own_cpu_time(), std::time::Instant::now());
    let result = work();
    let wall = start.elapsed();
    let spent = Spent {
        server: server()
            .zip(server_before)
            .map(|(after, before)| after.saturating_sub(before)),
        client: own_cpu_time().saturating_sub(client_before),
        wall,
    };
    (result, spent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_work_is_counted_in_this_and_exited_threads() {
        let ((), busy) = measure(None, || {
            let start = std::time::Instant::now();
            let mut x = 0u64;
            while start.elapsed() < Duration::from_millis(100) {
                x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
            }
        });
        assert!(busy.client >= Duration::from_millis(50), "{busy:?}");
        let ((), idle) = measure(None, || std::thread::sleep(Duration::from_millis(100)));
        let ((), in_thread) = measure(None, || {
            std::thread::spawn(|| {
                let start = std::time::Instant::now();
                while start.elapsed() < Duration::from_millis(100) {
                    std::hint::black_box(0u64);
                }
            })
            .join()
            .unwrap()
        });
        assert!(
            in_thread.client >= Duration::from_millis(50),
            "an exited thread's CPU counts: {in_thread:?}"
        );
        // Other tests run beside this one and their CPU counts too, so sleeping is only
        // checked for its wall time.
        assert!(idle.wall >= Duration::from_millis(100));
        assert!(cpu_time("999999999").is_none());
    }
}

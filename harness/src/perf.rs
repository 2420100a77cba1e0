//! Events of a process during a run, counted by `perf stat` when perf is installed and
//! allowed (otherwise the figure is reported as n/a): its syscalls
//! (`raw_syscalls:sys_enter`), and with [`EventCounter`] any tracepoints, such as the
//! io_uring completions it reaps and the times it went to sleep.

use std::process::{Child, Command, Stdio};

pub struct SyscallCounter(EventCounter);

impl SyscallCounter {
    /// Starts counting the syscalls of `pid` (all threads); `None` if perf is unavailable.
    pub fn start(pid: u32) -> Option<SyscallCounter> {
        EventCounter::start(pid, &[SYSCALLS]).map(SyscallCounter)
    }

    /// Stops counting and returns the count, if perf reported one.
    pub fn stop(self) -> Option<u64> {
        self.0.stop()?.first().copied().flatten()
    }
}

/// Every system call a process enters.
pub const SYSCALLS: &str = "raw_syscalls:sys_enter";
/// Every io_uring completion posted for it.
pub const IO_URING_COMPLETIONS: &str = "io_uring:io_uring_complete";
/// Every time one of its threads left the CPU (mostly to sleep until woken).
pub const CONTEXT_SWITCHES: &str = "context-switches";

/// `perf stat` counting `events` of one process (all its threads) until stopped.
pub struct EventCounter {
    child: Child,
    events: Vec<&'static str>,
}

impl EventCounter {
    /// Starts counting `events` of `pid`; `None` if perf is unavailable.
    pub fn start(pid: u32, events: &[&'static str]) -> Option<EventCounter> {
        let child = Command::new("perf")
            .args(["stat", "-x", ",", "-e", &events.join(","), "-p", &pid.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .ok()?;
        std::thread::sleep(std::time::Duration::from_millis(200));
        Some(EventCounter {
            child,
            events: events.to_vec(),
        })
    }

    /// Stops counting; each event's count in the order asked, `None` for one perf could
    /// not count (a tracepoint this kernel lacks). `None` if perf reported nothing.
    pub fn stop(self) -> Option<Vec<Option<u64>>> {
        // SAFETY: kill(2) on our own child, which has not been reaped yet.
        unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGINT) };
        let output = self.child.wait_with_output().ok()?;
        let csv = String::from_utf8_lossy(&output.stderr);
        let counts: Vec<_> = self.events.iter().map(|e| parse_event(&csv, e)).collect();
        counts.iter().any(Option::is_some).then_some(counts)
    }
}

/// The syscall count from perf's CSV output (`12345,,raw_syscalls:sys_enter,...`).
pub fn parse(csv: &str) -> Option<u64> {
    parse_event(csv, SYSCALLS)
}

/// `event`'s count from perf's CSV output: the line whose third field is `event`.
fn parse_event(csv: &str, event: &str) -> Option<u64> {
    csv.lines()
        .find(|line| line.split(',').nth(2) == Some(event))
        .and_then(|line| line.split(',').next())
        .and_then(|count| count.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_perf_csv() {
        assert_eq!(
            parse("1234567,,raw_syscalls:sys_enter,2000000,100.00,,\n"),
            Some(1_234_567)
        );
        assert_eq!(parse("<not supported>,,raw_syscalls:sys_enter,0,100.00,,"), None);
        assert_eq!(parse(""), None);
    }

    #[test]
    fn parses_each_event_of_one_csv() {
        let csv = "27559,,io_uring:io_uring_complete,4000,100.00,,\n\
                   <not counted>,,raw_syscalls:sys_enter,0,0.00,,\n\
                   4388,,context-switches,4000,100.00,,\n";
        assert_eq!(parse_event(csv, IO_URING_COMPLETIONS), Some(27_559));
        assert_eq!(parse_event(csv, CONTEXT_SWITCHES), Some(4_388));
        assert_eq!(parse_event(csv, SYSCALLS), None);
        assert_eq!(parse_event(csv, "sched:sched_wakeup"), None);
    }
}
